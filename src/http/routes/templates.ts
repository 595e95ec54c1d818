/**
 * Templates (docs/authoring.md#authoring-templates). The name never travels in a path segment (it
 * contains `/`): reads and purges take `?name=`, writes take it in the body. Every route acts in
 * the caller's workspace; a template of another workspace is `template.not_found`.
 */
import { z } from "zod";
import {
  createTemplateSchema,
  libraryImportSchema,
  libraryImportView,
  renderedSqlView,
  TEMPLATE_DIALECTS,
  TEMPLATE_TYPES,
  templateFolderView,
  templatePurgedView,
  templateRowView,
  templateView,
  updateTemplateSchema,
} from "../../templates/mod.ts";
import { type OpContext, versionMetaView } from "../../versions/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import { ok, paged, pagedData } from "../envelope.ts";
import type { Services } from "../../services.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "content">;

const NAME_MAX = 1000;
const name = z.string().min(1).max(NAME_MAX);
const version = z.coerce.number().int().min(1);
const named = z.object({ name });
const namedVersion = z.object({ name, version: z.int().min(1) });

export function registerRoutes(router: Router, deps: Deps): void {
  const svc = deps.content.templates;
  const op = (actor: Principal, workspace: WorkspaceContext): OpContext => ({
    actor,
    workspaceId: workspace.id,
  });
  const base = { tag: "templates" } as const;

  router.add(
    {
      ...base,
      method: "post",
      path: "/api/v1/templates",
      summary: "Create a template: DRAFT version 1 (id generated under test/ when omitted)",
      access: "content.write",
      status: 201,
      body: createTemplateSchema,
      response: templateView,
      errors: [
        "template.validation.id_invalid",
        "template.validation.duplicate_name",
        "template.validation.dialect_invalid",
        "template.validation.import_invalid",
        "template.render.syntax_error",
        "template.render.unknown_import",
      ],
    },
    async (c, { actor, workspace, body }) =>
      ok(c, await svc.create(op(actor, workspace), body), 201),
  );

  router.add({
    ...base,
    method: "get",
    path: "/api/v1/templates",
    summary: "With name: the working version. With prefix: one folder level. Else: the paged list",
    access: "content.read",
    query: z.object({
      name: name.optional(),
      prefix: z.string().max(NAME_MAX).optional(),
      dialect: z.enum(TEMPLATE_DIALECTS as [string, ...string[]]).optional(),
      type: z.enum(TEMPLATE_TYPES).optional(),
      q: z.string().max(200).optional(),
    }),
    page: true,
    response: z.union([templateView, templateFolderView, pagedData(templateRowView)]),
    errors: ["template.not_found"],
  }, async (c, { workspace, page: p, query }) => {
    if (query.name !== undefined) return ok(c, await svc.get(workspace.id, query.name));
    const filter = {
      dialect: query.dialect as (typeof TEMPLATE_DIALECTS)[number] | undefined,
      type: query.type,
    };
    if (query.prefix !== undefined) {
      return ok(c, await svc.folder(workspace.id, query.prefix, filter, p));
    }
    const { items, total } = await svc.list(
      workspace.id,
      { ...filter, q: query.q || undefined },
      p,
    );
    return paged(c, items, { ...p, total });
  });

  router.add({
    ...base,
    method: "get",
    path: "/api/v1/templates/versions",
    summary: "One version (with version), or every version's metadata (without)",
    access: "content.read",
    query: z.object({ name, version: version.optional() }),
    response: z.union([templateView, pagedData(versionMetaView)]),
    errors: ["template.not_found"],
  }, async (c, { workspace, query }) => {
    if (query.version === undefined) {
      const items = await svc.versions(workspace.id, query.name);
      return paged(c, items, { offset: 0, limit: items.length, total: items.length });
    }
    return ok(c, await svc.getVersion(workspace.id, query.name, query.version));
  });

  router.add(
    {
      ...base,
      method: "put",
      path: "/api/v1/templates",
      summary: "Save the full content against If-Match: the draft, or RELEASED when identical",
      access: "content.write",
      body: updateTemplateSchema,
      response: templateView,
      errors: [
        "template.version.conflict",
        "template.validation.dialect_invalid",
        "template.validation.type_immutable",
        "template.validation.import_invalid",
        "template.render.syntax_error",
        "template.render.unknown_import",
      ],
    },
    async (c, { actor, workspace, body }) =>
      ok(c, await svc.update(op(actor, workspace), c.req.header("if-match"), body)),
  );

  router.add(
    {
      ...base,
      method: "post",
      path: "/api/v1/templates/release",
      summary: "Release the draft whose hash is If-Match",
      access: "versions.release",
      body: named,
      response: templateView,
      errors: [
        "template.version.not_draft",
        "template.version.conflict",
        "template.release.import_not_released",
      ],
    },
    async (c, { actor, workspace, body }) =>
      ok(c, await svc.release(op(actor, workspace), body.name, c.req.header("if-match"))),
  );

  router.add({
    ...base,
    method: "post",
    path: "/api/v1/templates/draft/discard",
    summary: "Purge the draft whose hash is If-Match (session only)",
    access: "content.write_session",
    status: 204,
    body: named,
    errors: ["template.version.not_draft", "template.version.conflict", "template.in_use"],
  }, async (c, { actor, workspace, body }) => {
    await svc.purgeDraft(op(actor, workspace), body.name, c.req.header("if-match"));
    return c.body(null, 204);
  });

  const moves = [
    ["version/discard", "Discard a released version (session only)", "discard"],
    ["version/restore", "Restore a discarded version (session only)", "restore"],
    ["current", "Point the current version at a version (session only)", "switchCurrent"],
  ] as const;
  for (const [path, summary, verb] of moves) {
    router.add(
      {
        ...base,
        method: "post",
        path: `/api/v1/templates/${path}`,
        summary,
        access: verb === "switchCurrent" ? "versions.switch" : "content.write_session",
        body: namedVersion,
        response: templateView,
        errors: verb === "discard"
          ? ["template.version.not_released", "template.in_use"]
          : verb === "restore"
          ? ["template.version.not_discarded"]
          : ["template.version.not_eligible"],
      },
      async (c, { actor, workspace, body }) =>
        ok(c, await svc[verb](op(actor, workspace), body.name, body.version)),
    );
  }

  router.add({
    ...base,
    method: "delete",
    path: "/api/v1/templates/version",
    summary: "Purge a draft version (session only)",
    access: "content.write_session",
    status: 204,
    query: z.object({ name, version }),
    errors: ["template.version.last_release", "template.in_use"],
  }, async (c, { actor, workspace, query }) => {
    await svc.purgeVersion(op(actor, workspace), query.name, query.version);
    return c.body(null, 204);
  });

  router.add(
    {
      ...base,
      method: "delete",
      path: "/api/v1/templates",
      summary:
        "Purge a template whose sole version is a draft and that nothing pins (session only)",
      access: "content.write_session",
      query: z.object({ name }),
      response: templatePurgedView,
      errors: ["template.in_use", "template.version.last_release"],
    },
    async (c, { actor, workspace, query }) =>
      ok(c, await svc.deleteEntity(op(actor, workspace), query.name)),
  );

  router.add({
    ...base,
    method: "post",
    path: "/api/v1/templates/render",
    summary: "Render a sql template version: {sql, placeholders, imports}",
    access: "content.write",
    body: z.object({
      name,
      version: z.int().min(1).optional(),
      context: z.record(z.string(), z.unknown()).optional(),
    }),
    response: renderedSqlView,
    errors: ["template.render.type_unsupported", "template.render.parameter_interpolation"],
  }, async (c, { workspace, body }) => ok(c, await svc.render(workspace.id, body)));

  router.add({
    ...base,
    method: "post",
    path: "/api/v1/templates/import",
    summary: "Import library templates, released; idempotent (201 when any was created)",
    access: "content.write",
    body: libraryImportSchema,
    response: libraryImportView,
    alsoAnswers: { 201: libraryImportView },
    errors: [
      "template.import.draft_pending",
      "template.validation.dialect_invalid",
      "template.render.syntax_error",
    ],
  }, async (c, { actor, workspace, body }) => {
    const templates = await svc.importLibrary(op(actor, workspace), body);
    const count = (o: string) => templates.filter((t) => t.outcome === o).length;
    const data = {
      templates,
      created: count("created"),
      updated: count("updated"),
      unchanged: count("unchanged"),
    };
    return ok(c, data, data.created > 0 ? 201 : 200);
  });
}
