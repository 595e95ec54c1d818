import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import type { EditorError } from "./template_editor.tsx";
import { BodyHash, type Conflict, FormError, SaveConflict } from "../components/save_conflict.tsx";
import { draftFields, FormActions, InputField, TextareaField } from "../components/field.tsx";
import { PageHead } from "../components/page_head.tsx";
import { PipelineForm } from "../components/pipeline_form.tsx";
import { editorTitle, ReadOnly, ReadOnlyNote } from "../components/read_only.tsx";

export interface PipelineDraft {
  name: string;
  display_name: string;
  description: string;
  /** `{parameters, nodes, settings, checks}` as pretty JSON. */
  spec: string;
}

export interface PipelineEditorProps {
  ctx: ShellContext;
  mode: "new" | "edit";
  /** The pipeline's id when editing. */
  id?: string;
  draft: PipelineDraft;
  /** What the form view shows: the draft's spec when it parses, else the last one that did. */
  form: { spec: Record<string, unknown>; base: string };
  /** Datasource names and template ids the fields suggest. */
  choices: { datasources: string[]; templates: string[]; parameterTypes: readonly string[] };
  bodyHash?: string;
  /** A refusal; `form_field` is the form field it lands on when the form shows that field. */
  error?: EditorError & { node_id?: string; form_field?: string; detail?: string };
  conflict?: Conflict & { spec: string };
  /** A member who may read but not author: every control shown, none usable. */
  readOnly?: boolean;
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
  const ro = props.readOnly === true;
  const title = editorTitle("pipeline", props.mode, ro, draft.name);
  // Of the fields above the graph only the name shows its refusal under it, as it always has.
  const { bind } = draftFields("p", draft, error?.field === "name" ? error : undefined);
  // A refusal of the graph shows on the JSON too (the whole truth); the view that opens first is
  // the form when the form has the field it names.
  const specError = error &&
    (error.field === "spec" || error.node_id !== undefined ||
      (error.field !== undefined && error.field !== "name"));
  const jsonFirst = Boolean(specError) && !error?.form_field;
  const tabs = [["form", "Form", !jsonFirst], ["json", "JSON", jsonFirst]] as const;
  return (
    <AppShell title={title} nav="pipelines" ctx={props.ctx} editor="/js/pipeline_editor.js">
      <PageHead
        trail={[["/pipelines", "Pipelines"], props.id && [`/pipelines/${props.id}`, draft.name]]}
        title={title}
      >
        <p>
          Nodes read from datasources or{" "}
          <code>tempdb</code>, stage into tempdb, and one node delivers the result.
        </p>
      </PageHead>
      {ro && props.id && <ReadOnlyNote noun="pipeline" back={`/pipelines/${props.id}`} />}
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
        <SaveConflict noun="pipeline" conflict={props.conflict} text={props.conflict.spec} />
      )}
      <form
        method="post"
        action={props.id ? `/partials/pipelines/${props.id}/save` : "/partials/pipelines/create"}
        class="card editor-form"
        data-pipeline-editor
        data-page-url={props.id ? `/pipelines/${props.id}/edit` : "/pipelines/new"}
        novalidate
        data-read-only={ro ? "true" : undefined}
      >
        {/* Enter in a field saves: the first submit button is the form's default. */}
        {!ro && <button type="submit" class="sr-only" tabindex={-1}>Save</button>}
        <input type="hidden" name="_csrf" value={props.ctx.csrf} />
        {/* Set by the script: "form" or "json", the view typed in last. */}
        <input type="hidden" name="last_edit" value="" />
        <BodyHash hash={props.bodyHash} conflict={props.conflict} />
        <div class="body">
          <ReadOnly on={ro}>
            <div class="grid cols-3">
              <InputField
                {...bind("name")}
                label="Name (folder path)"
                input={{
                  required: true,
                  class: "mono",
                  placeholder: "sales/daily_orders",
                  readOnly: props.mode === "edit",
                }}
              />
              <InputField {...bind("display_name", "display")} label="Display name" />
              <InputField {...bind("description")} label="Description" />
            </div>
          </ReadOnly>
        </div>
        <div class="tabs" role="tablist" aria-label="Edit the graph as" data-tabs hidden>
          {tabs.map(([view, label, first]) => (
            <button
              type="button"
              role="tab"
              key={view}
              id={`tab-${view}`}
              aria-controls={`panel-${view}`}
              aria-selected={first ? "true" : "false"}
            >
              {label}
            </button>
          ))}
        </div>
        <div class="body panel" id="panel-form" role="tabpanel" aria-labelledby="tab-form">
          <ReadOnly on={ro}>
            <PipelineForm
              spec={props.form.spec}
              base={props.form.base}
              datasources={props.choices.datasources}
              templates={props.choices.templates}
              parameterTypes={props.choices.parameterTypes}
              error={error?.form_field
                ? { field: error.form_field, message: error.detail ?? error.message }
                : undefined}
            />
          </ReadOnly>
        </div>
        <div class="body panel" id="panel-json" role="tabpanel" aria-labelledby="tab-json">
          <ReadOnly on={ro}>
            <TextareaField
              id="p-spec"
              label="Parameters, nodes, settings and checks (JSON)"
              hint="The whole graph, including what the form does not show: release checks, parameter bounds, calculators."
              name="spec"
              value={draft.spec}
              textarea={{
                rows: 22,
                spellcheck: false,
                "data-editor": "json",
                "aria-invalid": specError ? "true" : undefined,
                "aria-describedby": "p-spec-hint p-spec-error",
              }}
            />
            <span class="error spec-error" id="p-spec-error" role={specError ? "alert" : undefined}>
              {specError && <SpecError error={error!} />}
            </span>
          </ReadOnly>
        </div>
        {!ro && (
          <div class="body">
            <FormActions
              submit={props.mode === "new" ? "Create draft" : "Save draft"}
              cancel={props.id ? `/pipelines/${props.id}` : "/pipelines"}
            />
          </div>
        )}
      </form>
    </AppShell>
  );
}
