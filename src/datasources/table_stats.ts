/**
 * `datasources_get_table_stats`
 * (docs/datasources.md#tool-only-reads-table-statistics-and-learned-facts): a table's columns, its
 * row count and its size where the dialect can tell cheaply, through the connector and the bounded
 * read-only probe path.
 *
 * Per dialect (decided here):
 * - POSTGRES: `pg_class.reltuples` (the planner's estimate) and `pg_total_relation_size` (heap,
 *   indexes and TOAST) from the catalog; a table never analysed has no estimate (-1) and falls
 *   back to an exact count.
 * - MYSQL: `information_schema.TABLES.TABLE_ROWS` (an estimate for InnoDB) and
 *   `DATA_LENGTH + INDEX_LENGTH`.
 * - DUCKDB: `duckdb_tables().estimated_size` (rows); no per-table byte size is cheap, so none.
 * - SQLITE and LAKE: no statistics without a scan, so an exact `count(*)` (a lake answers it from
 *   parquet footers and manifests); no size.
 * - A view has neither statistics nor a size: an exact `count(*)`.
 * Every statement runs within `timeoutMs`; a count that does not finish in time leaves
 * `row_count` out rather than failing the call. `row_count_exact` says which kind it is, and
 * what the dialect cannot tell is omitted, not null (as introspection does).
 */
import { AppError } from "../errors/mod.ts";
import { quoteIdent, schemaRequired } from "./connectors/common.ts";
import type { Connector, Dialect, Statement } from "./connectors/types.ts";
import { type ProbeLimits, runProbe } from "./probe.ts";
import type { TableStats } from "./views.ts";

/** The catalog statement answering `row_estimate` and `size_bytes`, or null for none. */
function catalogSql(dialect: Dialect): string | null {
  switch (dialect) {
    case "POSTGRES":
      return `SELECT CASE WHEN c.reltuples < 0 THEN NULL ELSE CAST(c.reltuples AS bigint) END
                       AS row_estimate,
                     pg_total_relation_size(c.oid) AS size_bytes
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE n.nspname = :schema AND c.relname = :table`;
    case "MYSQL":
      return `SELECT TABLE_ROWS AS row_estimate, DATA_LENGTH + INDEX_LENGTH AS size_bytes
                FROM information_schema.TABLES
               WHERE TABLE_SCHEMA = :schema AND TABLE_NAME = :table`;
    case "DUCKDB":
      return `SELECT estimated_size AS row_estimate, NULL AS size_bytes FROM duckdb_tables()
               WHERE database_name = current_database() AND schema_name = :schema
                 AND table_name = :table`;
    default:
      return null;
  }
}

const num = (v: unknown): number | undefined =>
  v === null || v === undefined || v === "" ? undefined : Number(v);

/**
 * Stats of one table on `conn`; the schema must be one the datasource lists (the connection's
 * current one when absent) and the table one it lists there, matched exactly.
 */
export async function tableStats(
  conn: Connector,
  target: { schema?: string; table: string },
  include: string[],
  limits: ProbeLimits,
): Promise<TableStats> {
  const started = performance.now();
  const schema = target.schema ?? await conn.currentSchema() ?? schemaRequired();
  const listed = await conn.tables({ schema, include, cap: 100_000 });
  const entry = listed.items.find((t) => t.name === target.table);
  // columns() answers datasource.table_not_found with a near name when one is close.
  const columns = await conn.columns(target.table, schema);
  if (!entry) throw new AppError("datasource.table_not_found", { table: target.table, schema });
  const left = () => Math.max(100, limits.timeoutMs - (performance.now() - started));
  const probe = (statement: Statement) =>
    runProbe(conn, statement, { maxRows: 1, timeoutMs: left() });

  let rowCount: number | undefined;
  let exact = false;
  let size: number | undefined;
  const sql = entry.type === "table" ? catalogSql(conn.dialect) : null;
  if (sql) {
    const { rows } = await probe({ sql, params: { schema, table: target.table } });
    rowCount = num(rows[0]?.[0]);
    size = num(rows[0]?.[1]);
  }
  if (rowCount === undefined) {
    const from = `${quoteIdent(conn.dialect, schema)}.${quoteIdent(conn.dialect, target.table)}`;
    try {
      const { rows } = await probe({ sql: `SELECT count(*) AS n FROM ${from}` });
      rowCount = num(rows[0]?.[0]);
      exact = rowCount !== undefined;
    } catch (error) {
      if (!(error instanceof AppError && error.code === "datasource.probe.timeout")) throw error;
    }
  }
  return {
    schema,
    table: target.table,
    type: entry.type,
    columns: columns.map(({ name, type, source_type, nullable }) => ({
      name,
      type,
      source_type,
      ...(nullable !== undefined ? { nullable } : {}),
    })),
    ...(rowCount !== undefined ? { row_count: rowCount, row_count_exact: exact } : {}),
    ...(size !== undefined ? { size_bytes: size } : {}),
    elapsed_ms: Math.round(performance.now() - started),
  };
}
