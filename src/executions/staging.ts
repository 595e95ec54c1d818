/**
 * The staging engine: one private in-memory database per execution (docs/decisions.md#a-private-staging-database-per-run), DuckDB by
 * default, SQLite when a pipeline's `settings.staging_engine` says so (`staging_sqlite.ts`). The
 * health probe asks a DuckDB database kept for it.
 */
import {
  BLOB,
  blobValue,
  BOOLEAN,
  DECIMAL,
  DOUBLE,
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBDataChunk,
  DuckDBDecimalValue,
  DuckDBInstance,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
  HUGEINT,
  INTEGER,
  VARCHAR,
} from "@duckdb/node-api";
import {
  type ChunkStream,
  type ColumnSchema,
  type Connector,
  DEFAULT_ENGINE_LIMITS,
  type Dialect,
  duckdbOver,
  openConnector,
  type Pool,
  quoteIdent,
  resolvePoolSettings,
  type WireType,
  type WireValue,
} from "../datasources/mod.ts";
import { STAGING_DATABASE, type StagingPool } from "./staging_pool.ts";

/** The probe's own in-memory DuckDB, made on the first probe and again after a failed one. */
let prober: Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> | undefined;

/**
 * Runs a query on the probe's DuckDB; throws when DuckDB cannot run. The instance is kept: a new
 * one per probe (one a second behind a polling balancer) cost up to seconds of a busy machine's
 * CPU, and past the probe timeout that reported the engine DOWN, so a loaded replica stayed
 * unready (docs/operations.md#faults-and-the-soak).
 */
export async function probeStagingEngine(): Promise<void> {
  const current = prober ??= (async () => {
    const instance = await DuckDBInstance.create(":memory:", { threads: "1" });
    return { instance, connection: await instance.connect() };
  })();
  try {
    const { connection } = await current;
    const reader = await connection.runAndReadAll("SELECT 42 AS answer");
    if (reader.getRows()[0]?.[0] !== 42) throw new Error("DuckDB answered wrongly");
  } catch (e) {
    if (prober === current) prober = undefined;
    current.then(({ instance }) => instance.closeSync(), () => {});
    throw e;
  }
}

/**
 * A staged decimal's width and scale: the column's own where known (or readable from the source
 * type, e.g. `DECIMAL(21,1)`), else DECIMAL(38,10).
 */
export function decimalShape(column: ColumnSchema): { width: number; scale: number } {
  if (column.precision !== undefined && column.precision <= 38) {
    return { width: column.precision, scale: column.scale ?? 0 };
  }
  const m = /\((\d+)\s*,\s*(\d+)\)/.exec(column.source_type);
  if (m && Number(m[1]) <= 38 && Number(m[2]) <= Number(m[1])) {
    return { width: Number(m[1]), scale: Number(m[2]) };
  }
  return { width: 38, scale: 10 };
}

/** Exact decimal text as an integer scaled by 10^scale, rounded half away from zero. */
export function scaledDecimal(text: string, scale: number): bigint {
  let digits = text.trim();
  const negative = digits.startsWith("-");
  if (negative || digits.startsWith("+")) digits = digits.slice(1);
  if (!/^\d*(\.\d*)?$/.test(digits) || digits === "" || digits === ".") {
    throw new Error(`not a plain decimal: ${text.slice(0, 40)}`);
  }
  const [whole, fraction = ""] = digits.split(".");
  const padded = fraction + "0".repeat(scale);
  let value = BigInt((whole || "0") + padded.slice(0, scale));
  if (Number(padded[scale] ?? "0") >= 5) value += 1n;
  return negative ? -value : value;
}

/**
 * How each wire type is staged: its DuckDB column type, the type a DuckDB batch lands in first
 * (`landingType`), and its SQLite declared type (see `staging_sqlite.ts`). JSON stays text in
 * DuckDB: the json extension may be absent in an offline install.
 */
const STAGED: Record<WireType, { duckdb: string; landing?: DuckDBType; sqlite: string }> = {
  boolean: { duckdb: "BOOLEAN", landing: BOOLEAN, sqlite: "BOOLEAN" },
  integer: { duckdb: "INTEGER", landing: INTEGER, sqlite: "INT32" },
  bigint: { duckdb: "HUGEINT", landing: HUGEINT, sqlite: "INT64" },
  decimal: { duckdb: "DECIMAL", sqlite: "DECIMAL_TEXT" },
  double: { duckdb: "DOUBLE", landing: DOUBLE, sqlite: "DOUBLE" },
  string: { duckdb: "VARCHAR", sqlite: "TEXT" },
  date: { duckdb: "DATE", sqlite: "DATE_TEXT" },
  timestamp: { duckdb: "TIMESTAMP", sqlite: "TIMESTAMP_TEXT" },
  timestamptz: { duckdb: "TIMESTAMPTZ", sqlite: "TIMESTAMPTZ_TEXT" },
  time: { duckdb: "TIME", sqlite: "TIME_TEXT" },
  json: { duckdb: "VARCHAR", sqlite: "JSON_TEXT" },
  binary: { duckdb: "BLOB", landing: BLOB, sqlite: "BLOB" },
  uuid: { duckdb: "UUID", sqlite: "UUID_TEXT" },
};

/** The column type `column` is staged under; a decimal keeps its precision where it fits. */
export function stagedType(column: ColumnSchema, engine: "duckdb" | "sqlite"): string {
  const type = STAGED[column.type][engine];
  if (column.type !== "decimal") return type;
  const { width, scale } = decimalShape(column);
  return `${type}(${width},${scale})`;
}

const duckType = (column: ColumnSchema) => stagedType(column, "duckdb");

/**
 * The type a batch lands in: values a data chunk takes natively keep their type (decimals as
 * scaled integers: DuckDB's VARCHAR→DECIMAL cast costs ~15 µs a value); text forms of dates,
 * times and uuids land as VARCHAR and are cast once, set-based, when the table is complete.
 */
function landingType(column: ColumnSchema): DuckDBType {
  if (column.type !== "decimal") return STAGED[column.type].landing ?? VARCHAR;
  const { width, scale } = decimalShape(column);
  return DECIMAL(width, scale);
}

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;

function chunkValue(column: ColumnSchema): (value: WireValue) => DuckDBValue {
  switch (column.type) {
    case "binary":
      return (v) => v === null ? null : blobValue(v as Uint8Array);
    case "bigint":
      return (v) => v === null ? null : typeof v === "bigint" ? v : BigInt(v as number);
    case "decimal": {
      const { width, scale } = decimalShape(column);
      return (v) =>
        v === null ? null : new DuckDBDecimalValue(scaledDecimal(String(v), scale), width, scale);
    }
    case "boolean":
    case "integer":
    case "double":
      return (v) => v as DuckDBValue;
    default:
      return (v) => v === null ? null : String(v);
  }
}

/**
 * Engine types whose CAST to the staged type yields exactly the value the wire form would stage
 * (integers widen, FLOAT→DOUBLE is exact, decimals keep width and scale). Aliased types (JSON),
 * nested types, intervals, nanosecond and zoned times, enums and unbounded integers are not.
 */
const NATIVE_COPY = new Set<DuckDBTypeId>([
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
  DuckDBTypeId.VARCHAR,
  DuckDBTypeId.BLOB,
  DuckDBTypeId.UUID,
  DuckDBTypeId.DATE,
  DuckDBTypeId.TIME,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_TZ,
]);

const castsLikeWire = (type: DuckDBType) =>
  type.alias === undefined && NATIVE_COPY.has(type.typeId);

async function* rowsOf(source: ChunkStream): AsyncGenerator<WireValue[][]> {
  for await (const chunk of source) yield* source.toRows(chunk);
}

const quote = (name: string) => quoteIdent("DUCKDB", name);

/** The staging database of one execution, whichever engine holds it. */
export interface Staging {
  /** Staged SQL (`source: tempdb`) reads through this connector. */
  readonly connector: Connector;
  /** The dialect staged SQL is written in. */
  readonly dialect: Dialect;
  /**
   * Creates `table` from `schema` (replacing an earlier one of that name) and appends every
   * batch of `batches`; `onBatch` sees each appended batch. Returns the row count.
   */
  load(
    table: string,
    schema: ColumnSchema[],
    batches: AsyncIterable<WireValue[][]>,
    onBatch: (rows: number) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<number>;
  /**
   * Like `load`, from a DuckDB read's own chunks, where the engine can take them as they are
   * (DuckDB staging); absent elsewhere, and the read goes through `load`.
   */
  copy?(
    table: string,
    source: ChunkStream,
    onBatch: (rows: number) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<number>;
  close(): Promise<void>;
}

/**
 * DuckDB staging: a private in-memory DuckDB database, on a pooled instance or one of its own,
 * read through the DuckDB connector (so staged SQL streams, converts and cancels exactly like a
 * datasource read) and closed with the execution.
 * Tables are filled with DuckDB's Appender a data chunk at a time.
 */
export class DuckdbStaging implements Staging {
  readonly dialect: Dialect = "DUCKDB";
  readonly connector: Connector;
  readonly #pool: Pool<DuckDBConnection>;
  /** Gives the pooled instance back, if the run's first connection leased one. */
  readonly #release: () => Promise<void>;

  private constructor(connector: Connector, release: () => Promise<void> = async () => {}) {
    this.connector = connector;
    this.#pool = (connector as unknown as { pool: Pool<DuckDBConnection> }).pool;
    this.#release = release;
  }

  /** A new private instance of its own, closed with the run (a pool of size 0; tests). */
  static open(memoryMb = DEFAULT_ENGINE_LIMITS.duckdbMemoryMb): DuckdbStaging {
    return new DuckdbStaging(openConnector({
      name: "tempdb",
      dialect: "DUCKDB",
      jdbc_url: "jdbc:duckdb:",
      credential: { kind: "none" },
      pool: STAGING_CONNECTIONS,
    }, { limits: { maxCellBytes: Infinity, duckdbMemoryMb: memoryMb } }));
  }

  /**
   * A fresh staging database on an instance of `pool`, leased on the run's first statement and
   * given back when the run closes it (docs/executions.md#the-staging-pool); a pool of size 0
   * means an instance of its own, as `open`.
   */
  static lease(pool: StagingPool, memoryMb: number): DuckdbStaging {
    if (pool.size === 0) return DuckdbStaging.open(memoryMb);
    const lent = pool.duckdb.onFirstUse();
    const connector = duckdbOver("tempdb", {
      database: STAGING_DATABASE,
      instance: () => lent.host().then((h) => h.instance),
    }, STAGING_CONNECTIONS);
    return new DuckdbStaging(connector, lent.release);
  }

  load: Staging["load"] = (table, schema, batches, onBatch, signal) => {
    const types = schema.map(landingType);
    const convert = schema.map(chunkValue);
    return this.#fill(table, schema, types.map(String), signal, async (appender) => {
      let rows = 0;
      for await (const batch of batches) {
        signal?.throwIfAborted();
        // Column-wise whole chunks: one native call per chunk, not one per value.
        for (let from = 0; from < batch.length; from += CHUNK_ROWS) {
          const part = batch.length <= CHUNK_ROWS ? batch : batch.slice(from, from + CHUNK_ROWS);
          const chunk = DuckDBDataChunk.create(types, part.length);
          chunk.setColumns(types.map((_, c) => part.map((row) => convert[c](row[c]))));
          appender.appendDataChunk(chunk);
        }
        // The appender has taken the rows (it flushes on its own as its buffer fills, and on
        // close); a flush per batch would cost more than the append itself.
        rows += batch.length;
        await onBatch(batch.length);
      }
      return rows;
    });
  };

  /**
   * Like `load`, from a DuckDB read: its chunks are appended as they come and the appender casts
   * them to the staged types, so no value passes through JavaScript. A column whose cast would not give what its wire form gives (nested types, JSON,
   * intervals, nanosecond times, …) sends the whole read through `load` instead.
   */
  copy(
    table: string,
    source: ChunkStream,
    onBatch: (rows: number) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<number> {
    if (!source.types.every(castsLikeWire)) {
      return this.load(table, source.schema, rowsOf(source), onBatch, signal);
    }
    // The appender casts a chunk to the table's column types itself (BIGINT into HUGEINT, …).
    const staged = source.schema.map(duckType);
    return this.#fill(table, source.schema, staged, signal, async (appender) => {
      let rows = 0;
      for await (const chunk of source) {
        signal?.throwIfAborted();
        appender.appendDataChunk(chunk);
        rows += chunk.rowCount;
        await onBatch(chunk.rowCount);
      }
      return rows;
    });
  }

  /**
   * Creates the table, lets `append` fill it through an appender, and when the landing types
   * differ from the staged ones, casts the landed rows into the table in one statement (row
   * order kept) and drops the landing table.
   */
  async #fill(
    table: string,
    schema: ColumnSchema[],
    landing: string[],
    signal: AbortSignal | undefined,
    append: (appender: DuckDBAppender) => Promise<number>,
  ): Promise<number> {
    const lease = await this.#pool.acquire(signal);
    const conn = lease.conn;
    const staged = schema.map(duckType);
    const cast = staged.some((t, i) => t !== landing[i]);
    const target = cast ? `__landing_${table}` : table;
    try {
      const columns = schema.map((c, i) => `${quote(c.name)} ${landing[i]}`);
      await conn.run(`CREATE OR REPLACE TABLE ${quote(target)} (${columns.join(", ")})`);
      const appender = await conn.createAppender(target);
      let rows: number;
      try {
        rows = await append(appender);
      } finally {
        appender.closeSync();
      }
      if (cast) {
        const select = schema.map((c, i) =>
          `CAST(${quote(c.name)} AS ${staged[i]}) AS ${quote(c.name)}`
        );
        await conn.run(
          `CREATE OR REPLACE TABLE ${quote(table)} AS SELECT ${select.join(", ")} FROM ${
            quote(target)
          }`,
        );
        await conn.run(`DROP TABLE ${quote(target)}`);
      }
      return rows;
    } finally {
      lease.release();
    }
  }

  async close(): Promise<void> {
    await this.connector.close();
    // Only once none of the run's connections is left may the instance be reset and lent again.
    await this.#release();
  }
}

// One connection per parallel node (the embedded default of 1 would serialise them and time out
// a waiting load); none kept idle, the database lives only as long as the run.
const STAGING_CONNECTIONS = resolvePoolSettings("DUCKDB", { maximumPoolSize: 16, minimumIdle: 0 })
  .settings;
