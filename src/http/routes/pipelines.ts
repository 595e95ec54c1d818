/**
 * Pipelines (docs/authoring.md#authoring-pipelines, every route but execute). Pipelines are
 * addressed by id; a pipeline of another workspace is `pipeline.not_found`. The body is validated
 * by the service (one parser for every way a body arrives), so these schemas only require a JSON
 * object.
 */
import { z } from "zod";
import {
  checkRunsView,
  checksView,
  exportPipeline,
  importPipeline,
  pipelineExportView,
  pipelineFolderView,
  pipelinePurgedView,
  pipelineRowView,
  pipelineView,
} from "../../pipelines/mod.ts";
import { versionMetaView } from "../../versions/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import type { AppContext } from "../context.ts";
import { ok, paged, pagedData } from "../envelope.ts";
import type { Services } from "../../services.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "content">;

const object = z.record(z.string(), z.unknown());
const idParam = z.object({ id: z.string().max(64) });
const idVersion = z.object({ id: z.string().max(64), version: z.coerce.number().int().min(1) });
const bool = z.enum(["true", "false"]).transform((v) => v === "true");

export function registerRoutes(router: Router, deps: Deps): void {
  const svc = deps.content.pipelines;
  const op = (actor: Principal, workspace: WorkspaceContext) => ({
    actor,
    workspaceId: workspace.id,
    scope: workspace,
  });
  const ifMatch = (c: AppContext) => c.req.header("if-match");
  const base = { tag: "pipelines" } as const;
  const P = "/api/v1/pipelines";

  router.add(
    {
      ...base,
      method: "post",
      path: P,
      summary: "Create a pipeline: DRAFT version 1, current_version null",
      access: "content.write",
      status: 201,
      body: object,
      response: pipelineView,
      errors: [
        "pipeline.validation.name_invalid",
        "pipeline.validation.duplicate_name",
        "pipeline.validation.graph_invalid",
        "pipeline.validation.node_invalid",
        "pipeline.validation.cycle_detected",
      ],
    },
    async (c, { actor, workspace, body }) =>
      ok(c, await svc.create(op(actor, workspace), body), 201),
  );

  router.add({
    ...base,
    method: "post",
    path: `${P}/import`,
    summary: "Import a pipeline: an explicit version is honoured exactly (201 created, 200 else)",
    access: "content.write",
    body: object,
    response: pipelineView,
    alsoAnswers: { 201: pipelineView },
    errors: [
      "pipeline.import.hash_mismatch",
      "pipeline.import.version_conflict",
      "pipeline.import.missing_datasource",
      "pipeline.import.missing_template",
    ],
  }, async (c, { actor, workspace, body }) => {
    const done = await importPipeline(svc, op(actor, workspace), body);
    return ok(c, done.pipeline, done.created ? 201 : 200);
  });

  router.add({
    ...base,
    method: "get",
    path: P,
    summary: "With prefix: one folder level. Else the paged list (owner, datasource, q)",
    access: "content.read",
    query: z.object({
      prefix: z.string().max(200).optional(),
      owner: z.string().max(64).optional(),
      datasource: z.string().max(200).optional(),
      q: z.string().max(200).optional(),
    }),
    page: true,
    response: z.union([pagedData(pipelineRowView), pipelineFolderView]),
  }, async (c, { workspace, page: p, query }) => {
    if (query.prefix !== undefined) return ok(c, await svc.folder(workspace.id, query.prefix, p));
    const filter = {
      owner: query.owner || undefined,
      datasource: query.datasource || undefined,
      q: query.q || undefined,
    };
    const { items, total } = await svc.list(workspace.id, filter, p);
    return paged(c, items, { ...p, total });
  });

  router.add({
    ...base,
    method: "get",
    path: `${P}/:id`,
    summary: "The working version: the draft when one exists, else the current release",
    access: "content.read",
    params: idParam,
    response: pipelineView,
    errors: ["pipeline.not_found"],
  }, async (c, { workspace, params }) => ok(c, await svc.get(workspace.id, params.id)));

  router.add({
    ...base,
    method: "get",
    path: `${P}/:id/versions`,
    summary: "Every version's metadata",
    access: "content.read",
    params: idParam,
    response: pagedData(versionMetaView),
    errors: ["pipeline.not_found"],
  }, async (c, { workspace, params }) => {
    const items = await svc.versions(workspace.id, params.id);
    return paged(c, items, { offset: 0, limit: items.length, total: items.length });
  });

  router.add(
    {
      ...base,
      method: "get",
      path: `${P}/:id/versions/:version`,
      summary: "One version",
      access: "content.read",
      params: idVersion,
      response: pipelineView,
      errors: ["pipeline.not_found", "pipeline.execution.not_found"],
    },
    async (c, { workspace, params }) =>
      ok(c, await svc.getVersion(workspace.id, params.id, params.version)),
  );

  router.add(
    {
      ...base,
      method: "put",
      path: `${P}/:id`,
      summary: "Save the full body against If-Match: the draft, or RELEASED when identical",
      access: "content.write",
      params: idParam,
      body: object,
      response: pipelineView,
      errors: ["pipeline.version.conflict", "pipeline.validation.duplicate_name"],
    },
    async (c, { actor, workspace, params, body }) =>
      ok(c, await svc.update(op(actor, workspace), params.id, ifMatch(c), body)),
  );

  router.add({
    ...base,
    method: "post",
    path: `${P}/:id/release`,
    summary: "Release the draft whose hash is If-Match",
    access: "versions.release",
    params: idParam,
    query: z.object({
      override_checks_reason: z.string().max(2000).optional(),
      release_pinned_templates: bool.optional(),
    }),
    response: pipelineView,
    errors: [
      "pipeline.release.template_not_released",
      "pipeline.version.conflict",
      "pipeline.version.not_draft",
      "pipeline.check.failed",
    ],
  }, async (c, { actor, workspace, params, query }) =>
    ok(
      c,
      await svc.release(op(actor, workspace), params.id, ifMatch(c), {
        releasePinnedTemplates: query.release_pinned_templates ?? false,
        overrideChecksReason: query.override_checks_reason,
      }),
    ));

  router.add({
    ...base,
    method: "post",
    path: `${P}/:id/draft/discard`,
    summary: "Purge the draft whose hash is If-Match (session only)",
    access: "content.write_session",
    status: 204,
    params: idParam,
    errors: ["pipeline.version.not_draft", "pipeline.version.conflict"],
  }, async (c, { actor, workspace, params }) => {
    await svc.purgeDraft(op(actor, workspace), params.id, ifMatch(c));
    return c.body(null, 204);
  });

  const moves = [
    ["discard", "Discard a released version (session only)", "discard"],
    ["restore", "Restore a discarded version (session only)", "restore"],
  ] as const;
  for (const [verb, summary, fn] of moves) {
    router.add(
      {
        ...base,
        method: "post",
        path: `${P}/:id/versions/:version/${verb}`,
        summary,
        access: "content.write_session",
        params: idVersion,
        response: pipelineView,
        errors: fn === "discard"
          ? [
            "pipeline.version.not_released",
            "pipeline.version.pinned",
            "pipeline.authoring.disabled",
          ]
          : ["pipeline.version.not_discarded"],
      },
      async (c, { actor, workspace, params }) =>
        ok(c, await svc[fn](op(actor, workspace), params.id, params.version)),
    );
  }

  router.add({
    ...base,
    method: "delete",
    path: `${P}/:id/versions/:version`,
    summary: "Purge a draft version (session only)",
    access: "content.write_session",
    status: 204,
    params: idVersion,
    errors: ["pipeline.version.last_release"],
  }, async (c, { actor, workspace, params }) => {
    await svc.purgeVersion(op(actor, workspace), params.id, params.version);
    return c.body(null, 204);
  });

  router.add(
    {
      ...base,
      method: "post",
      path: `${P}/:id/current`,
      summary: "Point current_version at a version (session only)",
      access: "versions.switch",
      params: idParam,
      body: z.object({ version: z.int().min(1) }),
      response: pipelineView,
      errors: ["pipeline.version.not_eligible"],
    },
    async (c, { actor, workspace, params, body }) =>
      ok(c, await svc.switchCurrent(op(actor, workspace), params.id, body.version)),
  );

  router.add(
    {
      ...base,
      method: "post",
      path: `${P}/:id/versions/:version/checks/run`,
      summary: "Run the version's release checks now through the bounded probe",
      access: "content.write",
      params: idVersion,
      body: z.object({ parameters: object.optional() }).optional(),
      response: checkRunsView,
    },
    async (c, { actor, workspace, params, body }) =>
      ok(
        c,
        await svc.runChecks(
          op(actor, workspace),
          params.id,
          params.version,
          body?.parameters ?? {},
        ),
      ),
  );

  router.add(
    {
      ...base,
      method: "get",
      path: `${P}/:id/versions/:version/checks`,
      summary: "Check definitions with their latest run each, or null",
      access: "content.read",
      params: idVersion,
      response: checksView,
    },
    async (c, { workspace, params }) =>
      ok(c, await svc.getChecks(workspace.id, params.id, params.version)),
  );

  router.add({
    ...base,
    method: "delete",
    path: `${P}/:id`,
    summary: "Purge a pipeline whose sole version is a draft (session only)",
    access: "content.write_session",
    params: idParam,
    query: z.object({ include_exclusive_draft_templates: bool.optional() }),
    response: pipelinePurgedView,
    errors: ["pipeline.version.last_release"],
  }, async (c, { actor, workspace, params, query }) =>
    ok(
      c,
      await svc.deleteEntity(
        op(actor, workspace),
        params.id,
        query.include_exclusive_draft_templates ?? false,
      ),
    ));

  router.add(
    {
      ...base,
      method: "get",
      path: `${P}/:id/export`,
      summary: "Export the current release with its pinned templates and a manifest",
      access: "content.read",
      params: idParam,
      query: z.object({ include_templates: bool.optional() }),
      response: pipelineExportView,
      errors: ["pipeline.promotion.not_released"],
    },
    async (c, { workspace, params, query }) =>
      ok(c, await exportPipeline(svc, workspace.id, params.id, query.include_templates ?? true)),
  );
}
