/**
 * lake_tables_*: the lake-table registry of a LAKE datasource (docs/datasources.md) through the
 * `LakeTables` service REST uses. The datasource is `datasource` here, since a lake table's own
 * `name` is a body field; everything else is the REST body. The bucket is never touched.
 */
import { z } from "zod";
import { lakeImportView, lakeTableView } from "../../datasources/mod.ts";
import { CREATE, defineTool, REMOVE } from "../tool.ts";

const datasource = z.string().min(1).max(200).describe("The LAKE datasource's name");
const namespace = z.union([z.string().max(700), z.array(z.string().max(64)).max(9)]).describe(
  'The namespace, dotted (`"sales.eu"`) or as segments (`["sales", "eu"]`), 1 to 9 segments',
);

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
    input: z.strictObject({
      datasource,
      namespace,
      name: z.string().max(64).describe("The table's name within the namespace, e.g. `orders`"),
      format: z.string().max(16).describe("parquet or iceberg"),
      location: z.string().max(2000).describe(
        "Where the files are: `s3://bucket/prefix/*.parquet` or `file://…`; for iceberg the " +
          "current metadata file",
      ),
      partition_column: z.string().max(128).optional().describe(
        "The column the files are partitioned by, if any, e.g. `day`",
      ),
    }),
    output: lakeTableView,
    annotations: CREATE,
    handler: (s, ctx, { datasource, ...body }) =>
      s.content.lakeTables.register(ctx.actor, ctx.workspace, datasource, body),
  }),
  defineTool({
    name: "lake_tables_import",
    title: "Import lake tables from a manifest",
    description: "Registers many lake tables at once from an inline manifest (`namespace`, " +
      "`publish_prefix`, `tables` of {name, format, path or location, partition_column}) or " +
      "from a `manifest_url` in the datasource's own bucket. Idempotent: tables already " +
      "registered identically are reported as already_registered.",
    floor: "write",
    input: z.strictObject({
      datasource,
      namespace: namespace.optional(),
      publish_prefix: z.string().max(2000).optional().describe(
        "Location prefix the manifest's relative `path`s are joined to",
      ),
      tables: z.array(z.record(z.string(), z.unknown())).optional().describe(
        'Inline manifest entries: `[{"name": "orders", "format": "parquet", "path": ' +
          '"orders/*.parquet"}]`; or give `manifest_url`',
      ),
      manifest_url: z.string().max(2000).optional().describe(
        "A manifest file in the datasource's own bucket; or give `tables`",
      ),
    }),
    output: lakeImportView,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    handler: (s, ctx, { datasource, ...body }) =>
      s.content.lakeTables.import(ctx.actor, ctx.workspace, datasource, body),
  }),
  defineTool({
    name: "lake_tables_unregister",
    title: "Unregister a lake table",
    description:
      "Removes a lake table from the registry by `namespace` (dot-joined) and `name`; the " +
      "files stay where they are. An absent one is datasource.lake_table_not_found.",
    floor: "write",
    input: z.strictObject({
      datasource,
      namespace: z.string().min(1).max(700).describe("The namespace, dot-joined, e.g. `sales.eu`"),
      name: z.string().max(64).describe(
        "The registered table's name, as lake_tables_register took it",
      ),
    }),
    output: z.object({ namespace: z.string(), name: z.string(), unregistered: z.literal(true) }),
    // A second call for the same table is datasource.lake_table_not_found.
    annotations: REMOVE,
    handler: async (s, ctx, args) => {
      await s.content.lakeTables.unregister(
        ctx.actor,
        ctx.workspace,
        args.datasource,
        args.namespace,
        args.name,
      );
      return { namespace: args.namespace, name: args.name, unregistered: true as const };
    },
  }),
];
