import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import type { EditorError } from "./template_editor.tsx";
import { FormError, SaveConflict } from "../components/save_conflict.tsx";
import { Field } from "../components/field.tsx";
import { PipelineForm } from "../components/pipeline_form.tsx";

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
  /** What the form view shows: the draft's spec when it parses, else the last one that did. */
  form: { spec: Record<string, unknown>; base: string };
  /** Datasource names and template ids the fields suggest. */
  choices: { datasources: string[]; templates: string[] };
  bodyHash?: string;
  /** A refusal; `form_field` is the form field it lands on when the form shows that field. */
  error?: EditorError & { node_id?: string; form_field?: string; detail?: string };
  conflict?: { version: number; status: string; author: string; spec: string; body_hash: string };
}

/** A new pipeline's starting point: one read delivered to the caller. */
export const STARTER_SPEC = {
  parameters: {},
  nodes: [{ id: "result", type: "DQL", source: "tempdb", sql: "SELECT 1 AS answer" }],
};

function SpecError(props: { error: NonNullable<PipelineEditorProps["error"]> }) {
  const { error } = props;
  return (
    <>
      {error.node_id && (
        <>
          Node <span class="mono">{error.node_id}</span>:{" "}
        </>
      )}
      {error.field && error.field !== "spec" && (
        <>
          field <span class="mono">{error.field}</span>:{" "}
        </>
      )}
      {error.message}
      {error.detail && ` ${error.detail}.`} <span class="mono">({error.code})</span>
    </>
  );
}

/**
 * `/pipelines/new` and `/pipelines/{id}/edit`: names as fields, then the graph twice — as a form
 * (parameters, nodes, settings) and as raw JSON — kept in step by `/js/pipeline_editor.js`.
 * Without the script both views show one under the other and a save takes whichever changed.
 */
export function PipelineEditorPage(props: PipelineEditorProps) {
  const { draft, error } = props;
  const title = props.mode === "new" ? "New pipeline" : `Edit ${draft.name}`;
  const nameError = error?.field === "name" ? error.message : undefined;
  // A refusal of the graph shows on the JSON too (the whole truth); the view that opens first is
  // the form when the form has the field it names.
  const specError = error &&
    (error.field === "spec" || error.node_id !== undefined ||
      (error.field !== undefined && error.field !== "name"));
  const jsonFirst = Boolean(specError) && !error?.form_field;
  return (
    <AppShell title={title} nav="pipelines" ctx={props.ctx} importMap={props.importMap}>
      <script type="module" src="/js/pipeline_editor.js"></script>
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
            <code>tempdb</code>, stage into tempdb, and one node delivers the result.
          </p>
        </div>
      </div>
      {error && !error.field && !error.node_id && !props.conflict && (
        <FormError code={error.code} message={error.message} />
      )}
      {error?.form_field && (
        <div class="banner error">
          <SpecError error={error} />{" "}
          <a href={`#${error.form_field.replaceAll(".", "-")}`}>Go to the field</a>
        </div>
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
        data-pipeline-editor
        novalidate
      >
        {/* Enter in a field saves: the first submit button is the form's default. */}
        <button type="submit" class="sr-only" tabindex={-1}>Save</button>
        <input type="hidden" name="_csrf" value={props.ctx.csrf} />
        {/* Set by the script: "form" or "json", the view typed in last. */}
        <input type="hidden" name="last_edit" value="" />
        {props.bodyHash && (
          <input
            type="hidden"
            name="body_hash"
            value={props.conflict?.body_hash ?? props.bodyHash}
          />
        )}
        <div class="body">
          <div class="grid cols-3">
            <Field id="p-name" label="Name (folder path)" error={nameError}>
              {(a) => (
                <input
                  {...a}
                  name="name"
                  value={draft.name}
                  required
                  class="mono"
                  placeholder="sales/daily_orders"
                  readOnly={props.mode === "edit"}
                />
              )}
            </Field>
            <Field id="p-display" label="Display name">
              {(a) => <input {...a} name="display_name" value={draft.display_name} />}
            </Field>
            <Field id="p-description" label="Description">
              {(a) => <input {...a} name="description" value={draft.description} />}
            </Field>
          </div>
        </div>
        <div class="tabs" role="tablist" aria-label="Edit the graph as" data-tabs hidden>
          <button
            type="button"
            role="tab"
            id="tab-form"
            aria-controls="panel-form"
            aria-selected={jsonFirst ? "false" : "true"}
          >
            Form
          </button>
          <button
            type="button"
            role="tab"
            id="tab-json"
            aria-controls="panel-json"
            aria-selected={jsonFirst ? "true" : "false"}
          >
            JSON
          </button>
        </div>
        <div class="body panel" id="panel-form" role="tabpanel" aria-labelledby="tab-form">
          <PipelineForm
            spec={props.form.spec}
            base={props.form.base}
            datasources={props.choices.datasources}
            templates={props.choices.templates}
            error={error?.form_field
              ? { field: error.form_field, message: error.detail ?? error.message }
              : undefined}
          />
        </div>
        <div class="body panel" id="panel-json" role="tabpanel" aria-labelledby="tab-json">
          <Field
            id="p-spec"
            label="Parameters, nodes, settings and checks (JSON)"
            hint="The whole graph, including what the form does not show: release checks, parameter bounds, calculators."
          >
            {(a) => (
              <textarea
                {...a}
                name="spec"
                rows={22}
                spellcheck={false}
                data-editor="json"
                aria-invalid={specError ? "true" : undefined}
                aria-describedby="p-spec-hint p-spec-error"
              >
                {draft.spec}
              </textarea>
            )}
          </Field>
          <span class="error spec-error" id="p-spec-error" role={specError ? "alert" : undefined}>
            {specError && <SpecError error={error!} />}
          </span>
        </div>
        <div class="body">
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
