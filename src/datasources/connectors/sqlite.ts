/**
 * SQLITE through Deno's built-in `node:sqlite`. The driver is synchronous and has no interrupt,
 * so a statement is stepped in batches and an abort takes effect between batches (one batch is
 * the longest a cancel waits); the connection stays usable. The file must exist: opening a
 * mistyped path must not create an empty database.
 */
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import type { Logger } from "../../lib/log.ts";
import {
  bindValue,
  capped,
  classifyError,
  DEFAULT_BATCH_ROWS,
  lossyWarning,
  probe,
  quoteIdent,
  rowStream,
  tableNotFound,
} from "./common.ts";
import type { DriverOptions, JdbcTarget } from "./jdbc_url.ts";
import { type Raw, readRows, type SqliteRows } from "./sqlite_rows.ts";
import { translatePlaceholders } from "./placeholders.ts";
import { Pool, type PoolDriver } from "./pool.ts";
import type { PoolSettings } from "./pool_settings.ts";
import {
  declaredPrecision,
  sqliteConverter,
  sqliteWireType,
  storageClassType,
} from "./sqlite_types.ts";
import {
  type ColumnInfo,
  type ColumnSchema,
  type Connector,
  type Listing,
  type QueryOptions,
  type RowStream,
  type Statement,
  type TableInfo,
  type TestOutcome,
  WriteError,
  type WriteOutcome,
} from "./types.ts";

type SqliteTarget = Extract<JdbcTarget, { dialect: "SQLITE" }>;

function toInput(values: unknown[]): SQLInputValue[] {
  return values.map((v) => {
    const b = bindValue(v);
    if (typeof b === "boolean") return b ? 1 : 0;
    return (b ?? null) as SQLInputValue;
  });
}

/**
 * SQLite's authorizer actions a read needs: SQLITE_READ (20), SQLITE_SELECT (21),
 * SQLITE_FUNCTION (31), SQLITE_RECURSIVE (33). Anything else (writes, PRAGMA, ATTACH, temp
 * objects, transactions) is denied, and the statement fails to prepare with SQLITE_AUTH.
 */
const READ_ACTIONS = new Set([20, 21, 31, 33]);
const readsOnly = (action: number) => READ_ACTIONS.has(action) ? 0 : 1;

export function sqliteDriver(
  target: SqliteTarget,
  options: DriverOptions,
): PoolDriver<DatabaseSync> {
  return {
    async connect() {
      if (target.path !== ":memory:") await Deno.stat(target.path);
      const db = new DatabaseSync(target.path, { readOnly: options.readonly === "true" });
      db.exec(`PRAGMA busy_timeout = ${Number(options.busy_timeout ?? 5000)}`);
      return db;
    },
    validate(db) {
      try {
        db.prepare("SELECT 1").get();
        return Promise.resolve(true);
      } catch {
        return Promise.resolve(false);
      }
    },
    close(db) {
      if (db.isOpen) db.close();
      return Promise.resolve();
    },
  };
}

/**
 * A connector whose every lease is the one open database `db` (the SQLite staging engine, whose
 * private in-memory database exists only on its connection). node:sqlite runs synchronously, so
 * leases interleave only between batches, which SQLite allows on one connection.
 */
export function sqliteOver(name: string, db: DatabaseSync, settings: PoolSettings): Connector {
  return new SqliteConnector(
    name,
    { dialect: "SQLITE", path: ":memory:", options: {} },
    {},
    settings,
    undefined,
    {
      connect: () => Promise.resolve(db),
      validate: () => Promise.resolve(db.isOpen),
      close: () => Promise.resolve(),
    },
  );
}

export class SqliteConnector implements Connector {
  readonly dialect = "SQLITE" as const;
  readonly #pool: Pool<DatabaseSync>;
  readonly #driver: PoolDriver<DatabaseSync>;

  constructor(
    name: string,
    target: SqliteTarget,
    options: DriverOptions,
    settings: PoolSettings,
    logger?: Logger,
    driver: PoolDriver<DatabaseSync> = sqliteDriver(target, options),
  ) {
    this.#driver = driver;
    this.#pool = new Pool({
      name,
      settings,
      driver: this.#driver,
      logger,
      classify: classifyError,
    });
  }

  get pool(): Pool<DatabaseSync> {
    return this.#pool;
  }

  async query(statement: Statement, options: QueryOptions = {}): Promise<RowStream> {
    const { sql, values } = translatePlaceholders(statement.sql, statement.params, "sqlite");
    const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
    const lease = await this.#pool.acquire(options.signal);
    const release = () => {
      if (options.readOnly) {
        lease.conn.setAuthorizer(null);
        lease.conn.exec("PRAGMA query_only = OFF");
      }
      lease.release();
    };
    let rows: SqliteRows;
    let first: Raw[][];
    try {
      options.signal?.throwIfAborted();
      // Two rules of SQLite's own, kept for the whole read (SQLite authorizes again when it
      // re-prepares): query_only refuses any write to a database file (VACUUM included), the
      // authorizer anything but reading (PRAGMA, ATTACH, temp objects).
      if (options.readOnly) {
        lease.conn.exec("PRAGMA query_only = ON");
        lease.conn.setAuthorizer(readsOnly);
      }
      rows = readRows(lease.conn, sql, toInput(values));
      first = rows.next(batchRows);
    } catch (error) {
      release();
      throw options.signal?.aborted ? options.signal.reason : error;
    }
    const schema: ColumnSchema[] = rows.columns.map((col, i) => {
      if (col.type) {
        return { name: col.name, type: sqliteWireType(col.type).type, source_type: col.type };
      }
      const sample = first.find((row) => row[i] !== null)?.[i] ?? null;
      const inferred = storageClassType(sample);
      return { name: col.name, type: inferred.type, source_type: inferred.source };
    });
    const converters = schema.map((c) => sqliteConverter(c.type));
    const convert = (rows: Raw[][]) => rows.map((row) => row.map((v, i) => converters[i](v)));
    let done = first.length < batchRows;
    return rowStream(schema, {
      first: convert(first),
      next: async () => {
        if (done) return undefined;
        // Give the event loop a turn so an abort can land between batches.
        await new Promise((resolve) => setTimeout(resolve, 0));
        options.signal?.throwIfAborted();
        const batch = rows.next(batchRows);
        if (batch.length < batchRows) done = true;
        return batch.length > 0 ? convert(batch) : undefined;
      },
      finish: () => {
        rows.close();
        release();
        return Promise.resolve();
      },
    }, options);
  }

  async write(
    statements: Statement[],
    options: { signal?: AbortSignal } = {},
  ): Promise<WriteOutcome> {
    const prepared = statements.map((s) => translatePlaceholders(s.sql, s.params, "sqlite"));
    const lease = await this.#pool.acquire(options.signal);
    const db = lease.conn;
    const rows_affected: (number | null)[] = [];
    try {
      db.exec("BEGIN IMMEDIATE");
    } catch (error) {
      lease.release();
      throw new WriteError({ rolled_back: false, rows_affected }, error);
    }
    try {
      for (const { sql, values } of prepared) {
        options.signal?.throwIfAborted();
        rows_affected.push(Number(db.prepare(sql).run(...toInput(values)).changes));
        // Statements are synchronous: yield so an abort can be seen before the next one.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      options.signal?.throwIfAborted();
      db.exec("COMMIT");
      lease.release();
      return { committed: true, rolled_back: false, rows_affected };
    } catch (error) {
      let rolledBack = false;
      try {
        if (db.isTransaction) db.exec("ROLLBACK");
        rolledBack = !db.isTransaction;
      } catch {
        rolledBack = false;
      }
      lease.release({ broken: !rolledBack });
      throw WriteError.afterRollback(rolledBack, rows_affected, error, options.signal);
    }
  }

  test(): Promise<TestOutcome> {
    return probe(async () => {
      const db = await this.#driver.connect(new AbortController().signal);
      try {
        const row = db.prepare("SELECT sqlite_version() AS v").get() as { v: string };
        return row.v;
      } finally {
        await this.#driver.close(db);
      }
    });
  }

  #all<T>(sql: string, ...params: SQLInputValue[]): Promise<T[]> {
    return this.#pool.use((db) => Promise.resolve(db.prepare(sql).all(...params) as T[]));
  }

  async schemas(options: { include: string[]; cap: number }): Promise<Listing<string>> {
    const rows = await this.#all<{ name: string }>(
      "SELECT name FROM pragma_database_list ORDER BY seq",
    );
    // `temp` is SQLite's own per-connection schema.
    const names = rows.map((r) => r.name).filter((n) =>
      n !== "temp" || options.include.includes("temp")
    );
    return capped(names, options.cap);
  }

  async tables(
    options: { schema?: string; include: string[]; cap: number },
  ): Promise<Listing<TableInfo>> {
    const schemas = options.schema !== undefined
      ? [options.schema]
      : (await this.schemas({ ...options, cap: 1000 })).items;
    const known = new Set(
      (await this.#all<{ name: string }>("SELECT name FROM pragma_database_list")).map((r) =>
        r.name
      ),
    );
    const out: TableInfo[] = [];
    for (const schema of schemas) {
      if (!known.has(schema)) continue;
      const rows = await this.#all<{ name: string; type: string }>(
        `SELECT name, type FROM ${quoteIdent("SQLITE", schema)}.sqlite_schema
          WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name LIMIT ?`,
        options.cap + 1 - out.length,
      );
      for (const r of rows) {
        out.push({ schema, name: r.name, type: r.type === "view" ? "view" : "table" });
      }
      if (out.length > options.cap) break;
    }
    return capped(out, options.cap);
  }

  async columns(table: string, schema?: string): Promise<ColumnInfo[]> {
    const resolved = schema ?? "main";
    const listed = await this.tables({ schema: resolved, include: [], cap: 100_000 });
    if (!listed.items.some((t) => t.name === table)) {
      throw tableNotFound(table, resolved, listed.items.map((t) => t.name));
    }
    const rows = await this.#all<
      { name: string; type: string; notnull: bigint | number; pk: bigint | number }
    >(
      'SELECT name, type, "notnull", pk FROM pragma_table_info(?, ?) ORDER BY cid',
      table,
      resolved,
    );
    return rows.map((r) => {
      const { type, lossy } = sqliteWireType(r.type);
      return {
        name: r.name,
        type,
        source_type: r.type,
        nullable: Number(r.notnull) === 0,
        ...declaredPrecision(r.type),
        warnings: lossy ? [lossyWarning(r.type || "an undeclared type")] : [],
      };
    });
  }

  currentSchema(): Promise<string | null> {
    return Promise.resolve("main");
  }

  close(deadline?: Date): Promise<void> {
    return this.#pool.close(deadline);
  }
}
