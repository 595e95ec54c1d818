/**
 * The staging engine: DuckDB, one private in-memory database per execution (DECISIONS.md). The
 * probe opens a database exactly as an execution does.
 */
import { type DuckDBAppender, type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import {
  type ColumnSchema,
  type Connector,
  openConnector,
  type Pool,
  type WireType,
  type WireValue,
} from "../datasources/connectors/mod.ts";
import { resolvePoolSettings } from "../datasources/connectors/pool_settings.ts";

/** Opens a private in-memory DuckDB, runs a query, closes it; throws when DuckDB cannot run. */
export async function probeStagingEngine(): Promise<void> {
  const instance = await DuckDBInstance.create(":memory:");
  try {
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll("SELECT 42 AS answer");
      if (reader.getRows()[0]?.[0] !== 42) throw new Error("DuckDB answered wrongly");
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/** DuckDB column types for staged wire types; decimals keep their precision where it fits. */
function duckType(column: ColumnSchema): string {
  switch (column.type) {
    case "boolean":
      return "BOOLEAN";
    case "integer":
      return "INTEGER";
    case "bigint":
      return "HUGEINT";
    case "decimal":
      return column.precision !== undefined && column.precision <= 38
        ? `DECIMAL(${column.precision},${column.scale ?? 0})`
        : "DECIMAL(38,10)";
    case "double":
      return "DOUBLE";
    case "date":
      return "DATE";
    case "timestamp":
      return "TIMESTAMP";
    case "timestamptz":
      return "TIMESTAMPTZ";
    case "time":
      return "TIME";
    case "binary":
      return "BLOB";
    case "uuid":
      return "UUID";
    // JSON stays text: the json extension may be absent in an offline install.
    default:
      return "VARCHAR";
  }
}

type Append = (appender: DuckDBAppender, value: Exclude<WireValue, null>) => void;

/**
 * One appender call per wire type. Exact text forms (decimal, dates, times, uuid) go in as
 * VARCHAR, which the appender casts to the column's type without going through a double.
 */
function appendFor(type: WireType): Append {
  switch (type) {
    case "boolean":
      return (a, v) => a.appendBoolean(v as boolean);
    case "integer":
      return (a, v) => a.appendInteger(v as number);
    case "bigint":
      return (a, v) => a.appendHugeInt(typeof v === "bigint" ? v : BigInt(v as number));
    case "double":
      return (a, v) => a.appendDouble(v as number);
    case "binary":
      return (a, v) => a.appendBlob(v as Uint8Array);
    default:
      return (a, v) => a.appendVarchar(String(v));
  }
}

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The staging database of one execution: a private in-memory DuckDB opened through the DuckDB
 * connector (so staged SQL streams, converts and cancels exactly like a datasource read) and
 * closed with the execution. Tables are filled with DuckDB's Appender, batch by batch.
 */
export class Staging {
  readonly connector: Connector;
  readonly #pool: Pool<DuckDBConnection>;

  private constructor(connector: Connector) {
    this.connector = connector;
    this.#pool = (connector as unknown as { pool: Pool<DuckDBConnection> }).pool;
  }

  static open(): Staging {
    return new Staging(openConnector({
      name: "tempdb",
      dialect: "DUCKDB",
      jdbc_url: "jdbc:duckdb:",
      credential: { kind: "none" },
      pool: resolvePoolSettings("DUCKDB", {}).settings,
    }));
  }

  /**
   * Creates `table` from `schema` (replacing an earlier one of that name) and appends every
   * batch of `batches`; `onBatch` sees each appended batch. Returns the row count.
   */
  async load(
    table: string,
    schema: ColumnSchema[],
    batches: AsyncIterable<WireValue[][]>,
    onBatch: (rows: number) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<number> {
    const lease = await this.#pool.acquire(signal);
    const conn = lease.conn;
    let rows = 0;
    try {
      const columns = schema.map((c) => `${quoteIdent(c.name)} ${duckType(c)}`).join(", ");
      await conn.run(`CREATE OR REPLACE TABLE ${quoteIdent(table)} (${columns})`);
      const appender = await conn.createAppender(table);
      const appenders = schema.map((c) => appendFor(c.type));
      try {
        for await (const batch of batches) {
          signal?.throwIfAborted();
          for (const row of batch) {
            for (let i = 0; i < appenders.length; i++) {
              const value = row[i];
              if (value === null) appender.appendNull();
              else appenders[i](appender, value);
            }
            appender.endRow();
          }
          // Flushed per batch so `rows_written` counts rows the table has really accepted.
          appender.flushSync();
          rows += batch.length;
          await onBatch(batch.length);
        }
      } finally {
        appender.closeSync();
      }
      return rows;
    } finally {
      lease.release();
    }
  }

  close(): Promise<void> {
    return this.connector.close();
  }
}
