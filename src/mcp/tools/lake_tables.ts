/**
 * lake_tables_*: the lake-table registry of a LAKE datasource (spec 3 §2.3, §4.2) through the
 * `LakeTables` service REST uses. The datasource is `datasource` here, since a lake table's own
 * `name` is a body field; everything else is the REST body. The bucket is never touched.
 */
import { z } from "zod";
import { lakeImportView, lakeTableView } from "../../datasources/mod.ts";
import { CREATE, defineTool, REMOVE } from "../tool.ts";

const datasource = z.string().min(1).max(200).describe("The LAKE datasource's name");
const namespace = z.union([z.string().max(700), z.array(z.string().max(64)).max(9)]);

export const tools = [
  defineTool({
    name: "lake_tables_register",
    title: "Register a lake table",
    description:
      "Registers one table a LAKE datasource reads in place: `namespace` (1 to 9 segments, or " +
      "dotted), `name`, `format` (parquet or iceberg), `location` (s3://bucket/prefix[/glob] " +
      "or file://; for iceberg the current metadata file). A taken triple is " +
      "datasource.lake_table_duplicate.",
    floor: "write",
    input: z.object({
      datasource,
      namespace,
      name: z.string().max(64),
      format: z.string().max(16),
      location: z.string().max(2000),
      partition_column: z.string().max(128).optional(),
    }),
    output: lakeTableView,
    annotations: CREATE,
    handler: (s, ctx, { datasource, ...body }) =>
      s.lakeTables.register(ctx.actor, ctx.workspace, datasource, body),
  }),
  defineTool({
    name: "lake_tables_import",
    title: "Import lake tables from a manifest",
    description: "Registers many lake tables at once from an inline manifest (`namespace`, " +
      "`publish_prefix`, `tables` of {name, format, path or location, partition_column}) or " +
      "from a `manifest_url` in the datasource's own bucket. Idempotent: tables already " +
      "registered identically are reported as already_registered.",
    floor: "write",
    input: z.object({
      datasource,
      namespace: namespace.optional(),
      publish_prefix: z.string().max(2000).optional(),
      tables: z.array(z.record(z.string(), z.unknown())).optional(),
      manifest_url: z.string().max(2000).optional(),
    }),
    output: lakeImportView,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    handler: (s, ctx, { datasource, ...body }) =>
      s.lakeTables.import(ctx.actor, ctx.workspace, datasource, body),
  }),
  defineTool({
    name: "lake_tables_unregister",
    title: "Unregister a lake table",
    description:
      "Removes a lake table from the registry by `namespace` (dot-joined) and `table`; the " +
      "files stay where they are. An absent one is datasource.lake_table_not_found.",
    floor: "write",
    input: z.object({
      datasource,
      namespace: z.string().min(1).max(700),
      table: z.string().max(64),
    }),
    output: z.object({ namespace: z.string(), table: z.string(), unregistered: z.literal(true) }),
    // A second call for the same table is datasource.lake_table_not_found.
    annotations: { ...REMOVE, idempotentHint: false },
    handler: async (s, ctx, args) => {
      await s.lakeTables.unregister(
        ctx.actor,
        ctx.workspace,
        args.datasource,
        args.namespace,
        args.table,
      );
      return { namespace: args.namespace, table: args.table, unregistered: true as const };
    },
  }),
];
