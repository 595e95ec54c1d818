/**
 * Listing a server's schemas and tables, as data per dialect. Each dialect gives the SQL that names
 * every schema (`schema_name`) and every table and view (`schema_name`, `name`, `kind` 'table' or
 * 'view', `remarks`), and the condition that marks the engine's own schemas; `listSchemas` and
 * `listTables` add the same filters, order and cap for every dialect. SQLite (attached files, no
 * catalogue of catalogues) and LAKE (the registry) list in their own connectors.
 */
import { AppError } from "../../errors/mod.ts";
import { editDistance } from "../../lib/edit_distance.ts";
import type { Connector, Listing, TableInfo } from "./types.ts";

interface CatalogueSql {
  schemas: string;
  tables: string;
  /** The engine's own schemas: listed only when asked for by name (`include`). */
  system: string;
  /** The schema named `:schema`, compared exactly as spelled. */
  named: string;
}

export const CATALOGUES: Record<"POSTGRES" | "MYSQL" | "DUCKDB", CatalogueSql> = {
  POSTGRES: {
    schemas: "SELECT nspname AS schema_name FROM pg_namespace",
    // Tables, partitioned and foreign tables; views and materialized views.
    tables: `SELECT n.nspname AS schema_name, c.relname AS name,
                    CASE WHEN c.relkind IN ('v', 'm') THEN 'view' ELSE 'table' END AS kind,
                    obj_description(c.oid, 'pg_class') AS remarks
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE c.relkind IN ('r', 'p', 'f', 'v', 'm')`,
    // `pg_*` (catalog, toast, temp) and the information schema.
    system: "schema_name LIKE 'pg\\_%' OR schema_name = 'information_schema'",
    // As text: a bound `name` would be cut at 63 bytes and could match a shorter schema.
    named: "schema_name = CAST(:schema AS text)",
  },
  MYSQL: {
    schemas: "SELECT SCHEMA_NAME AS schema_name FROM information_schema.SCHEMATA",
    // A view's TABLE_COMMENT is the word VIEW, no remark.
    tables: `SELECT TABLE_SCHEMA AS schema_name, TABLE_NAME AS name,
                    CASE WHEN TABLE_TYPE LIKE '%VIEW%' THEN 'view' ELSE 'table' END AS kind,
                    CASE WHEN TABLE_TYPE LIKE '%VIEW%' THEN NULL ELSE TABLE_COMMENT END AS remarks
               FROM information_schema.TABLES`,
    system: "schema_name IN ('mysql', 'sys', 'performance_schema', 'information_schema')",
    // Schema names are case-sensitive on disk; the catalogue's collation is not.
    named: "BINARY schema_name = :schema",
  },
  DUCKDB: {
    schemas: `SELECT DISTINCT schema_name FROM duckdb_schemas()
               WHERE database_name = current_database()`,
    tables: `SELECT schema_name, table_name AS name, 'table' AS kind, comment AS remarks
               FROM duckdb_tables() WHERE NOT internal AND database_name = current_database()
             UNION ALL
             SELECT schema_name, view_name, 'view', comment
               FROM duckdb_views() WHERE NOT internal AND database_name = current_database()`,
    system: "schema_name IN ('information_schema', 'pg_catalog')",
    named: "schema_name = :schema",
  },
};

/** A connector's own catalogue read: `:name` placeholders, rows as arrays. */
export type CatalogueRows = (sql: string, params: Record<string, unknown>) => Promise<unknown[][]>;

const visible = (system: string) => `(NOT (${system}) OR lower(schema_name) IN (:include))`;

/** Schemas without the engine's own, except those in `include`; at most `cap`. */
export async function listSchemas(
  dialect: keyof typeof CATALOGUES,
  rows: CatalogueRows,
  options: { include: string[]; cap: number },
): Promise<Listing<string>> {
  const { schemas, system } = CATALOGUES[dialect];
  const found = await rows(
    `SELECT schema_name FROM (${schemas}) s WHERE ${visible(system)}
      ORDER BY schema_name LIMIT ${limitFor(options.cap)}`,
    { include: options.include },
  );
  return capped(found.map(([name]) => String(name)), options.cap);
}

/** Tables and views of `schema`, or of every schema `listSchemas` shows; at most `cap`. */
export async function listTables(
  dialect: keyof typeof CATALOGUES,
  rows: CatalogueRows,
  options: { schema?: string; include: string[]; cap: number },
): Promise<Listing<TableInfo>> {
  const { tables, system, named } = CATALOGUES[dialect];
  const found = await rows(
    `SELECT schema_name, name, kind, remarks FROM (${tables}) t
      WHERE ${options.schema === undefined ? visible(system) : named}
      ORDER BY schema_name, name LIMIT ${limitFor(options.cap)}`,
    { schema: options.schema, include: options.include },
  );
  return capped(
    found.map(([schema, name, kind, remarks]) => ({
      schema: String(schema),
      name: String(name),
      type: kind === "view" ? "view" : "table",
      ...(remarks ? { remarks: String(remarks) } : {}),
    })),
    options.cap,
  );
}

/**
 * The LIMIT that tells whether a listing was cut: one more than the cap. Written into SQL text
 * where a driver cannot bind LIMIT, so it is forced to a small integer here.
 */
export function limitFor(cap: number): number {
  const n = Math.trunc(Number(cap));
  if (!Number.isFinite(n) || n < 0) throw new Error(`invalid listing cap ${cap}`);
  return Math.min(n, 1_000_000) + 1;
}

/** Cuts `rows` (fetched with a limit of `cap + 1`) to the cap and says whether it cut. */
export function capped<T>(rows: T[], cap: number): Listing<T> {
  return { items: rows.slice(0, cap), truncated: rows.length > cap };
}

/**
 * `datasource.table_not_found` unless `schema` lists `table` (exactly as spelled), with a `hint`
 * detail when a listed name is close.
 */
export async function requireTable(
  connector: Pick<Connector, "tables">,
  table: string,
  schema: string,
): Promise<void> {
  const names = (await connector.tables({ schema, include: [], cap: 100_000 })).items
    .map((t) => t.name);
  if (names.includes(table)) return;
  const hint = nearestName(table, names);
  throw new AppError("datasource.table_not_found", {
    table,
    schema,
    ...(hint !== undefined ? { hint } : {}),
  });
}

/** The closest name by edit distance when it is close enough to be a likely typo. */
export function nearestName(name: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3))
    ? best
    : undefined;
}
