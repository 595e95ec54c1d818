/**
 * The SQLite staging engine (`settings.staging_engine: sqlite`, docs/decisions.md#a-private-staging-database-per-run): one private
 * in-memory SQLite database per execution, on one SQLite worker (`sqlite_thread.ts`) as the
 * SQLite connector uses it, closed with the execution. Staged SQL reads through that connector,
 * so it streams, converts, cancels and is confined like a datasource read; the staging tables are
 * created and filled by this engine's own statements, which the authorizer lets through.
 *
 * SQLite has no column types of its own, only affinities. Columns are declared with names that
 * give each wire type the affinity that keeps its values exact (text for decimals, dates, times,
 * JSON and uuids) and that the connector maps back to the same wire type; the three it cannot
 * tell apart by name (`integer` from `bigint`, `decimal`, `timestamptz`) are told apart here by
 * their declared names. A computed column (an aggregate, an expression) has no declared type
 * and takes SQLite's storage class, as on any SQLite datasource.
 */
import type { SQLInputValue } from "node:sqlite";
import {
  type ColumnSchema,
  type Connector,
  type Dialect,
  type QueryOptions,
  quoteIdent,
  resolvePoolSettings,
  type RowStream,
  sqliteOver,
  SqliteThread,
  type Statement,
  type WireValue,
} from "../datasources/mod.ts";
import { decimalShape, scaledDecimal, stagedType, type Staging } from "./staging.ts";
import type { SqliteHost } from "./staging_pool.ts";
import type { WarmPool } from "./warm_pool.ts";

const quote = (name: string) => quoteIdent("SQLITE", name);

/** Exact decimal text at the column's scale, as DuckDB staging would hold it. */
function decimalText(text: string, scale: number): string {
  const scaled = scaledDecimal(text, scale);
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const fraction = scale > 0 ? `.${digits.slice(digits.length - scale)}` : "";
  return `${negative ? "-" : ""}${whole}${fraction}`;
}

function bindable(column: ColumnSchema): (v: WireValue) => SQLInputValue {
  switch (column.type) {
    case "boolean":
      return (v) => v === null ? null : v ? 1 : 0;
    case "decimal": {
      const { scale } = decimalShape(column);
      return (v) => v === null ? null : decimalText(String(v), scale);
    }
    case "bigint":
      return (v) => v === null ? null : typeof v === "bigint" ? v : BigInt(v as number);
    default:
      return (v) => v as SQLInputValue;
  }
}

/** The wire type a staged column's declared name stands for, where the connector cannot tell. */
function stagedColumn(column: ColumnSchema): ColumnSchema {
  const t = column.source_type.toUpperCase();
  if (t === "INT32") return { ...column, type: "integer" };
  if (t === "TIMESTAMPTZ_TEXT") return { ...column, type: "timestamptz" };
  const decimal = /^DECIMAL_TEXT\((\d+),(\d+)\)$/.exec(t);
  if (decimal) {
    return {
      ...column,
      type: "decimal",
      precision: Number(decimal[1]),
      scale: Number(decimal[2]),
    };
  }
  return column;
}

/** The SQLite connector over the staging database, answering staged columns' wire types. */
class StagedReads implements Connector {
  readonly dialect = "SQLITE" as const;
  constructor(private readonly inner: Connector) {}

  async query(statement: Statement, options?: QueryOptions): Promise<RowStream> {
    const stream = await this.inner.query(statement, options);
    const schema = stream.schema.map(stagedColumn);
    const narrow = schema.map((c, i) =>
      c.type === "integer" && stream.schema[i].type !== "integer"
    );
    const anyNarrow = narrow.some(Boolean);
    return {
      schema,
      get truncated() {
        return stream.truncated;
      },
      async *[Symbol.asyncIterator]() {
        for await (const batch of stream) {
          yield anyNarrow
            ? batch.map((row) =>
              row.map((v, i) => narrow[i] && typeof v === "bigint" ? Number(v) : v)
            )
            : batch;
        }
      },
    };
  }

  write: Connector["write"] = (s, o) => this.inner.write(s, o);
  test: Connector["test"] = () => this.inner.test();
  schemas: Connector["schemas"] = (o) => this.inner.schemas(o);
  tables: Connector["tables"] = (o) => this.inner.tables(o);
  columns: Connector["columns"] = (t, s) => this.inner.columns(t, s);
  currentSchema: Connector["currentSchema"] = () => this.inner.currentSchema();
  close: Connector["close"] = (d) => this.inner.close(d);
}

/** SQLite's default limit on bound variables per statement is 32766. */
const MAX_VARIABLES = 32_000;

/** Every lease is the run's one connection, never idle-closed: the database lives on it. */
const ONE_CONNECTION = resolvePoolSettings("SQLITE", {
  maximumPoolSize: 16,
  minimumIdle: 0,
  idleTimeout: 0,
  maxLifetime: 0,
}).settings;

export class SqliteStaging implements Staging {
  readonly dialect: Dialect = "SQLITE";
  readonly connector: Connector;
  readonly #thread: () => Promise<SqliteThread>;
  readonly #done: () => Promise<void>;

  /**
   * A private in-memory database for one run: on a warm worker `pool` lends on the run's first
   * statement and takes back at close (docs/executions.md#the-staging-pool), or, without a pool
   * or with one of size 0, on a worker of its own, ended at close.
   */
  constructor(pool?: WarmPool<SqliteHost>) {
    if (pool && pool.size > 0) {
      const lent = pool.onFirstUse();
      this.#thread = () => lent.host().then((h) => h.thread);
      this.#done = lent.release;
    } else {
      const thread = new SqliteThread({ path: ":memory:" });
      this.#thread = () => thread.ready();
      this.#done = () => thread.close();
    }
    this.connector = new StagedReads(sqliteOver("tempdb", this.#thread, ONE_CONNECTION));
  }

  load: Staging["load"] = async (table, schema, batches, onBatch, signal) => {
    const thread = await this.#thread();
    signal?.throwIfAborted();
    const columns = schema.map((c) => `${quote(c.name)} ${stagedType(c, "sqlite")}`);
    await thread.request({ op: "exec", sql: `DROP TABLE IF EXISTS ${quote(table)}` }, signal);
    await thread.request(
      { op: "exec", sql: `CREATE TABLE ${quote(table)} (${columns.join(", ")})` },
      signal,
    );
    const bind = schema.map(bindable);
    const width = Math.max(1, schema.length);
    const perStatement = Math.max(1, Math.min(500, Math.floor(MAX_VARIABLES / width)));
    const tuple = `(${schema.map(() => "?").join(", ")})`;
    const insertOf = (rows: number) =>
      `INSERT INTO ${quote(table)} VALUES ${Array(rows).fill(tuple).join(", ")}`;
    const full = insertOf(perStatement);
    let rows = 0;
    for await (const batch of batches) {
      signal?.throwIfAborted();
      // One request, one transaction per batch: another node's lease of the same connection
      // can never land in the middle of it.
      const statements = [];
      for (let from = 0; from < batch.length; from += perStatement) {
        const part = batch.slice(from, from + perStatement);
        statements.push({
          sql: part.length === perStatement ? full : insertOf(part.length),
          values: part.flatMap((row) => row.map((v, c) => bind[c](v))),
        });
      }
      await thread.request({ op: "batch", statements }, signal);
      rows += batch.length;
      await onBatch(batch.length);
    }
    return rows;
  };

  async close(): Promise<void> {
    await this.connector.close();
    // Only once the run's connection is closed may its worker be reset and lent again.
    await this.#done();
  }
}
