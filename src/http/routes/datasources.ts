/**
 * Datasources (docs/datasources.md): the registry and grants. The matrix row of a write depends on
 * its target: a datasource no workspace owns is instance administration (admin / super_admin), a
 * workspace-bound one its workspace's (author / ws_admin), judged in the workspace the body binds
 * to. Handlers stay thin: the service re-checks tenancy and the write rules.
 */
import { z } from "zod";
import type { Services } from "../../services.ts";
import {
  columnView,
  datasourceView,
  DIALECTS,
  grantView,
  schemasView,
  tablesView,
  testReportView,
} from "../../datasources/mod.ts";
import { AppError } from "../../errors/mod.ts";
import type { AppContext } from "../context.ts";
import { ok, paged, pagedData } from "../envelope.ts";
import { readJson } from "../input.ts";
import type { AccessFor, Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "content" | "identity">;

const nameParam = z.object({ name: z.string().max(200) });
const grantParams = z.object({ name: z.string().max(200), workspace: z.string().max(200) });

const credentialIn = z.object({
  kind: z.enum(["password", "token", "private_key", "service_account_json", "none"]),
  username: z.string().optional(),
  secret: z.string().optional().describe("write-only; never returned"),
});

/** The documented body; validation itself is the service's, so every defect gets its own code. */
const definitionDoc = z.object({
  name: z.string().describe("globally unique, immutable: [a-z0-9][a-z0-9_-]{0,62}"),
  display_name: z.string().optional(),
  dialect: z.enum(DIALECTS),
  jdbc_url: z.string(),
  credential: credentialIn.optional(),
  username: z.string().optional().describe("legacy pair with password; not with credential"),
  password: z.string().optional().describe("legacy; write-only"),
  introspection_include_schemas: z.array(z.string()).optional(),
  properties: z.object({
    hikari: z.record(z.string(), z.int()).optional(),
    jdbc: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  }).optional(),
  global: z.boolean().optional(),
  workspace: z.string().optional(),
  readonly: z.boolean().optional(),
});

/** An empty `?schema=` counts as absent. */
const schemaQuery = z.object({
  schema: z.string().max(256).optional().transform((v) => v === "" ? undefined : v),
});

/** The body as an object when it parses; a malformed one is the handler's to refuse, after auth. */
async function peekBody(c: AppContext): Promise<Record<string, unknown> | undefined> {
  try {
    const body = await readJson(c);
    return typeof body === "object" && body !== null ? body as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

export function registerRoutes(router: Router, deps: Deps): void {
  const ds = deps.content.datasources;

  /** POST: a global body is instance administration; a named binding is judged where it binds. */
  const createAccess: AccessFor = async (c, { actor: p, workspace }) => {
    const body = await peekBody(c);
    if (body?.global === true) return { access: "datasources.write_instance" };
    const named = body?.workspace;
    if (typeof named !== "string" || named === workspace?.name) return undefined;
    const target = p.authMethod === "API_KEY"
      ? null // a key acts in its pinned workspace only
      : await deps.identity.directory.resolveByName(
        { userId: p.userId, isSuperAdmin: p.isSuperAdmin },
        named,
      );
    if (!target) {
      throw new AppError("datasource.validation.workspace_forbidden", {
        reason: "the binding must be a workspace you can reach",
        workspace: named.slice(0, 100),
      });
    }
    return { access: "datasources.write", workspace: target };
  };

  /** PUT/DELETE: the stored row decides; a flip to global is instance administration too. */
  const targetAccess =
    (withBody: boolean): AccessFor => async (c, { actor, params, workspace }) => {
      const target = await ds.writeTarget(actor, workspace, params.name ?? "");
      const flip = withBody && (await peekBody(c))?.global === true;
      return target === "instance" || flip ? { access: "datasources.write_instance" } : undefined;
    };

  router.add({
    method: "get",
    path: "/api/v1/datasources",
    tag: "datasources",
    summary: "Datasources visible in the workspace: its own plus global ones granted to it",
    access: "content.read",
    query: z.object({
      dialect: z.string().max(20).optional(),
    }),
    page: true,
    response: pagedData(datasourceView),
  }, async (c, { actor, workspace, page, query }) => {
    const dialect = query.dialect === "" ? undefined : query.dialect;
    const { items, total } = await ds.list(actor, workspace, { ...page, dialect });
    return paged(c, items, { ...page, total });
  });

  router.add({
    method: "post",
    path: "/api/v1/datasources",
    tag: "datasources",
    summary: "Register a datasource (global ones: super admin)",
    access: "datasources.write",
    accessFor: createAccess,
    status: 201,
    body: z.unknown().meta({ ...z.toJSONSchema(definitionDoc) }),
    response: datasourceView,
    errors: [
      "datasource.validation.duplicate_name",
      "datasource.validation.properties_invalid",
      "datasource.validation.password_missing",
      "datasource.validation.workspace_forbidden",
    ],
  }, async (c, { actor, workspace, body }) => ok(c, await ds.create(actor, workspace, body), 201));

  router.add({
    method: "get",
    path: "/api/v1/datasources/:name",
    tag: "datasources",
    summary: "One datasource, without its secret; no connection is opened",
    access: "content.read",
    params: nameParam,
    response: datasourceView,
    errors: ["datasource.not_found"],
  }, async (c, { actor, workspace, params }) => ok(c, await ds.get(actor, workspace, params.name)));

  router.add(
    {
      method: "put",
      path: "/api/v1/datasources/:name",
      tag: "datasources",
      summary: "Replace a definition (name immutable; an omitted secret is kept)",
      access: "datasources.write",
      accessFor: targetAccess(true),
      params: nameParam,
      body: z.unknown().meta({ ...z.toJSONSchema(definitionDoc) }),
      response: datasourceView,
      errors: [
        "datasource.not_found",
        "datasource.validation.properties_invalid",
        "datasource.validation.password_missing",
        "datasource.validation.workspace_forbidden",
      ],
    },
    async (c, { actor, workspace, params, body }) =>
      ok(c, await ds.update(actor, workspace, params.name, body)),
  );

  router.add({
    method: "delete",
    path: "/api/v1/datasources/:name",
    tag: "datasources",
    summary: "Delete a datasource no stored pipeline version references",
    access: "datasources.write",
    accessFor: targetAccess(false),
    status: 204,
    params: nameParam,
    errors: ["datasource.not_found", "datasource.in_use"],
  }, async (c, { actor, workspace, params }) => {
    await ds.remove(actor, workspace, params.name);
    return c.body(null, 204);
  });

  const conn = deps.content.connections;

  router.add({
    method: "post",
    path: "/api/v1/datasources/:name/test",
    tag: "datasources",
    summary: "Probe the connection (always 200); stored as last_test",
    access: "datasources.test",
    params: nameParam,
    response: testReportView,
    errors: ["datasource.not_found"],
  }, async (c, i) => ok(c, await conn.test(i.actor, i.workspace, i.params.name)));

  router.add({
    method: "get",
    path: "/api/v1/datasources/:name/schemas",
    tag: "datasources",
    summary: "Schemas without system schemas (include-schemas exempt), capped at 2000",
    access: "datasources.introspect",
    params: nameParam,
    response: schemasView,
    errors: ["datasource.not_found", "pipeline.execution.datasource_unreachable"],
  }, async (c, i) => ok(c, await conn.schemas(i.actor, i.workspace, i.params.name)));

  router.add(
    {
      method: "get",
      path: "/api/v1/datasources/:name/tables",
      tag: "datasources",
      summary: "Tables of one schema (exact) or of every visible schema, capped at 2000",
      access: "datasources.introspect",
      params: nameParam,
      query: schemaQuery,
      response: tablesView,
      errors: ["datasource.not_found", "pipeline.execution.datasource_unreachable"],
    },
    async (c, { actor, workspace, params, query }) =>
      ok(c, await conn.tables(actor, workspace, params.name, query.schema)),
  );

  router.add(
    {
      method: "get",
      path: "/api/v1/datasources/:name/tables/:table/columns",
      tag: "datasources",
      summary: "Columns of one table, named exactly as /tables lists it, with keys and indexes",
      access: "datasources.introspect",
      params: z.object({ name: z.string().max(200), table: z.string().max(1024) }),
      query: schemaQuery,
      response: z.array(columnView),
      errors: [
        "datasource.not_found",
        "datasource.table_not_found",
        "pipeline.execution.parameter_required",
        "pipeline.execution.datasource_unreachable",
      ],
    },
    async (c, { actor, workspace, params, query }) =>
      ok(c, await conn.columns(actor, workspace, params.name, params.table, query.schema)),
  );

  router.add({
    method: "post",
    path: "/api/v1/datasources/:name/grants/:workspace",
    tag: "datasources",
    summary: "Grant a global datasource to a workspace (super admin; no body)",
    access: "datasources.grant",
    params: grantParams,
    response: grantView,
    errors: ["datasource.not_found", "workspace.not_found"],
  }, async (c, { actor, params }) => ok(c, await ds.grant(actor, params.name, params.workspace)));

  router.add({
    method: "delete",
    path: "/api/v1/datasources/:name/grants/:workspace",
    tag: "datasources",
    summary: "Revoke a grant (super admin)",
    access: "datasources.grant",
    status: 204,
    params: grantParams,
    errors: ["datasource.not_found", "workspace.not_found"],
  }, async (c, { actor, params }) => {
    await ds.revoke(actor, params.name, params.workspace);
    return c.body(null, 204);
  });
}
