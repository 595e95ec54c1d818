/**
 * Lake-table routes (spec 3 §4.2). The datasource registry lives elsewhere, so the routes are
 * handed a `datasource` lookup (the named datasource as the caller's active workspace sees it, or
 * 404 `datasource.not_found`) and an `onChange` hook (pool eviction and its invalidation); the
 * lake-table service does the rest. Writes are `lake_tables.manage` (author), the listing is a
 * read.
 */
import { z } from "zod";
import {
  importLakeTables,
  type LakeDatasource,
  listLakeTables,
  registerLakeTable,
  unregisterLakeTable,
} from "../../datasources/mod.ts";
import type { Db } from "../../store/mod.ts";
import type { AppContext } from "../context.ts";
import { ok } from "../envelope.ts";
import type { Router } from "../routing.ts";

export interface LakeTableRouteDeps {
  db: Db;
  /** The registry's lookup, judged in the caller's active workspace. */
  datasource: (c: AppContext, name: string) => Promise<LakeDatasource>;
  /** After a committed write: evict the datasource's pool and publish the invalidation. */
  onChange?: (datasource: LakeDatasource) => void | Promise<void>;
  /** The manifest fetcher (default: global fetch). */
  fetch?: typeof fetch;
}

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

/** Registers the four lake-table routes; `deps` is read per request. */
export function lakeTableRoutes(router: Router, deps: LakeTableRouteDeps): void {
  const writer = (c: AppContext) => {
    const p = c.get("principal")!;
    return { actor: { userId: p.userId, isSuperAdmin: p.isSuperAdmin }, onChange: deps.onChange };
  };

  router.add({
    method: "post",
    path: "/api/v1/datasources/:name/tables",
    tag: "lake tables",
    summary: "Register a lake table on a LAKE datasource",
    access: "lake_tables.manage",
    status: 201,
    params: dsParam,
    body: z.unknown(),
    errors: [
      ...LAKE_ERRORS,
      "datasource.validation.lake_namespace_invalid",
      "datasource.validation.lake_name_invalid",
      "datasource.validation.lake_format_invalid",
      "datasource.validation.lake_location_invalid",
      "datasource.lake_table_duplicate",
    ],
  }, async (c, { params, body }) => {
    const ds = await deps.datasource(c, params.name);
    return ok(c, await registerLakeTable(deps.db, ds, body, writer(c)), 201);
  });

  router.add({
    method: "delete",
    path: "/api/v1/datasources/:name/tables/:namespace/:table",
    tag: "lake tables",
    summary: "Unregister a lake table (namespace dot-joined)",
    access: "lake_tables.manage",
    status: 204,
    params: tableParams,
    errors: [...LAKE_ERRORS, "datasource.lake_table_not_found"],
  }, async (c, { params }) => {
    const ds = await deps.datasource(c, params.name);
    await unregisterLakeTable(deps.db, ds, params.namespace, params.table, writer(c));
    return c.body(null, 204);
  });

  router.add({
    method: "post",
    path: "/api/v1/datasources/:name/tables/import",
    tag: "lake tables",
    summary: "Import lake tables from an inline manifest or a manifest_url",
    access: "lake_tables.manage",
    params: dsParam,
    body: z.unknown(),
    errors: [
      ...LAKE_ERRORS,
      "datasource.validation.lake_manifest_url_forbidden",
      "datasource.lake_table_duplicate",
      "pipeline.execution.datasource_unreachable",
    ],
  }, async (c, { params, body }) => {
    const ds = await deps.datasource(c, params.name);
    return ok(
      c,
      await importLakeTables(deps.db, ds, body, { ...writer(c), fetch: deps.fetch }),
    );
  });

  router.add({
    method: "get",
    path: "/api/v1/datasources/:name/lake-tables",
    tag: "lake tables",
    summary: "The lake tables registered on a LAKE datasource",
    access: "content.read",
    params: dsParam,
    errors: [...LAKE_ERRORS],
  }, async (c, { params }) => {
    const ds = await deps.datasource(c, params.name);
    return ok(c, await listLakeTables(deps.db, ds));
  });
}
