/**
 * Pipeline authoring in the browser: the editor pages and the form partials that create, save,
 * release and discard, over the same pipeline service as REST. A refused save re-renders the
 * editor with the author's text and the error placed on the field or node it names.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import {
  type PipelineDraft,
  PipelineEditorPage,
  type PipelineEditorProps,
  STARTER_SPEC,
} from "../../../ui/pages/pipeline_editor.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import { formText } from "../input.ts";
import type { Router } from "../routing.ts";
import { IMPORT_MAP } from "../vendor.ts";
import { shellContext, type UiPageDeps, userNames } from "./shell.ts";

const id = z.object({ id: z.uuid() });
const SPEC_KEYS = ["parameters", "nodes", "settings", "checks"] as const;

/** The editable part of a stored version: declared parameters only, never derived ones. */
// deno-lint-ignore no-explicit-any
export function specOf(view: any): string {
  const spec: Record<string, unknown> = {};
  for (const key of SPEC_KEYS) if (view[key] !== undefined) spec[key] = view[key];
  if (spec.parameters) {
    spec.parameters = Object.fromEntries(
      Object.entries(spec.parameters as Record<string, { derived?: boolean }>)
        .filter(([, d]) => !d.derived),
    );
  }
  return JSON.stringify(spec, null, 2);
}

/** The pipeline body a form describes; a spec that is not a JSON object is refused by field. */
function bodyOf(draft: PipelineDraft): Record<string, unknown> {
  let spec: unknown;
  try {
    spec = JSON.parse(draft.spec);
  } catch (e) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "spec",
      reason: `not JSON: ${(e as Error).message}`,
    });
  }
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "spec",
      reason: "must be a JSON object with parameters and nodes",
    });
  }
  return {
    ...spec,
    name: draft.name,
    ...(draft.display_name ? { display_name: draft.display_name } : {}),
    ...(draft.description ? { description: draft.description } : {}),
  };
}

function placed(e: AppError): NonNullable<PipelineEditorProps["error"]> {
  const d = e.details as Record<string, unknown>;
  const nodeId = typeof d.node_id === "string" ? d.node_id : undefined;
  const field = typeof d.field === "string"
    ? d.field
    : /name_invalid|duplicate_name/.test(e.code)
    ? "name"
    : /validation|cycle|graph|node|parameter|reference|datasource|template/.test(e.code)
    ? "spec"
    : undefined;
  return {
    code: e.code,
    message: e.userMessage,
    field: nodeId ? field ?? "spec" : field,
    node_id: nodeId,
  };
}

/** Who acts, where: the handler's actor and the workspace the route guarantees. */
interface At {
  actor: Principal;
  workspace: WorkspaceContext;
}

export function pipelineAuthoringRoutes(router: Router, deps: UiPageDeps): void {
  const editor = async (
    c: AppContext,
    at: At,
    props: Omit<PipelineEditorProps, "ctx">,
    status = 200,
  ) => {
    const ctx = await shellContext(c, deps, at.actor);
    return c.html(
      renderPage(<PipelineEditorPage ctx={ctx} importMap={IMPORT_MAP} {...props} />),
      status as 200,
    );
  };
  const op = (at: At) => ({ actor: at.actor, workspaceId: at.workspace.id });
  const draftOf = (f: Record<string, string>): PipelineDraft => ({
    name: f.name ?? "",
    display_name: f.display_name ?? "",
    description: f.description ?? "",
    spec: f.spec ?? "",
  });

  router.add({
    method: "get",
    path: "/pipelines/new",
    tag: "pages",
    summary: "The editor for a new pipeline",
    kind: "html",
    access: "content.write",
  }, (c, { actor, workspace }) =>
    editor(c, { actor, workspace }, {
      mode: "new",
      draft: {
        name: "",
        display_name: "",
        description: "",
        spec: JSON.stringify(STARTER_SPEC, null, 2),
      },
    }));

  router.add({
    method: "get",
    path: "/pipelines/:id/edit",
    tag: "pages",
    summary: "The editor for a pipeline's working version",
    kind: "html",
    access: "content.write",
    params: id,
    errors: ["pipeline.not_found"],
  }, async (c, { actor, workspace, params }) => {
    // deno-lint-ignore no-explicit-any
    const v: any = await deps.pipelines.get(workspace.id, params.id);
    return editor(c, { actor, workspace }, {
      mode: "edit",
      id: params.id,
      bodyHash: v.body_hash,
      draft: {
        name: v.name,
        display_name: v.display_name ?? "",
        description: v.description ?? "",
        spec: specOf(v),
      },
    });
  });

  const refused = async (
    c: AppContext,
    at: At,
    e: unknown,
    props: Omit<PipelineEditorProps, "ctx" | "error">,
  ) => {
    if (!(e instanceof AppError) || e.status >= 500 || e.status === 403) throw e;
    if (e.code === "pipeline.version.conflict" && props.id) {
      // deno-lint-ignore no-explicit-any
      const theirs: any = await deps.pipelines.get(at.workspace.id, props.id);
      const versions = await deps.pipelines.versions(at.workspace.id, props.id);
      const latest = versions.find((v) => v.version === theirs.version);
      const names = await userNames(deps, latest ? [latest.updated_by] : []);
      return editor(c, at, {
        ...props,
        error: placed(e),
        conflict: {
          version: theirs.version,
          status: theirs.status,
          author: (latest && names.get(latest.updated_by)) ?? "someone",
          spec: specOf(theirs),
          body_hash: theirs.body_hash,
        },
      }, 409);
    }
    return editor(c, at, { ...props, error: placed(e) }, e.status);
  };

  router.add({
    method: "post",
    path: "/partials/pipelines/create",
    tag: "pages",
    summary: "Create a pipeline from the editor form",
    kind: "html",
    access: "content.write",
  }, async (c, { actor, workspace }) => {
    const draft = draftOf(await formText(c));
    try {
      const saved = await deps.pipelines.create(op({ actor, workspace }), bodyOf(draft));
      return c.redirect(`/pipelines/${saved.id}?saved=1`, 303);
    } catch (e) {
      return await refused(c, { actor, workspace }, e, { mode: "new", draft });
    }
  });

  router.add({
    method: "post",
    path: "/partials/pipelines/:id/save",
    tag: "pages",
    summary: "Save a pipeline's draft from the editor form",
    kind: "html",
    access: "content.write",
    params: id,
    errors: ["pipeline.not_found"],
  }, async (c, { actor, workspace, params }) => {
    const f = await formText(c);
    const draft = draftOf(f);
    try {
      await deps.pipelines.update(op({ actor, workspace }), params.id, f.body_hash, bodyOf(draft));
      return c.redirect(`/pipelines/${params.id}?saved=1`, 303);
    } catch (e) {
      return await refused(c, { actor, workspace }, e, {
        mode: "edit",
        id: params.id,
        draft,
        bodyHash: f.body_hash,
      });
    }
  });

  router.add({
    method: "post",
    path: "/partials/pipelines/:id/release",
    tag: "pages",
    summary: "Release a pipeline's draft, its release checks run first",
    kind: "html",
    access: "versions.release",
    params: id,
    errors: ["pipeline.not_found"],
  }, async (c, { actor, workspace, params }) => {
    const f = await formText(c);
    const back = `/pipelines/${params.id}`;
    try {
      const done = await deps.pipelines.release(
        { ...op({ actor, workspace }), scope: workspace },
        params.id,
        f.body_hash,
        {
          releasePinnedTemplates: f.release_pinned_templates === "true",
          overrideChecksReason: f.override_checks_reason || undefined,
        },
      );
      // deno-lint-ignore no-explicit-any
      return c.redirect(`${back}?released=${(done as any).version}`, 303);
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500 || e.status === 403) throw e;
      return c.redirect(`${back}?error=${encodeURIComponent(`${e.code}: ${e.userMessage}`)}`, 303);
    }
  });

  router.add({
    method: "post",
    path: "/partials/pipelines/:id/discard",
    tag: "pages",
    summary: "Purge a pipeline's draft",
    kind: "html",
    access: "content.write_session",
    params: id,
    errors: ["pipeline.not_found"],
  }, async (c, { actor, workspace, params }) => {
    const f = await formText(c);
    try {
      await deps.pipelines.purgeDraft(op({ actor, workspace }), params.id, f.body_hash);
      // A sole draft takes the pipeline with it: then there is no page to go back to.
      const left = await deps.pipelines.get(op({ actor, workspace }).workspaceId, params.id).catch(
        () => null,
      );
      return c.redirect(left ? `/pipelines/${params.id}?discarded=1` : "/pipelines", 303);
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500 || e.status === 403) throw e;
      return c.redirect(
        `/pipelines/${params.id}?error=${encodeURIComponent(`${e.code}: ${e.userMessage}`)}`,
        303,
      );
    }
  });

  const versionMove = (
    verb: "restore" | "discard" | "current",
    summary: string,
    access: "content.write_session" | "versions.switch",
  ) =>
    router.add({
      method: "post",
      path: `/partials/pipelines/:id/versions/:version/${verb}`,
      tag: "pages",
      summary,
      kind: "html",
      access,
      params: z.object({ id: z.uuid(), version: z.coerce.number().int().min(1) }),
      errors: ["pipeline.not_found"],
    }, async (c, { actor, workspace, params }) => {
      const back = `/pipelines/${params.id}`;
      try {
        const move = verb === "restore"
          ? deps.pipelines.restore
          : verb === "discard"
          ? deps.pipelines.discard
          : deps.pipelines.switchCurrent;
        await move.call(deps.pipelines, op({ actor, workspace }), params.id, params.version);
        return c.redirect(`${back}?moved=${verb}-${params.version}`, 303);
      } catch (e) {
        if (!(e instanceof AppError) || e.status >= 500 || e.status === 403) {
          throw e;
        }
        return c.redirect(
          `${back}?error=${encodeURIComponent(`${e.code}: ${e.userMessage}`)}`,
          303,
        );
      }
    });
  versionMove("restore", "Restore a discarded version", "content.write_session");
  versionMove("discard", "Discard a released version", "content.write_session");
  versionMove("current", "Make a released version the current one", "versions.switch");
}
