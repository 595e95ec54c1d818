import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import type { EditorError } from "./template_editor.tsx";
import { FormError, SaveConflict } from "../components/save_conflict.tsx";

export interface PipelineDraft {
  name: string;
  display_name: string;
  description: string;
  /** `{parameters, nodes, settings, checks}` as pretty JSON. */
  spec: string;
}

export interface PipelineEditorProps {
  ctx: ShellContext;
  /** The import map the code editor's modules resolve through. */
  importMap?: string;
  mode: "new" | "edit";
  /** The pipeline's id when editing. */
  id?: string;
  draft: PipelineDraft;
  bodyHash?: string;
  error?: EditorError & { node_id?: string };
  conflict?: { version: number; status: string; author: string; spec: string; body_hash: string };
}

/** A new pipeline's starting point: one read delivered to the caller. */
export const STARTER_SPEC = {
  parameters: {},
  nodes: [{ id: "result", type: "DQL", source: "tempdb", sql: "SELECT 1 AS answer" }],
};

/** `/pipelines/new` and `/pipelines/{id}/edit`: names as fields, the graph as JSON. */
export function PipelineEditorPage(props: PipelineEditorProps) {
  const { draft, error } = props;
  const title = props.mode === "new" ? "New pipeline" : `Edit ${draft.name}`;
  const invalid = (field: string) => error?.field === field ? "true" : undefined;
  const specError = error && (error.field === "spec" || error.node_id !== undefined);
  return (
    <AppShell title={title} nav="pipelines" ctx={props.ctx} importMap={props.importMap}>
      <script type="module" src="/js/editor.js"></script>
      <div class="page-head">
        <div>
          <div class="crumbs">
            <a href="/pipelines">Pipelines</a>
            {props.id && (
              <>
                {" / "}
                <a href={`/pipelines/${props.id}`}>{draft.name}</a>
              </>
            )}
          </div>
          <h1>{title}</h1>
          <p>
            Nodes read from datasources or{" "}
            <code>tempdb</code>, stage into tempdb, and one node delivers the result. Templates are
            pinned as <code>{'{"id", "version"}'}</code>.
          </p>
        </div>
      </div>
      {error && !error.field && !error.node_id && !props.conflict && (
        <FormError code={error.code} message={error.message} />
      )}
      {props.conflict && (
        <SaveConflict
          noun="pipeline"
          version={props.conflict.version}
          status={props.conflict.status}
          author={props.conflict.author}
          text={props.conflict.spec}
        />
      )}
      <form
        method="post"
        action={props.id ? `/partials/pipelines/${props.id}/save` : "/partials/pipelines/create"}
        class="card editor-form"
      >
        <input type="hidden" name="_csrf" value={props.ctx.csrf} />
        {props.bodyHash && (
          <input
            type="hidden"
            name="body_hash"
            value={props.conflict?.body_hash ?? props.bodyHash}
          />
        )}
        <div class="body">
          <div class="grid cols-2">
            <div class="field">
              <label for="p-name">Name (folder path)</label>
              <input
                id="p-name"
                name="name"
                value={draft.name}
                required
                placeholder="sales/daily_orders"
                aria-invalid={invalid("name")}
              />
              {error?.field === "name" && <span class="error" role="alert">{error.message}</span>}
            </div>
            <div class="field">
              <label for="p-display">Display name</label>
              <input id="p-display" name="display_name" value={draft.display_name} />
            </div>
          </div>
          <div class="field">
            <label for="p-description">Description</label>
            <input id="p-description" name="description" value={draft.description} />
          </div>
          <div class="field">
            <label for="p-spec">Parameters, nodes, settings and checks (JSON)</label>
            <textarea
              id="p-spec"
              name="spec"
              rows={22}
              spellcheck={false}
              data-editor="json"
              aria-invalid={specError ? "true" : undefined}
              aria-describedby="p-spec-error"
            >
              {draft.spec}
            </textarea>
            <span class="error" id="p-spec-error" role={specError ? "alert" : undefined}>
              {specError && (
                <>
                  {error.node_id && (
                    <>
                      Node <span class="mono">{error.node_id}</span>:
                    </>
                  )}
                  {error.field && error.field !== "spec" && (
                    <>
                      field <span class="mono">{error.field}</span>:{" "}
                    </>
                  )}
                  {error.message} <span class="mono">({error.code})</span>
                </>
              )}
            </span>
          </div>
          <div class="actions">
            <button type="submit" class="primary">
              {props.mode === "new" ? "Create draft" : "Save draft"}
            </button>
            <a class="btn ghost" href={props.id ? `/pipelines/${props.id}` : "/pipelines"}>
              Cancel
            </a>
          </div>
        </div>
      </form>
    </AppShell>
  );
}
