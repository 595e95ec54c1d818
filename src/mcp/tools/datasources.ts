/**
 * datasources_* and sql_probe: the registry and the connections as `/api/v1/datasources` reaches
 * them (docs/datasources.md), in the key's pinned workspace; there is no tool that writes a datasource.
 * Introspection, previews and probes open a connection through the datasource's pool; previews
 * and probes run on the bounded read-only probe path (datasources/probe.ts) and answer the rows
 * shape under `service.mcp.max-rows` / `max-chars`, reading at most one row past what they send.
 * A preview is one page; `sql_probe` pages by running its statement again (probe_pages.ts).
 */
import { z } from "zod";
import {
  columnView,
  datasourceSummaryView,
  datasourceView,
  probeRows,
  schemasView,
  tableStatsView,
  tablesView,
  testReportView,
} from "../../datasources/mod.ts";
import type { RowCaps } from "../../lib/bounded_rows.ts";
import { probeOffset, probePage, probeReach } from "../probe_pages.ts";
import { rowsShape } from "../rows.ts";
import { defineTool, READ, RUN } from "../tool.ts";
import { listPage, pageArgs, pagedOutput } from "../paging.ts";

const name = z.string().min(1).max(200).describe(
  "The datasource's name, as datasources_list gives it, e.g. `shop`",
);
const schema = z.string().min(1).max(256).optional().describe(
  "Exact schema name; absent: the connection's current schema",
);
const table = z.string().min(1).max(1024).describe(
  "Exact table name, as datasources_get_tables lists it",
);
const limit = z.int().min(1).optional().describe(
  "Rows wanted, at most service.mcp.max-rows (200 by default; a larger value is clamped)",
);

/** The row cap a call asks for, within the instance's. */
const capsFor = (settings: RowCaps, asked: number | undefined): RowCaps => ({
  maxRows: Math.min(asked ?? settings.maxRows, settings.maxRows),
  maxChars: settings.maxChars,
});

export const tools = [
  defineTool({
    name: "datasources_list",
    title: "List datasources",
    description:
      "Lists the datasources the workspace can use (its own plus global ones granted to it), " +
      "paged: name, dialect, where it is bound (workspace, or global), whether it is read-only, " +
      "its last test, and its learned facts and definitions. Its URL, credential and pool " +
      "settings come with datasources_get. No connection is opened.",
    floor: "read",
    input: z.strictObject({
      dialect: z.string().max(20).optional().describe(
        "Only datasources of this dialect: POSTGRES, MYSQL, SQLITE, DUCKDB or LAKE",
      ),
      ...pageArgs,
    }),
    // The summary's schema is the projection: the output check keeps only its fields.
    output: pagedOutput(datasourceSummaryView),
    annotations: READ,
    handler: (s, ctx, args) =>
      listPage(s, args, (page) =>
        s.content.datasources.list(ctx.actor, ctx.workspace, {
          ...page,
          dialect: args.dialect || undefined,
        })),
  }),
  defineTool({
    name: "datasources_get",
    title: "Read a datasource",
    description:
      "Returns one datasource without its secret: dialect, URL, binding, last test, pool, the " +
      "datasource-wide learned facts and the workspace's definitions naming it. No connection " +
      "is opened.",
    floor: "read",
    input: z.strictObject({ name }),
    output: datasourceView,
    annotations: READ,
    handler: (s, ctx, args) => s.content.datasources.get(ctx.actor, ctx.workspace, args.name),
  }),
  defineTool({
    name: "datasources_get_table_stats",
    title: "Table statistics",
    description:
      "Returns a table's columns with its row count and size where the dialect tells them " +
      "cheaply (catalog estimates; an exact count for SQLite, lakes and views). " +
      "`row_count_exact` says which; what the dialect cannot tell within the time is omitted.",
    floor: "read",
    input: z.strictObject({ name, table, schema }),
    output: tableStatsView,
    annotations: READ,
    handler: (s, ctx, args) =>
      s.content.connections.tableStats(ctx.actor, ctx.workspace, args.name, {
        table: args.table,
        ...(args.schema ? { schema: args.schema } : {}),
      }),
  }),
  defineTool({
    name: "datasources_get_schemas",
    title: "List schemas",
    description:
      "Lists the datasource's schemas, system schemas left out, at most 2000 (`truncated` says " +
      "more exist). Empty for schemaless datasources.",
    floor: "inspect",
    input: z.strictObject({ name }),
    output: schemasView,
    annotations: READ,
    handler: (s, ctx, args) => s.content.connections.schemas(ctx.actor, ctx.workspace, args.name),
  }),
  defineTool({
    name: "datasources_get_tables",
    title: "List tables",
    description:
      "Lists tables and views of one schema (exact name), or of every visible schema when " +
      "`schema` is absent, at most 2000, each with its table-level learned facts.",
    floor: "inspect",
    input: z.strictObject({ name, schema }),
    output: tablesView,
    annotations: READ,
    handler: (s, ctx, args) =>
      s.content.connections.tables(ctx.actor, ctx.workspace, args.name, args.schema),
  }),
  defineTool({
    name: "datasources_get_columns",
    title: "List columns",
    description:
      "Lists the columns of one table (named exactly as datasources_get_tables lists it): " +
      "canonical `type`, `source_type`, nullability, warnings and column-level learned facts, " +
      "and where the dialect exposes keys (all but LAKE) `primary_key` (position; omitted " +
      "when not in it), `references` (foreign keys) and `indexes`, so joins can be read off. " +
      "An unknown table is datasource.table_not_found with a near name when one is close.",
    floor: "inspect",
    input: z.strictObject({ name, table, schema }),
    output: z.object({ columns: z.array(columnView) }),
    annotations: READ,
    handler: async (s, ctx, args) => ({
      columns: await s.content.connections.columns(
        ctx.actor,
        ctx.workspace,
        args.name,
        args.table,
        args.schema,
      ),
    }),
  }),
  defineTool({
    name: "datasources_preview_rows",
    title: "Preview a table's rows",
    description:
      "Returns the first rows of one table (read-only, capped in rows and characters) in the " +
      "rows shape. Not stored: `next_cursor` is null; use sql_probe with a WHERE clause to see " +
      "other rows.",
    floor: "inspect",
    input: z.strictObject({ name, table, schema, limit }),
    output: rowsShape,
    annotations: READ,
    handler: async (s, ctx, args) => {
      const caps = capsFor(ctx.settings, args.limit);
      const result = await s.content.connections.previewRows(ctx.actor, ctx.workspace, args.name, {
        table: args.table,
        ...(args.schema ? { schema: args.schema } : {}),
      }, { maxRows: caps.maxRows });
      return probeRows(result, caps);
    },
  }),
  defineTool({
    name: "datasources_test",
    title: "Test a datasource connection",
    description:
      "Connects to the datasource and reports `connected`, latency, server version or the " +
      "error; never a refusal for an unreachable one. The outcome is stored as the " +
      "datasource's last_test.",
    floor: "datasource_test",
    input: z.strictObject({ name }),
    output: testReportView,
    // Stores last_test: each call records a newer outcome; nothing is removed.
    annotations: RUN,
    handler: (s, ctx, args) => s.content.connections.test(ctx.actor, ctx.workspace, args.name),
  }),
  defineTool({
    name: "sql_probe",
    title: "Run a read-only SQL probe",
    description:
      "Runs one read statement (SELECT, WITH, …) on a datasource, read-only and bounded: " +
      "`limit` rows a page (at most service.mcp.max-rows), a character cap, `timeout_ms` " +
      "(default 10 s, at most 30 s). Bind values as `:name` placeholders with `parameters`. A " +
      "write or a second statement is datasource.probe.not_read_only. Not stored: while rows " +
      "remain, `next_cursor` pages on when sent back as `cursor` with the same datasource, sql " +
      "and parameters (the statement runs again, so ORDER BY keeps pages stable); a probe " +
      "reaches its first 1000 rows at most, past them narrow the statement. `explain: true` " +
      "answers the engine's plan instead, without running the statement.",
    floor: "inspect",
    input: z.strictObject({
      datasource: name,
      sql: z.string().min(1).max(100_000).describe(
        "One read statement in the datasource's dialect, values as `:name` placeholders, e.g. " +
          "`SELECT id, amount FROM orders WHERE country = :country ORDER BY id`",
      ),
      parameters: z.record(z.string(), z.unknown()).optional().describe(
        'Values for the `:name` placeholders, e.g. `{"country": "DE"}`',
      ),
      limit,
      cursor: z.string().max(500).optional().describe(
        "A next_cursor from an earlier answer to the same statement: the page after it",
      ),
      timeout_ms: z.int().min(1).optional().describe(
        "Milliseconds the statement may run: default 10000, clamped to 100-30000",
      ),
      explain: z.boolean().optional().describe(
        "true: answer the engine's plan of the statement as rows instead of running it " +
          "(PostgreSQL EXPLAIN, MariaDB EXPLAIN, SQLite EXPLAIN QUERY PLAN, DuckDB EXPLAIN; " +
          "never ANALYZE). The statement is vetted as a read first, as without it",
      ),
    }),
    output: rowsShape,
    annotations: READ,
    handler: async (s, ctx, args) => {
      const statement = {
        datasource: args.datasource,
        sql: args.sql,
        ...(args.parameters ? { parameters: args.parameters } : {}),
        ...(args.explain ? { explain: true } : {}),
      };
      const at = await probeOffset(statement, args.cursor);
      const asked = args.limit ?? at.limit;
      const caps = capsFor(ctx.settings, asked);
      const result = await s.content.connections.probe(ctx.actor, ctx.workspace, args.datasource, {
        sql: args.sql,
        ...(args.parameters ? { params: args.parameters } : {}),
      }, {
        maxRows: probeReach(at.offset, caps.maxRows),
        ...(args.timeout_ms ? { timeoutMs: args.timeout_ms } : {}),
        ...(args.explain ? { explain: true } : {}),
      });
      return await probePage(statement, result, at.offset, caps, asked);
    },
  }),
];
