/**
 * The pipeline editor in the browser: the pages, the create and save posts, and the partial that
 * redraws the form view — all over the same pipeline service as REST. A refused save re-renders
 * the editor with the author's text, the error placed on the form field or JSON it names; a
 * conflicting save (If-Match) shows the other author's version beside it.
 */
import { z } from "zod";
import { renderToString } from "preact-render-to-string";
import { AppError } from "../../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import { PARAMETER_TYPES } from "../../pipelines/mod.ts";
import { PipelineForm } from "../../../ui/components/pipeline_form.tsx";
import {
  type PipelineDraft,
  PipelineEditorPage,
  type PipelineEditorProps,
  STARTER_SPEC,
} from "../../../ui/pages/pipeline_editor.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import type { Router } from "../routing.ts";
import {
  applyOp,
  canonical,
  formFieldOf,
  parseSpec,
  type Spec,
  specFromForm,
  specFromPost,
} from "./pipeline_form.ts";
import {
  allows,
  formPost,
  pageRoute,
  rethrowUnlessRefusal,
  shellContext,
  type UiPageDeps,
  userNames,
} from "./shell.ts";

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

/** The pipeline body a draft describes: its spec with the names from their own fields. */
function bodyOf(draft: PipelineDraft, spec: Spec): Record<string, unknown> {
  return {
    ...spec,
    name: draft.name,
    ...(draft.display_name ? { display_name: draft.display_name } : {}),
    ...(draft.description ? { description: draft.description } : {}),
  };
}

/** Where a refusal lands: the name, a form field, or the JSON editor. */
function placed(e: AppError, spec: Spec | undefined): NonNullable<PipelineEditorProps["error"]> {
  const d = e.details as Record<string, unknown>;
  const nodeId = typeof d.node_id === "string" ? d.node_id : undefined;
  const field = typeof d.field === "string"
    ? d.field
    : /name_invalid|duplicate_name/.test(e.code)
    ? "name"
    : /validation|cycle|graph|node|parameter|reference|datasource|template/.test(e.code)
    ? "spec"
    : undefined;
  const formField = spec && field !== "name" && field !== undefined
    ? formFieldOf(spec, d, e.code)
    : undefined;
  return {
    code: e.code,
    message: e.userMessage,
    detail: detailOf(d),
    field: nodeId ? field ?? "spec" : field,
    node_id: nodeId,
    form_field: formField,
  };
}

/** What exactly is wrong, in words an author acts on: the refusal's reason and its subject. */
function detailOf(d: Record<string, unknown>): string | undefined {
  if (typeof d.reason !== "string") return undefined;
  const reason = /^[a-z_]+$/.test(d.reason) ? d.reason.replaceAll("_", " ") : d.reason;
  const subject = [d.dependency, d.datasource, d.template_id].find((v) => typeof v === "string");
  const at = typeof d.line === "number" ? `line ${d.line}, column ${d.column}: ` : "";
  const text = at + (subject ? `${reason}: ${subject}` : reason);
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The form view of a spec text: the text itself when it parses, else `fallback`. */
function formOf(text: string, fallback?: Spec): PipelineEditorProps["form"] {
  let spec: Spec;
  try {
    spec = parseSpec(text);
  } catch {
    spec = fallback ?? { nodes: [] };
  }
  return { spec, base: JSON.stringify(spec) };
}

/** Who acts, where: the handler's actor and the workspace the route guarantees. */
interface At {
  actor: Principal;
  workspace: WorkspaceContext;
}

type EditorInput = Omit<PipelineEditorProps, "ctx" | "choices" | "form"> & {
  form?: PipelineEditorProps["form"];
};

export function pipelineEditorRoutes(router: Router, deps: UiPageDeps): void {
  const choices = async (at: At) => {
    const [sources, templates] = await Promise.all([
      deps.content.datasources.list(at.actor, at.workspace, { offset: 0, limit: 500 }),
      deps.content.templates.list(at.workspace.id, {}, { offset: 0, limit: 500 }),
    ]);
    return {
      datasources: sources.items.map((d) => d.name),
      // deno-lint-ignore no-explicit-any
      templates: templates.items.map((t: any) => String(t.id ?? t.name)),
      parameterTypes: PARAMETER_TYPES,
    };
  };
  const editor = async (c: AppContext, at: At, props: EditorInput, status = 200) => {
    const [ctx, lists] = await Promise.all([shellContext(c, deps, at.actor), choices(at)]);
    return c.html(
      renderPage(
        <PipelineEditorPage
          ctx={ctx}
          choices={lists}
          form={props.form ?? formOf(props.draft.spec)}
          {...props}
        />,
      ),
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

  /**
   * What a post means: the spec it settles on (and the JSON text to show for it: the author's
   * own when the JSON side won), or the refusal to show with the author's text kept.
   */
  const readPost = (f: Record<string, string>) => {
    const draft = draftOf(f);
    const spec = specFromPost(f);
    let same = false;
    try {
      same = canonical(JSON.parse(draft.spec)) === canonical(spec);
    } catch { /* the form's side won */ }
    if (!same) draft.spec = JSON.stringify(spec, null, 2);
    return { draft, spec };
  };
  const lastGood = (f: Record<string, string>): Spec | undefined => {
    try {
      return parseSpec(f.spec_base ?? "");
    } catch {
      return undefined;
    }
  };

  router.add(
    pageRoute({
      method: "get",
      path: "/pipelines/new",
      summary: "The editor for a new pipeline",
      access: "content.write",
    }),
    (c, { actor, workspace }) =>
      editor(c, { actor, workspace }, {
        mode: "new",
        draft: {
          name: "",
          display_name: "",
          description: "",
          spec: JSON.stringify(STARTER_SPEC, null, 2),
        },
      }),
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/pipelines/:id/edit",
      summary: "The editor for a pipeline's working version; read-only without author",
      // The pipeline editor page needs the execute operation (docs/decisions.md#viewers-may-run).
      access: "pipelines.execute",
      params: id,
      errors: ["pipeline.not_found"],
    }),
    async (c, { actor, workspace, params }) => {
      // deno-lint-ignore no-explicit-any
      const v: any = await deps.content.pipelines.get(workspace.id, params.id);
      return editor(c, { actor, workspace }, {
        mode: "edit",
        readOnly: !allows({ actor, workspace }, "content.write"),
        id: params.id,
        bodyHash: v.body_hash,
        draft: {
          name: v.name,
          display_name: v.display_name ?? "",
          description: v.description ?? "",
          spec: specOf(v),
        },
      });
    },
  );

  const refused = async (
    c: AppContext,
    at: At,
    e: unknown,
    props: Omit<EditorInput, "error">,
    spec: Spec | undefined,
  ) => {
    rethrowUnlessRefusal(e);
    if (e.code === "pipeline.version.conflict" && props.id) {
      // deno-lint-ignore no-explicit-any
      const theirs: any = await deps.content.pipelines.get(at.workspace.id, props.id);
      const versions = await deps.content.pipelines.versions(at.workspace.id, props.id);
      const latest = versions.find((v) => v.version === theirs.version);
      const names = await userNames(deps, latest ? [latest.updated_by] : []);
      return editor(c, at, {
        ...props,
        error: placed(e, spec),
        conflict: {
          version: theirs.version,
          status: theirs.status,
          author: (latest && names.get(latest.updated_by)) ?? "someone",
          spec: specOf(theirs),
          body_hash: theirs.body_hash,
        },
      }, 409);
    }
    return editor(c, at, { ...props, error: placed(e, spec) }, e.status);
  };

  /** Create and save share one flow: a shape edit redraws, anything else goes to the service. */
  const post = (mode: "new" | "edit") =>
  async (
    c: AppContext,
    at: At,
    f: Record<string, string>,
    pipelineId?: string,
  ) => {
    const base = { mode, id: pipelineId, bodyHash: f.body_hash };
    let read: { draft: PipelineDraft; spec: Spec };
    try {
      read = readPost(f);
    } catch (e) {
      const fallback = lastGood(f);
      return await refused(c, at, e, {
        ...base,
        draft: draftOf(f),
        form: formOf(f.spec ?? "", fallback),
      }, undefined);
    }
    if (f.op) {
      // Add or remove a parameter or node without the script: the page comes back reshaped.
      const spec = applyOp(read.spec, f.op);
      const draft = { ...read.draft, spec: JSON.stringify(spec, null, 2) };
      return await editor(c, at, { ...base, draft });
    }
    const form = { spec: read.spec, base: JSON.stringify(read.spec) };
    try {
      const body = bodyOf(read.draft, read.spec);
      const saved = pipelineId
        ? await deps.content.pipelines.update(op(at), pipelineId, f.body_hash, body)
        : await deps.content.pipelines.create(op(at), body);
      return c.redirect(`/pipelines/${pipelineId ?? saved.id}?saved=1`, 303);
    } catch (e) {
      return await refused(c, at, e, { ...base, draft: read.draft, form }, read.spec);
    }
  };
  const create = post("new");
  const save = post("edit");

  formPost(router, {
    path: "/partials/pipelines/create",
    summary: "Create a pipeline from the editor form",
    access: "content.write",
  }, (c, { actor, workspace }, f) => create(c, { actor, workspace }, f));

  formPost(router, {
    path: "/partials/pipelines/:id/save",
    summary: "Save a pipeline's draft from the editor form",
    access: "content.write",
    params: id,
    errors: ["pipeline.not_found"],
  }, (c, { actor, workspace, params }, f) => save(c, { actor, workspace }, f, params.id));

  formPost(router, {
    path: "/partials/pipelines/editor/form",
    summary: "The editor's form view redrawn from its JSON or its own fields",
    access: "content.write",
  }, async (c, { actor, workspace }, f) => {
    let spec: Spec;
    try {
      // `from=json`: the author is typing JSON (half-typed JSON leaves the form as it is).
      // A shape edit applies to the view typed in last, as a save would read it.
      spec = f.from === "json"
        ? parseSpec(f.spec ?? "")
        : f.op
        ? specFromPost(f)
        : specFromForm(f, parseSpec(f.spec_base ?? ""));
    } catch {
      return c.body(null, 204);
    }
    if (f.op) spec = applyOp(spec, f.op);
    const lists = await choices({ actor, workspace });
    return c.html(renderToString(
      <PipelineForm
        spec={spec}
        base={JSON.stringify(spec)}
        specJson={JSON.stringify(spec, null, 2)}
        datasources={lists.datasources}
        templates={lists.templates}
        parameterTypes={lists.parameterTypes}
      />,
    ));
  });
}
