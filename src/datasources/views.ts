/**
 * A datasource and what is read through it, as answered: one zod schema per shape, for REST
 * responses and tool outputs alike. Secrets never appear here.
 */
import { z } from "zod";
import { CREDENTIAL_KINDS, DIALECTS } from "./connectors/mod.ts";
import { FACT_SCOPES, FACT_TRUST } from "./facts/types.ts";

/** A learned fact as served; optional fields are omitted when absent. */
export const factView = z.object({
  id: z.string(),
  scope: z.enum(FACT_SCOPES),
  kind: z.string(),
  fact: z.string(),
  trust: z.enum(FACT_TRUST),
  drift: z.string().optional(),
  evidence_summary: z.string().optional(),
  recorded_via: z.string(),
  recorded_at: z.string(),
  from_this_workspace: z.boolean(),
  source_pipeline: z.object({ id: z.string(), name: z.string() }).optional(),
  conflict: z.boolean(),
}).meta({ id: "Fact" });

/** A fact with what it is about, as the semantic layer lists it. */
export const semanticFactView = factView.extend({
  datasource: z.string(),
  schema: z.string().optional(),
  table: z.string().optional(),
  column: z.string().optional(),
});

const poolEntry = z.object({
  value: z.number(),
  unit: z.string(),
  source: z.enum(["configured", "dialect_default", "application_default", "hikari_default"]),
});

/** `GET /datasources/{name}` and list rows. */
export const datasourceView = z.object({
  name: z.string(),
  display_name: z.string(),
  dialect: z.enum(DIALECTS),
  jdbc_url: z.string(),
  credential: z.object({ kind: z.enum(CREDENTIAL_KINDS), username: z.string().optional() }),
  password_set: z.boolean().describe("false exactly for kind none"),
  username: z.string().nullable(),
  introspection_include_schemas: z.array(z.string()).optional().describe("omitted when empty"),
  properties: z.object({
    hikari: z.record(z.string(), z.number()).optional(),
    jdbc: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  }),
  global: z.boolean(),
  workspace: z.string().nullable().describe("the bound workspace; null for a global datasource"),
  readonly: z.boolean(),
  last_test: z.object({ tested_at: z.string(), ok: z.boolean(), message: z.string().nullable() })
    .nullable(),
  pool: z.record(z.string(), poolEntry).describe("what the pool runs with, per tunable key"),
  facts: z.array(factView).describe("the datasource-wide learned facts"),
  definitions: z.array(factView).describe("the workspace's rules naming this datasource"),
  created_at: z.string(),
  updated_at: z.string(),
}).meta({ id: "Datasource" });

/**
 * A datasource as an agent choosing one needs it (`datasources_list`): what it is, where it is
 * bound, whether it takes writes, how its last test went and what was learned about it; its URL,
 * credential, driver properties and pool are `datasources_get`'s
 * (docs/mcp.md#notes-on-particular-tools).
 */
export const datasourceSummaryView = datasourceView.pick({
  name: true,
  display_name: true,
  dialect: true,
  global: true,
  workspace: true,
  readonly: true,
  last_test: true,
  facts: true,
  definitions: true,
}).meta({ id: "DatasourceSummary" });

/** `POST /datasources/{name}/test`: always answered, stored as `last_test`. */
export const testReportView = z.object({
  connected: z.boolean(),
  tested_at: z.string(),
  latency_ms: z.number(),
  server_version: z.string().nullable(),
  error: z.string().nullable(),
  error_class: z.string().nullable(),
});

export const schemasView = z.object({ schemas: z.array(z.string()), truncated: z.boolean() });

export const tableView = z.object({
  schema: z.string(),
  name: z.string(),
  type: z.enum(["table", "view"]),
  remarks: z.string().optional(),
  facts: z.array(factView).optional().describe("learned facts about this table"),
});

export const tablesView = z.object({ tables: z.array(tableView), truncated: z.boolean() });

export const columnView = z.object({
  name: z.string(),
  type: z.string().describe("the canonical wire type"),
  nullable: z.boolean().optional(),
  precision: z.int().optional(),
  scale: z.int().optional(),
  source_type: z.string(),
  warnings: z.array(z.string()),
  remarks: z.string().optional(),
  facts: z.array(factView).optional().describe("learned facts about this column"),
  // docs/datasources.md#keys-and-indexes: all three omitted where the dialect exposes none (LAKE).
  primary_key: z.int().min(1).optional().describe(
    "position in the table's primary key (1-based); omitted when not part of it",
  ),
  references: z.array(z.object({
    constraint: z.string().optional().describe("omitted where the engine names none (SQLite)"),
    schema: z.string(),
    table: z.string(),
    column: z.string(),
  })).optional().describe("the columns this one refers to by a foreign key; [] when none"),
  indexes: z.array(z.object({
    name: z.string(),
    unique: z.boolean(),
    position: z.int().min(1).describe("this column's place in the index (1-based)"),
  })).optional().describe("the indexes naming this column, key-backing ones too; [] when none"),
});

/** `datasources_get_table_stats`: what the dialect tells cheaply; the rest is omitted. */
export const tableStatsView = z.object({
  schema: z.string(),
  table: z.string(),
  type: z.enum(["table", "view"]),
  columns: z.array(columnView.pick({ name: true, type: true, source_type: true, nullable: true })),
  row_count: z.number().optional(),
  row_count_exact: z.boolean().optional(),
  size_bytes: z.number().optional(),
  elapsed_ms: z.number(),
});

/** `POST /datasources/{name}/grants/{workspace}`. */
export const grantView = z.object({
  datasource: z.string(),
  workspace: z.string(),
  granted_at: z.string(),
  already_granted: z.boolean(),
});

/** A lake table, as an import reports it. */
export const lakeTableRefView = z.object({
  namespace: z.array(z.string()),
  name: z.string(),
  format: z.enum(["parquet", "iceberg"]),
  location: z.string(),
  partition_column: z.string().optional(),
});

/** A registry row: the table and when it was registered. */
export const lakeTableView = lakeTableRefView.extend({ created_at: z.string() });

/** `GET /datasources/{name}/lake-tables`. */
export const lakeTablesView = z.object({
  datasource: z.string(),
  tables: z.array(lakeTableView),
  count: z.int(),
});

/** `POST /datasources/{name}/tables/import`. */
export const lakeImportView = z.object({
  registered: z.array(lakeTableRefView),
  registered_count: z.int(),
  already_registered: z.array(lakeTableRefView),
  already_registered_count: z.int(),
});

export type ServedFact = z.output<typeof factView>;
export type SemanticFact = z.output<typeof semanticFactView>;
export type DatasourceView = z.output<typeof datasourceView>;
export type PoolEntry = DatasourceView["pool"][string];
export type LastTest = NonNullable<DatasourceView["last_test"]>;
export type TestReport = z.output<typeof testReportView>;
export type TableStats = z.output<typeof tableStatsView>;
export type GrantView = z.output<typeof grantView>;
export type LakeTableRef = z.output<typeof lakeTableRefView>;
export type LakeTableRow = z.output<typeof lakeTableView>;
export type LakeTableListing = z.output<typeof lakeTablesView>;
export type LakeImportResult = z.output<typeof lakeImportView>;
