/**
 * Lake-table routes (docs/datasources.md#lake-datasources). The named datasource is looked up as
 * the caller's active workspace sees it (else 404 `datasource.not_found`); after a committed write
 * its pool is retired here and elsewhere, so the lake serves the new views. `LakeTables` does all
 * of it. Writes are `lake_tables.manage` (author), the listing is a read.
 */
import { z } from "zod";
import { lakeImportView, lakeTablesView, lakeTableView } from "../../datasources/mod.ts";
import type { Services } from "../../services.ts";
import { ok } from "../envelope.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "content">;

const dsParam = z.object({ name: z.string().max(200) });
const tableParams = z.object({
  name: z.string().max(200),
  namespace: z.string().max(700),
  table: z.string().max(200),
});
const LAKE_ERRORS = [
  "datasource.not_found",
  "datasource.validation.lake_dialect_required",
  "datasource.validation.workspace_forbidden",
] as const;

export function registerRoutes(router: Router, deps: Deps): void {
  const lake = deps.content.lakeTables;

  router.add(
    {
      method: "post",
      path: "/api/v1/datasources/:name/tables",
      tag: "lake tables",
      summary: "Register a lake table on a LAKE datasource",
      access: "lake_tables.manage",
      status: 201,
      params: dsParam,
      body: z.unknown(),
      response: lakeTableView,
      errors: [
        ...LAKE_ERRORS,
        "datasource.validation.lake_namespace_invalid",
        "datasource.validation.lake_name_invalid",
        "datasource.validation.lake_format_invalid",
        "datasource.validation.lake_location_invalid",
        "datasource.lake_table_duplicate",
      ],
    },
    async (c, { actor, workspace, params, body }) =>
      ok(c, await lake.register(actor, workspace, params.name, body), 201),
  );

  router.add({
    method: "delete",
    path: "/api/v1/datasources/:name/tables/:namespace/:table",
    tag: "lake tables",
    summary: "Unregister a lake table (namespace dot-joined)",
    access: "lake_tables.manage",
    status: 204,
    params: tableParams,
    errors: [...LAKE_ERRORS, "datasource.lake_table_not_found"],
  }, async (c, { actor, workspace, params }) => {
    await lake.unregister(actor, workspace, params.name, params.namespace, params.table);
    return c.body(null, 204);
  });

  router.add(
    {
      method: "post",
      path: "/api/v1/datasources/:name/tables/import",
      tag: "lake tables",
      summary: "Import lake tables from an inline manifest or a manifest_url",
      access: "lake_tables.manage",
      params: dsParam,
      body: z.unknown(),
      response: lakeImportView,
      errors: [
        ...LAKE_ERRORS,
        "datasource.validation.lake_manifest_url_forbidden",
        "datasource.lake_table_duplicate",
        "pipeline.execution.datasource_unreachable",
      ],
    },
    async (c, { actor, workspace, params, body }) =>
      ok(c, await lake.import(actor, workspace, params.name, body)),
  );

  router.add(
    {
      method: "get",
      path: "/api/v1/datasources/:name/lake-tables",
      tag: "lake tables",
      summary: "The lake tables registered on a LAKE datasource",
      access: "content.read",
      params: dsParam,
      response: lakeTablesView,
      errors: [...LAKE_ERRORS],
    },
    async (c, { actor, workspace, params }) =>
      ok(c, await lake.list(actor, workspace, params.name)),
  );
}
