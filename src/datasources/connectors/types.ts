/**
 * The connector contract: what the registry, introspection, release checks and the executor need
 * from a datasource, whatever its dialect. One module per dialect implements it
 * (`postgres.ts`, `mysql.ts`, `sqlite.ts`, `duckdb.ts`, `lake.ts`); nothing outside this folder
 * touches a driver.
 *
 * Values travel in one in-memory form per canonical wire type (see `WireValue`), so the executor
 * can append them to a DuckDB staging table without knowing the source, and the result writer
 * turns them into JSON (bigint and decimal as strings, binary as base64) in one place.
 */

import type { DuckDBDataChunk, DuckDBType } from "@duckdb/node-api";

/** The engine kinds a datasource may name (docs/datasources.md). */
export const DIALECTS = ["POSTGRES", "MYSQL", "SQLITE", "DUCKDB", "LAKE"] as const;
export type Dialect = (typeof DIALECTS)[number];

/** The canonical result types (docs/datasources.md#datasource-connectors). */
export const WIRE_TYPES = [
  "boolean",
  "integer",
  "bigint",
  "decimal",
  "double",
  "string",
  "date",
  "timestamp",
  "timestamptz",
  "time",
  "json",
  "binary",
  "uuid",
] as const;
export type WireType = (typeof WIRE_TYPES)[number];

/**
 * One value in memory, by wire type: `boolean` boolean; `integer` number (fits 32 bits);
 * `bigint` bigint; `decimal` string (exact digits); `double` number; `string`, `uuid` string;
 * `date` `YYYY-MM-DD`; `timestamp` `YYYY-MM-DDTHH:MM:SS[.ffffff]` (no zone); `timestamptz` the
 * same in UTC ending in `Z`; `time` `HH:MM:SS[.ffffff]`; `json` the JSON text; `binary`
 * Uint8Array. SQL NULL is `null`.
 */
export type WireValue = boolean | number | bigint | string | Uint8Array | null;

/** A result column: the canonical type plus what the source called it. */
export interface ColumnSchema {
  name: string;
  type: WireType;
  /** The source's own type name, e.g. `int8`, `varchar(20)`, `DECIMAL(18,2)`. */
  source_type: string;
  nullable?: boolean;
  precision?: number;
  scale?: number;
}

/**
 * A statement with named placeholders `:name` (the renderer's output). Connectors translate them
 * to their driver's positional form and bind `params[name]`; a value never becomes SQL text.
 * `::` casts, quoted strings, quoted identifiers and comments are not placeholders.
 */
export interface Statement {
  sql: string;
  params?: Record<string, unknown>;
}

export interface QueryOptions {
  /** Aborting interrupts the running statement on the server and ends the stream with an error. */
  signal?: AbortSignal;
  /** Rows per yielded batch (default 1000). */
  batchRows?: number;
  /** Stop after this many rows (release checks and previews); the stream reports `truncated`. */
  maxRows?: number;
  /**
   * Stop once the rows read hold more than this many bytes of values (probes), keeping at least
   * one row; the stream reports `truncated`, as at `maxRows`.
   */
  maxBytes?: number;
  /**
   * A single value over this many bytes fails the read with `ValueTooLarge`
   * (`service.executor.max-cell-bytes`): DuckDB's reads measure it before it becomes a JS value,
   * SQLite connections are opened with it as the engine's own length limit.
   */
  maxCellBytes?: number;
  /**
   * Run under the engine's own read-only rule (the probe path): a PostgreSQL or MySQL read-only
   * transaction rolled back afterwards, an SQLite authorizer that admits reads only, DuckDB's
   * statement type. A refusal fails the query with `datasource.probe.not_read_only`.
   */
  readOnly?: boolean;
  /**
   * The statement is `EXPLAIN_PREFIX[dialect]` followed by a read (the probe's plan): DuckDB and
   * lakes then admit the EXPLAIN statement type, after preparing the read alone under the
   * read-only rule. Only with `readOnly`.
   */
  explain?: boolean;
}

/**
 * A streaming read. Iterate it to receive row batches (each row in `schema` order); the
 * connection goes back to the pool when iteration ends, fails or is broken off.
 */
export interface RowStream extends AsyncIterable<WireValue[][]> {
  readonly schema: ColumnSchema[];
  /** True once iteration stopped at `maxRows` with rows left unread. */
  readonly truncated: boolean;
  /**
   * Ends a read whose iteration never started (its consumer refused first) and gives the
   * connection back; a no-op once iteration started, which releases on its own.
   */
  close?(): Promise<void>;
}

/**
 * A read as DuckDB's own column chunks (DuckDB-backed connectors only), for a copy into another
 * DuckDB database that appends them whole. `toRows` gives a chunk's rows in their wire form, as
 * `query()` would have, for a consumer that cannot take a column type natively. The connection
 * goes back to the pool when iteration ends, fails or is broken off.
 */
export interface ChunkStream extends AsyncIterable<DuckDBDataChunk> {
  readonly schema: ColumnSchema[];
  /** The engine's types of the columns, in `schema` order. */
  readonly types: DuckDBType[];
  /**
   * A chunk's rows in their wire form, in batches of at most `BATCH_BYTES` of values; a value
   * over the read's `maxCellBytes` throws `ValueTooLarge` before any of the chunk is converted.
   */
  toRows(chunk: DuckDBDataChunk): Iterable<WireValue[][]>;
}

/** What a transactional write proved (`committed` / `rolled_back` of its event). */
export interface WriteOutcome {
  /** true: COMMIT confirmed; false: ROLLBACK confirmed; undefined: neither observed. */
  committed?: boolean;
  rolled_back: boolean;
  /** Rows affected per statement, where the driver reports it. */
  rows_affected: (number | null)[];
}

/** `POST /datasources/{name}/test`; never throws. */
export interface TestOutcome {
  connected: boolean;
  latency_ms: number;
  server_version: string | null;
  error: string | null;
  /** A stable class for the failure, e.g. `timeout`, `auth`, `unreachable`, `config`. */
  error_class: string | null;
}

export interface TableInfo {
  schema: string;
  name: string;
  /** `table` or `view` (lake tables are views with the format in `remarks`). */
  type: "table" | "view";
  remarks?: string;
}

export interface ColumnInfo extends ColumnSchema, Partial<ColumnKeys> {
  warnings: string[];
  remarks?: string;
}

/**
 * What one column takes part in (docs/datasources.md#keys-and-indexes), from the dialect's key
 * catalogue (`catalogue.ts`); LAKE exposes none and leaves `references` and `indexes` out too.
 */
export interface ColumnKeys {
  /** Position in the primary key (1-based); absent when not part of it (omitted, not null). */
  primary_key?: number;
  references: { constraint?: string; schema: string; table: string; column: string }[];
  indexes: { name: string; unique: boolean; position: number }[];
}

export interface Listing<T> {
  items: T[];
  truncated: boolean;
}

/**
 * The bounds every engine running author SQL is held to (issue 22): one value's size
 * (`service.executor.max-cell-bytes`) and a DuckDB instance's memory
 * (`service.executor.duckdb-memory-limit-mb`).
 */
export interface EngineLimits {
  maxCellBytes: number;
  duckdbMemoryMb: number;
}

/** The defaults of the two settings, for code paths built without a configuration (tests). */
export const DEFAULT_ENGINE_LIMITS: EngineLimits = {
  maxCellBytes: 8 * 1024 * 1024,
  duckdbMemoryMb: 1024,
};

/** One datasource's live connections (a pool), per dialect. */
export interface Connector {
  readonly dialect: Dialect;
  /** Streams the rows of one read statement. */
  query(statement: Statement, options?: QueryOptions): Promise<RowStream>;
  /** The same read as `query()` as column chunks, where the engine is DuckDB. */
  chunks?(
    statement: Statement,
    options?: Pick<QueryOptions, "signal" | "readOnly" | "maxCellBytes">,
  ): Promise<ChunkStream>;
  /** Runs the statements in one transaction: all commit or all roll back. */
  write(statements: Statement[], options?: { signal?: AbortSignal }): Promise<WriteOutcome>;
  test(): Promise<TestOutcome>;
  /** Schemas without the dialect's system schemas, except those in `include`; capped at `cap`. */
  schemas(options: { include: string[]; cap: number }): Promise<Listing<string>>;
  /** Tables of one schema, or of every visible schema when `schema` is absent. */
  tables(options: { schema?: string; include: string[]; cap: number }): Promise<Listing<TableInfo>>;
  /** Columns of one table; `schema` absent means the connection's current schema. */
  columns(table: string, schema?: string): Promise<ColumnInfo[]>;
  /** The connection's current schema, or null when the dialect has none. */
  currentSchema(): Promise<string | null>;
  /** Ends the pool: waits for leased connections up to the deadline, then closes them anyway. */
  close(deadline?: Date): Promise<void>;
}

/**
 * A failed `write()`: the statement's error plus what the transaction proved. Added with the
 * connectors because a failure still has evidence to report (`rolled_back`, or neither when the
 * connection died mid-way) and the executor needs both the cause and the evidence.
 */
export class WriteError extends Error {
  constructor(readonly outcome: WriteOutcome, override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = "WriteError";
  }
}
