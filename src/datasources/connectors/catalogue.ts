/**
 * Listing a server's schemas and tables, as data per dialect. Each dialect gives the SQL that names
 * every schema (`schema_name`) and every table and view (`schema_name`, `name`, `kind` 'table' or
 * 'view', `remarks`), and the condition that marks the engine's own schemas; `listSchemas` and
 * `listTables` add the same filters, order and cap for every dialect. SQLite (attached files, no
 * catalogue of catalogues) and LAKE (the registry) list in their own connectors.
 */
import { AppError } from "../../errors/mod.ts";
import { editDistance } from "../../lib/edit_distance.ts";
import type { ColumnKeys, Connector, Dialect, Listing, TableInfo } from "./types.ts";

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

/**
 * A table's keys and indexes, as data per dialect (docs/datasources.md#keys-and-indexes). Each
 * query takes `:schema` and `:table` (exact names) and answers one row per key column:
 * - `primary`: column name, position in the key (1-based);
 * - `foreign`: constraint name (null where the engine names none), column name, referenced
 *   schema, table and column;
 * - `indexes`: index name, column name, position (1-based), unique (1/true or 0/false). The
 *   indexes that back a primary key or a unique constraint are listed too; expression parts of an
 *   index name no column and are left out.
 * LAKE exposes none: its columns carry no key fields at all.
 */
interface KeySql {
  primary: string;
  foreign: string;
  indexes: string;
}

export const KEY_CATALOGUES: Record<"POSTGRES" | "MYSQL" | "SQLITE" | "DUCKDB", KeySql> = {
  // pg_catalog, not information_schema: its key views show only tables the role owns.
  POSTGRES: {
    primary: `SELECT a.attname, k.ord
                FROM pg_constraint con
                JOIN pg_class c ON c.oid = con.conrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
               WHERE con.contype = 'p' AND n.nspname = CAST(:schema AS text)
                 AND c.relname = CAST(:table AS text)`,
    foreign: `SELECT con.conname, a.attname, rn.nspname, rc.relname, ra.attname
                FROM pg_constraint con
                JOIN pg_class c ON c.oid = con.conrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_class rc ON rc.oid = con.confrelid
                JOIN pg_namespace rn ON rn.oid = rc.relnamespace
                CROSS JOIN LATERAL unnest(con.conkey, con.confkey) WITH ORDINALITY
                     AS k(attnum, refnum, ord)
                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
                JOIN pg_attribute ra ON ra.attrelid = rc.oid AND ra.attnum = k.refnum
               WHERE con.contype = 'f' AND n.nspname = CAST(:schema AS text)
                 AND c.relname = CAST(:table AS text)
               ORDER BY con.conname, k.ord`,
    // Key columns only (`indnkeyatts`): INCLUDE columns are carried, not searched.
    indexes: `SELECT ic.relname, a.attname, k.ord, i.indisunique
                FROM pg_index i
                JOIN pg_class c ON c.oid = i.indrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_class ic ON ic.oid = i.indexrelid
                CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
               WHERE n.nspname = CAST(:schema AS text) AND c.relname = CAST(:table AS text)
                 AND k.ord <= i.indnkeyatts
               ORDER BY ic.relname, k.ord`,
  },
  MYSQL: {
    primary: `SELECT COLUMN_NAME, ORDINAL_POSITION FROM information_schema.KEY_COLUMN_USAGE
               WHERE BINARY TABLE_SCHEMA = :schema AND BINARY TABLE_NAME = :table
                 AND CONSTRAINT_NAME = 'PRIMARY'`,
    foreign: `SELECT CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME,
                     REFERENCED_COLUMN_NAME
                FROM information_schema.KEY_COLUMN_USAGE
               WHERE BINARY TABLE_SCHEMA = :schema AND BINARY TABLE_NAME = :table
                 AND REFERENCED_TABLE_NAME IS NOT NULL
               ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION`,
    indexes: `SELECT INDEX_NAME, COLUMN_NAME, SEQ_IN_INDEX, NON_UNIQUE = 0
                FROM information_schema.STATISTICS
               WHERE BINARY TABLE_SCHEMA = :schema AND BINARY TABLE_NAME = :table
                 AND COLUMN_NAME IS NOT NULL
               ORDER BY INDEX_NAME, SEQ_IN_INDEX`,
  },
  // The table-valued pragmas take the schema as their last argument. A foreign key naming no
  // parent column refers to the parent's primary key, read from the parent's table_info.
  SQLITE: {
    primary: `SELECT name, pk FROM pragma_table_info(:table, :schema) WHERE pk > 0`,
    foreign: `SELECT NULL AS constraint_name, f."from", :schema AS ref_schema, f."table",
                     COALESCE(f."to", (SELECT p.name FROM pragma_table_info(f."table", :schema) p
                                        WHERE p.pk = f.seq + 1))
                FROM pragma_foreign_key_list(:table, :schema) f
               ORDER BY f.id, f.seq`,
    indexes: `SELECT l.name AS index_name, i.name AS column_name, i.seqno + 1, l."unique"
                FROM pragma_index_list(:table, :schema) l, pragma_index_info(l.name, :schema) i
               WHERE i.name IS NOT NULL
               ORDER BY l.name, i.seqno`,
  },
  // Foreign keys reach tables of the same schema. Primary and unique constraints are backed by
  // indexes duckdb_indexes() does not list, so they are listed from the constraints; a created
  // index names its columns only as an expression list, split here.
  DUCKDB: {
    primary:
      `SELECT unnest(constraint_column_names), generate_subscripts(constraint_column_names, 1)
                FROM duckdb_constraints()
               WHERE constraint_type = 'PRIMARY KEY' AND database_name = current_database()
                 AND schema_name = :schema AND table_name = :table`,
    foreign: `SELECT constraint_name, unnest(constraint_column_names), schema_name,
                     referenced_table, unnest(referenced_column_names)
                FROM duckdb_constraints()
               WHERE constraint_type = 'FOREIGN KEY' AND database_name = current_database()
                 AND schema_name = :schema AND table_name = :table
               ORDER BY constraint_name`,
    indexes: `SELECT index_name, trim(unnest(string_split(trim(expressions, '[]'), ',')), ' "'),
                     generate_subscripts(string_split(trim(expressions, '[]'), ','), 1), is_unique
                FROM duckdb_indexes()
               WHERE database_name = current_database() AND schema_name = :schema
                 AND table_name = :table
              UNION ALL
              SELECT constraint_name, unnest(constraint_column_names),
                     generate_subscripts(constraint_column_names, 1), true
                FROM duckdb_constraints()
               WHERE constraint_type IN ('PRIMARY KEY', 'UNIQUE')
                 AND database_name = current_database() AND schema_name = :schema
                 AND table_name = :table
               ORDER BY 1, 3`,
  },
};

/** Every column's keys and indexes: the three queries of `KEY_CATALOGUES[dialect]`. */
async function columnKeys(
  dialect: keyof typeof KEY_CATALOGUES,
  rows: CatalogueRows,
  schema: string,
  table: string,
): Promise<Map<string, ColumnKeys>> {
  const sql = KEY_CATALOGUES[dialect];
  const params = { schema, table };
  const [primary, foreign, indexes] = [
    await rows(sql.primary, params),
    await rows(sql.foreign, params),
    await rows(sql.indexes, params),
  ];
  const keys = new Map<string, ColumnKeys>();
  const of = (column: unknown) => {
    const name = String(column);
    let entry = keys.get(name);
    if (!entry) keys.set(name, entry = { references: [], indexes: [] });
    return entry;
  };
  for (const [column, position] of primary) of(column).primary_key = Number(position);
  for (const [constraint, column, refSchema, refTable, refColumn] of foreign) {
    of(column).references.push({
      ...(constraint === null ? {} : { constraint: String(constraint) }),
      schema: String(refSchema),
      table: String(refTable),
      column: String(refColumn),
    });
  }
  for (const [name, column, position, unique] of indexes) {
    of(column).indexes.push({
      name: String(name),
      unique: unique === true || Number(unique) === 1,
      position: Number(position),
    });
  }
  return keys;
}

/**
 * `columns` of `at.table` with each one's keys and indexes, as the dialect's catalogue gives them;
 * a column in none gets empty lists.
 */
export async function withKeys<C extends { name: string }>(
  dialect: keyof typeof KEY_CATALOGUES,
  rows: CatalogueRows,
  at: { schema: string; table: string },
  columns: C[],
): Promise<(C & ColumnKeys)[]> {
  const keys = await columnKeys(dialect, rows, at.schema, at.table);
  return columns.map((c) => ({
    ...c,
    ...(keys.get(c.name) ?? { references: [], indexes: [] }),
  }));
}

/**
 * What turns a read into a question about its plan, per dialect (docs/datasources.md#plans): the
 * engine plans the statement and never runs it. No ANALYZE anywhere: that form runs the statement.
 */
export const EXPLAIN_PREFIX: Record<Dialect, string> = {
  POSTGRES: "EXPLAIN (FORMAT TEXT) ",
  MYSQL: "EXPLAIN ",
  SQLITE: "EXPLAIN QUERY PLAN ",
  DUCKDB: "EXPLAIN ",
  LAKE: "EXPLAIN ",
};
