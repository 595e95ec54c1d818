/**
 * SQLITE through Deno's built-in `node:sqlite`, each connection in its own worker
 * (`sqlite_thread.ts`): the driver is synchronous, and on the server's thread one long
 * statement would stall every request. Rows come back a batch at a time, when asked; an abort
 * ends the worker and the pool replaces the connection. The file must exist: opening a mistyped
 * path must not create an empty database.
 *
 * Author SQL is confined by SQLite's authorizer (`sqlite_policy.ts`): its own database only, and
 * nothing but reads on a read-only datasource, which is also opened read-only with `query_only`.
 */
import type { SQLInputValue } from "node:sqlite";
import type { Logger } from "../../lib/log.ts";
import { bindValue, connectorPool, lossyWarning, probe, quoteIdent } from "./common.ts";
import { DEFAULT_BATCH_ROWS, openRead } from "./row_stream.ts";
import { capped, type CatalogueRows, requireTable, withKeys } from "./catalogue.ts";
import type { DriverOptions, JdbcTarget } from "./jdbc_url.ts";
import { type NextBatch, type Opened, SqliteThread } from "./sqlite_thread.ts";
import { translatePlaceholders } from "./placeholders.ts";
import { runWrite } from "./transaction.ts";
import { Serial } from "./serial.ts";
import { Pool, type PoolDriver } from "./pool.ts";
import type { PoolSettings } from "./pool_settings.ts";
import { declaredPrecision, sqliteWireType } from "./sqlite_types.ts";
import { asValueTooLarge } from "./value_bounds.ts";

/** SQLite's compiled-in length ceiling (SQLITE_MAX_LENGTH). */
const SQLITE_MAX_LENGTH = 1_000_000_000;
import {
  type ColumnInfo,
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

/** Read-only by the datasource's flag or by the driver option `readonly=true`. */
function isReadOnly(options: DriverOptions, readonly?: boolean): boolean {
  return readonly === true || options.readonly === "true";
}

export function sqliteDriver(
  target: SqliteTarget,
  options: DriverOptions,
  readonly?: boolean,
): PoolDriver<SqliteThread> {
  return {
    connect(signal) {
      return new SqliteThread({
        path: target.path,
        readOnly: isReadOnly(options, readonly),
        busyTimeout: Number(options.busy_timeout ?? 5000),
      }).ready(signal);
    },
    validate: (thread) => Promise.resolve(thread.alive),
    close: (thread) => thread.close(),
  };
}

/**
 * A connector whose every lease is the one connection `thread` answers (the SQLite staging
 * engine, whose private in-memory database exists only on its connection). The worker answers
 * one request at a time, so leases interleave between batches, which SQLite allows on one
 * connection.
 */
export function sqliteOver(
  name: string,
  thread: () => Promise<SqliteThread>,
  settings: PoolSettings,
): Connector {
  return new SqliteConnector(
    name,
    { dialect: "SQLITE", path: ":memory:", options: {} },
    {},
    settings,
    undefined,
    {
      connect: thread,
      validate: (t) => Promise.resolve(t.alive),
      close: () => Promise.resolve(),
    },
  );
}

export class SqliteConnector implements Connector {
  readonly dialect = "SQLITE" as const;
  readonly #pool: Pool<SqliteThread>;
  readonly #driver: PoolDriver<SqliteThread>;
  readonly #readOnly: boolean;

  constructor(
    name: string,
    target: SqliteTarget,
    options: DriverOptions,
    settings: PoolSettings,
    logger?: Logger,
    driver?: PoolDriver<SqliteThread>,
    readonly?: boolean,
  ) {
    this.#readOnly = isReadOnly(options, readonly);
    this.#driver = driver ?? sqliteDriver(target, options, readonly);
    this.#pool = connectorPool(name, settings, this.#driver, logger);
  }

  get pool(): Pool<SqliteThread> {
    return this.#pool;
  }

  async query(statement: Statement, options: QueryOptions = {}): Promise<RowStream> {
    const { sql, values } = translatePlaceholders(statement.sql, statement.params, "sqlite");
    const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
    const signal = options.signal;
    // SQLite's own ceiling when no bound is asked for (SQLITE_MAX_LENGTH).
    const maxCellBytes = Math.min(options.maxCellBytes ?? SQLITE_MAX_LENGTH, SQLITE_MAX_LENGTH);
    const tooLarge = (error: unknown) => asValueTooLarge(error, maxCellBytes) ?? error;
    const lease = await this.#pool.acquire(signal);
    const thread = lease.conn;
    // The worker's cursor: 0 once the statement has no rows left to read.
    let cursor = 0;
    // One batch read ahead: the worker steps the next batch while this one is delivered. At
    // most one batch waits, so memory stays bounded by the consumer's pace.
    let ahead: Promise<NextBatch> | undefined;
    const ask = () => {
      ahead = cursor === 0 ? undefined : thread.request<NextBatch>(
        { op: "next", cursor, rows: batchRows },
        signal,
      );
      ahead?.catch(() => {});
    };
    return await openRead({
      open: async () => {
        signal?.throwIfAborted();
        const opened = await thread.request<Opened>({
          op: "query",
          sql,
          values: toInput(values),
          batchRows,
          readOnly: this.#readOnly || options.readOnly === true,
          maxCellBytes,
        }, signal).catch((error) => {
          throw tooLarge(error);
        });
        cursor = opened.cursor;
        ask();
        return { schema: opened.schema, first: opened.rows };
      },
      next: async () => {
        if (!ahead) return undefined;
        signal?.throwIfAborted();
        const { rows: batch, ended } = await ahead.catch((error) => {
          throw tooLarge(error);
        });
        if (ended) cursor = 0;
        ask();
        return batch.length > 0 ? batch : undefined;
      },
      finish: async () => {
        if (cursor !== 0 && thread.alive) {
          // Requests are answered in order: the read-ahead (if any) before the close.
          await thread.request({ op: "close", cursor }).catch(() => {});
          cursor = 0;
        }
        lease.release({ broken: !thread.alive });
      },
    }, options);
  }

  readonly #writes = new Serial();

  write(statements: Statement[], options: { signal?: AbortSignal } = {}): Promise<WriteOutcome> {
    return this.#writes.run(() => this.#write(statements, options));
  }

  async #write(statements: Statement[], options: { signal?: AbortSignal }) {
    const prepared = statements.map((s) => translatePlaceholders(s.sql, s.params, "sqlite"));
    const signal = options.signal;
    const lease = await this.#pool.acquire(signal);
    const thread = lease.conn;
    try {
      await thread.request({ op: "exec", sql: "BEGIN IMMEDIATE" }, signal);
    } catch (error) {
      // Nothing began: there is nothing to roll back.
      lease.release({ broken: !thread.alive });
      throw new WriteError({ rolled_back: false, rows_affected: [] }, error);
    }
    return await runWrite(prepared, {
      run: ({ sql, values }) =>
        thread.request<number>({ op: "run", sql, values: toInput(values) }, signal),
      commit: () => thread.request({ op: "exec", sql: "COMMIT" }),
      rollback: async () => {
        // A worker ended before COMMIT took its open transaction with it: SQLite rolls it back.
        if (!thread.alive) return true;
        try {
          if (thread.inTransaction) await thread.request({ op: "exec", sql: "ROLLBACK" });
          return !thread.inTransaction;
        } catch {
          return false;
        }
      },
      release: (clean) => lease.release({ broken: !clean || !thread.alive }),
    }, signal);
  }

  test(): Promise<TestOutcome> {
    return probe(async () => {
      const thread = await this.#driver.connect(new AbortController().signal);
      try {
        const [row] = await thread.request<{ v: string }[]>({
          op: "all",
          sql: "SELECT sqlite_version() AS v",
          values: [],
        });
        return row.v;
      } finally {
        await this.#driver.close(thread);
      }
    });
  }

  /** The connector's own catalogue reads (fixed SQL, bound names). */
  #all<T>(sql: string, ...values: SQLInputValue[]): Promise<T[]> {
    return this.#pool.use((thread) => thread.request<T[]>({ op: "all", sql, values }));
  }

  /** The same reads with `:name` placeholders, rows as arrays (the key catalogue's form). */
  #rows: CatalogueRows = async (text, params) => {
    const { sql, values } = translatePlaceholders(text, params, "sqlite");
    const rows = await this.#all<Record<string, unknown>>(sql, ...values as SQLInputValue[]);
    return rows.map((r) => Object.values(r));
  };

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
    await requireTable(this, table, resolved);
    const rows = await this.#all<
      { name: string; type: string; notnull: bigint | number; pk: bigint | number }
    >(
      'SELECT name, type, "notnull", pk FROM pragma_table_info(?, ?) ORDER BY cid',
      table,
      resolved,
    );
    return await withKeys(
      "SQLITE",
      this.#rows,
      { schema: resolved, table },
      rows.map((r) => {
        const { type, lossy } = sqliteWireType(r.type);
        return {
          name: r.name,
          type,
          source_type: r.type,
          nullable: Number(r.notnull) === 0,
          ...declaredPrecision(r.type),
          warnings: lossy ? [lossyWarning(r.type || "an undeclared type")] : [],
        };
      }),
    );
  }

  currentSchema(): Promise<string | null> {
    return Promise.resolve("main");
  }

  close(deadline?: Date): Promise<void> {
    return this.#pool.close(deadline);
  }
}
