/**
 * DUCKDB through `@duckdb/node-api`: one database instance per connector (the process-wide
 * instance cache for writable files, so a retired and a fresh pool share the file's single writer
 * lock), pooled connections on it, results streamed chunk by chunk, and `interrupt()` to stop a
 * running statement inside the engine. Every instance is sandboxed (`duckdb_sandbox.ts`): it
 * reaches its own file and nothing else, and a read-only datasource's file is opened read-only.
 */
import {
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBValue,
  StatementType,
} from "@duckdb/node-api";
import { AppError } from "../../errors/mod.ts";
import type { Logger } from "../../lib/log.ts";
import { connectorPool, lossyWarning, probe, quoteIdent } from "./common.ts";
import {
  type CatalogueRows,
  EXPLAIN_PREFIX,
  listSchemas,
  listTables,
  requireTable,
  withKeys,
} from "./catalogue.ts";
import { DuckReads, keepInterrupting, openDuckRead } from "./duckdb_read.ts";
import {
  asRefusal,
  privateTempDirectory,
  READ_STATEMENTS,
  refuseUnlockedFunctions,
  removeTempDirectory,
  runAuthorStatements,
  sandboxConfig,
  WRITE_STATEMENTS,
} from "./duckdb_sandbox.ts";
import { duckdbWireType, sourceName, toDuck } from "./duckdb_types.ts";
import type { DriverOptions, JdbcTarget } from "./jdbc_url.ts";
import { translatePlaceholders } from "./placeholders.ts";
import { runWrite } from "./transaction.ts";
import { Serial } from "./serial.ts";
import { Pool, type PoolDriver } from "./pool.ts";
import type { PoolSettings } from "./pool_settings.ts";
import {
  type ColumnInfo,
  type Connector,
  DEFAULT_ENGINE_LIMITS,
  type QueryOptions,
  type Statement,
  type TestOutcome,
  type WriteOutcome,
} from "./types.ts";

type DuckTarget = Extract<JdbcTarget, { dialect: "DUCKDB" }>;

/**
 * An instance this connector borrows instead of opening one (a pooled staging instance): every
 * connection is made on it and switched to `database`; closing the connector closes only its
 * connections.
 */
export interface DuckdbHost {
  instance(): Promise<DuckDBInstance>;
  database: string;
}

/**
 * DuckDB's own verdict on a statement: exactly one, of statement type SELECT (which is also what
 * `FROM t`, `SUMMARIZE` and read-only PRAGMAs compile to). ATTACH, INSTALL/LOAD, COPY, SET,
 * CALL, EXPLAIN and every write have a type of their own.
 */
async function prepareRead(
  conn: DuckDBConnection,
  sql: string,
  values: DuckDBValue[],
  explain = false,
) {
  refuseUnlockedFunctions(sql);
  // A plan is asked of a read only: the read alone must pass first.
  if (explain) {
    (await prepareRead(conn, sql.slice(EXPLAIN_PREFIX.DUCKDB.length), [])).destroySync();
  }
  const extracted = await conn.extractStatements(sql);
  if (extracted.count !== 1) {
    throw new AppError("datasource.probe.not_read_only", { reason: "multiple_statements" });
  }
  const prepared = await extracted.prepare(0);
  const expected = explain ? StatementType.EXPLAIN : StatementType.SELECT;
  if (prepared.statementType !== expected) {
    throw new AppError("datasource.probe.not_read_only", {
      reason: "engine_refused",
      statement_type: StatementType[prepared.statementType],
    });
  }
  if (values.length > 0) prepared.bind(values);
  return prepared;
}

export class DuckdbConnector extends DuckReads implements Connector {
  readonly dialect = "DUCKDB" as const;
  readonly #pool: Pool<DuckDBConnection>;
  readonly #driver: PoolDriver<DuckDBConnection>;
  #instance: Promise<DuckDBInstance> | undefined;
  readonly #target: DuckTarget;
  readonly #options: DriverOptions;
  readonly #readOnly: boolean;
  readonly #memoryMb: number;
  /** Whether this connector alone holds its instance (and closes it, with its spill directory). */
  readonly #owned: boolean;
  #tempDirectory: string | undefined;
  readonly #host: DuckdbHost | undefined;
  /**
   * Native connects in flight. The pool stops waiting on one whose lease was aborted, but the
   * connect still runs on a DuckDB thread: closing the instance under it crashes the process.
   */
  readonly #connects = new Set<Promise<DuckDBConnection>>();

  constructor(
    name: string,
    target: DuckTarget,
    options: DriverOptions,
    settings: PoolSettings,
    logger?: Logger,
    readOnly = false,
    memoryMb = DEFAULT_ENGINE_LIMITS.duckdbMemoryMb,
    host?: DuckdbHost,
  ) {
    super();
    this.#host = host;
    this.#memoryMb = memoryMb;
    this.#target = target;
    this.#options = options;
    this.#readOnly = readOnly || options.access_mode === "READ_ONLY";
    // A read-only open takes no writer lock, so it needs no sharing through the instance cache;
    // its own instance also never collides there with a writable one of another configuration.
    this.#owned = host === undefined && (target.path === null || this.#readOnly);
    this.#driver = {
      connect: () => {
        const connecting = this.#open().then(async (instance) => {
          const conn = await instance.connect();
          if (host) await conn.run(`USE ${quoteIdent("DUCKDB", host.database)}`);
          return conn;
        });
        this.#connects.add(connecting);
        connecting.catch(() => {}).finally(() => this.#connects.delete(connecting));
        return connecting;
      },
      validate: (conn) => conn.run("SELECT 1").then(() => true, () => false),
      close: (conn) => {
        conn.interrupt();
        conn.closeSync();
        return Promise.resolve();
      },
    };
    this.#pool = connectorPool(name, settings, this.#driver, logger);
  }

  get pool(): Pool<DuckDBConnection> {
    return this.#pool;
  }

  #open(): Promise<DuckDBInstance> {
    if (this.#host) return this.#instance ??= this.#host.instance();
    this.#instance ??= (async () => {
      const path = this.#target.path;
      // A mistyped path must not create an empty database.
      if (path !== null) await Deno.stat(path);
      // A cached instance's configuration must be the same for every pool of the file: its spill
      // directory is named after the file.
      const key = this.#owned ? undefined : await fileKey(path!);
      this.#tempDirectory = await privateTempDirectory(key);
      const config = sandboxConfig({
        tempDirectory: this.#tempDirectory,
        // DuckDB cannot open an in-memory database read-only; one has nothing to protect, and
        // its reads are SELECTs only anyway.
        accessMode: this.#readOnly && path !== null ? "READ_ONLY" : this.#options.access_mode,
        threads: this.#options.threads,
        memoryMb: this.#memoryMb,
      });
      if (this.#owned) return await DuckDBInstance.create(path ?? ":memory:", config);
      return await DuckDBInstance.fromCache(path!, config);
    })();
    this.#instance.catch(() => (this.#instance = undefined));
    return this.#instance;
  }

  /** Runs a read on a leased connection, validated on its way back when it was interrupted. */
  protected async read(statement: Statement, options: QueryOptions, readOnly: boolean) {
    const { signal, maxCellBytes } = options;
    const { sql, values } = translatePlaceholders(statement.sql, statement.params, "duckdb");
    const lease = await this.#pool.acquire(signal);
    const conn = lease.conn;
    return await openDuckRead(
      conn,
      async () => {
        try {
          return readOnly
            ? await (await prepareRead(conn, sql, toDuck(values), options.explain)).stream()
            : await runAuthorStatements(
              conn,
              sql,
              toDuck(values),
              READ_STATEMENTS,
              (p) => p.stream(),
            );
        } catch (error) {
          throw asRefusal(error);
        }
      },
      {
        signal,
        maxCellBytes,
        schemaOf: (name, type) => ({
          name,
          type: duckdbWireType(type).type,
          source_type: sourceName(type),
        }),
        finish: async ({ error, interrupted }) => {
          const broken = (error !== undefined || interrupted) &&
            !(await this.#driver.validate(conn, this.#pool.settings.validationTimeout));
          lease.release({ broken });
        },
      },
    );
  }

  readonly #writes = new Serial();

  write(statements: Statement[], options: { signal?: AbortSignal } = {}): Promise<WriteOutcome> {
    return this.#writes.run(() => this.#write(statements, options));
  }

  async #write(statements: Statement[], options: { signal?: AbortSignal }) {
    const prepared = statements.map((s) => translatePlaceholders(s.sql, s.params, "duckdb"));
    const lease = await this.#pool.acquire(options.signal);
    const conn = lease.conn;
    let stopInterrupting: (() => void) | undefined;
    return await runWrite(prepared, {
      begin: () => conn.run("BEGIN TRANSACTION"),
      run: async ({ sql, values }) => {
        const result = await runAuthorStatements(
          conn,
          sql,
          toDuck(values),
          WRITE_STATEMENTS,
          (p) => p.run(),
        ).catch((error) => {
          throw asRefusal(error);
        });
        return result.rowsChanged;
      },
      commit: () => conn.run("COMMIT"),
      rollback: () => {
        stopInterrupting?.();
        return conn.run("ROLLBACK").then(() => true, () => false);
      },
      cancel: () => (stopInterrupting = keepInterrupting(conn)),
      release: (clean) => {
        stopInterrupting?.();
        lease.release({ broken: !clean });
      },
    }, options.signal);
  }

  test(): Promise<TestOutcome> {
    return probe(async () => {
      const conn = await this.#driver.connect(new AbortController().signal);
      try {
        const reader = await conn.runAndReadAll("SELECT version()");
        return String(reader.getRows()[0][0]);
      } finally {
        conn.closeSync();
      }
    });
  }

  /** The connector's own catalogue reads (fixed SQL, bound names). */
  #rows: CatalogueRows = (sql, params) => {
    const t = translatePlaceholders(sql, params, "duckdb");
    return this.#pool.use(async (conn) =>
      (await conn.runAndReadAll(t.sql, toDuck(t.values))).getRows()
    );
  };

  schemas: Connector["schemas"] = (options) => listSchemas("DUCKDB", this.#rows, options);
  tables: Connector["tables"] = (options) => listTables("DUCKDB", this.#rows, options);

  async columns(table: string, schema?: string): Promise<ColumnInfo[]> {
    const resolved = schema ?? (await this.currentSchema()) ?? "main";
    await requireTable(this, table, resolved);
    // DESCRIBE types the columns of tables and views alike.
    const described = await this.#pool.use(async (conn) => {
      const prepared = await conn.prepare(
        `SELECT * FROM ${quoteIdent("DUCKDB", resolved)}.${quoteIdent("DUCKDB", table)} LIMIT 0`,
      );
      const result = await prepared.run();
      return { names: result.columnNames(), types: result.columnTypes() };
    });
    const meta = new Map(
      (await this.#rows(
        `SELECT column_name, is_nullable, comment FROM duckdb_columns()
          WHERE database_name = current_database() AND schema_name = :schema AND table_name = :table`,
        { schema: resolved, table },
      )).map((
        [name, nullable, comment],
      ) => [String(name), { nullable: Boolean(nullable), comment }]),
    );
    return await withKeys(
      "DUCKDB",
      this.#rows,
      { schema: resolved, table },
      described.names.map((name, i) => {
        const type = described.types[i];
        const { type: wire, lossy } = duckdbWireType(type);
        const m = meta.get(name);
        const decimal = type as unknown as { width?: number; scale?: number };
        return {
          name,
          type: wire,
          source_type: sourceName(type),
          ...(m ? { nullable: m.nullable } : {}),
          ...(wire === "decimal" && decimal.width !== undefined
            ? { precision: decimal.width, scale: decimal.scale }
            : {}),
          warnings: lossy ? [lossyWarning(sourceName(type))] : [],
          ...(m?.comment ? { remarks: String(m.comment) } : {}),
        };
      }),
    );
  }

  async currentSchema(): Promise<string | null> {
    const [[name]] = await this.#rows("SELECT current_schema()", {});
    return name === null ? null : String(name);
  }

  async close(deadline?: Date): Promise<void> {
    await this.#pool.close(deadline);
    // The pool closes a late connection itself once it arrives; wait for that first (a borrowed
    // instance goes back to its lender only once no connection of this connector is left).
    await Promise.allSettled([...this.#connects]);
    // In-memory and read-only databases die with their connector; writable files stay cached
    // for the next pool.
    if (this.#owned) {
      const instance = await this.#instance?.catch(() => undefined);
      instance?.closeSync();
      if (this.#tempDirectory) await removeTempDirectory(this.#tempDirectory);
    }
  }
}

/** A file's spill-directory name: the same for every pool of that file, nothing of its path. */
async function fileKey(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(path));
  return Array.from(new Uint8Array(digest).slice(0, 12), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

/**
 * A connector over a borrowed instance (`host`), its connections switched to `host.database`:
 * the staging engine's, on a pooled instance (src/executions/staging_pool.ts).
 */
export function duckdbOver(name: string, host: DuckdbHost, settings: PoolSettings): Connector {
  const target: DuckTarget = { dialect: "DUCKDB", path: null, options: {} };
  return new DuckdbConnector(name, target, {}, settings, undefined, false, undefined, host);
}
