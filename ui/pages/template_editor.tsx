import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { BodyHash, type Conflict, FormError, SaveConflict } from "../components/save_conflict.tsx";
import {
  draftFields,
  Field,
  FormActions,
  InputField,
  SelectField,
  TextareaField,
} from "../components/field.tsx";
import { PageHead } from "../components/page_head.tsx";
import { editorTitle, ReadOnly, ReadOnlyNote } from "../components/read_only.tsx";

export interface TemplateDraft {
  id: string;
  display_name: string;
  description: string;
  dialect: string;
  body: string;
  /** `alias = id@version`, one per line. */
  imports: string;
}

export interface EditorError {
  /** The form field the error belongs to; absent for the form as a whole. */
  field?: string;
  code: string;
  message: string;
}

export interface TemplateEditorProps {
  ctx: ShellContext;
  mode: "new" | "edit";
  draft: TemplateDraft;
  /** The hash the edit started from (If-Match); absent when creating. */
  bodyHash?: string;
  dialects: readonly string[];
  error?: EditorError;
  /** On a conflicting save: the version someone else saved, to compare with yours. */
  conflict?: Conflict & { body: string };
  /** A member who may read but not author: every control shown, none usable. */
  readOnly?: boolean;
}

/** `/templates/new` and `/templates/edit?id=`: the whole template in one form. */
export function TemplateEditorPage(props: TemplateEditorProps) {
  const { draft, error } = props;
  const ro = props.readOnly === true;
  const title = editorTitle("template", props.mode, ro, draft.id);
  const { bind, on } = draftFields("t", draft, error);
  const view = `/templates/view?id=${encodeURIComponent(draft.id)}`;
  return (
    <AppShell title={title} nav="templates" ctx={props.ctx} editor="/js/editor.js">
      <PageHead
        trail={[["/templates", "Templates"], props.mode === "edit" && [view, draft.id]]}
        title={title}
      >
        <p>
          Liquid SQL: refer to parameters as <code>:name</code>, test them in{" "}
          <code>{"{% if params.x %}"}</code>, and import released snippets by alias.
        </p>
      </PageHead>
      {ro && <ReadOnlyNote noun="template" back={view} />}
      {error && !error.field && !props.conflict && (
        <FormError code={error.code} message={error.message} />
      )}
      {props.conflict && (
        <SaveConflict noun="template" conflict={props.conflict} text={props.conflict.body} />
      )}
      <form
        method="post"
        action="/partials/templates/save"
        class="card editor-form"
        data-page-url={props.mode === "edit"
          ? `/templates/edit?id=${encodeURIComponent(draft.id)}`
          : "/templates/new"}
      >
        <input type="hidden" name="_csrf" value={props.ctx.csrf} />
        <input type="hidden" name="mode" value={props.mode} />
        <BodyHash hash={props.bodyHash} conflict={props.conflict} />
        <div class="body">
          <ReadOnly on={ro}>
            <div class="grid cols-2">
              <Field id="t-id" error={on("id")} label="Id (folder path)">
                {(a) =>
                  props.mode === "new"
                    ? (
                      <input
                        {...a}
                        name="id"
                        value={draft.id}
                        required
                        class="mono"
                        placeholder="sales/orders/by_region"
                      />
                    )
                    : (
                      <>
                        <input {...a} value={draft.id} class="mono" readOnly />
                        <input type="hidden" name="id" value={draft.id} />
                      </>
                    )}
              </Field>
              <InputField
                {...bind("display_name", "name")}
                label="Display name"
                input={{ required: true }}
              />
              <SelectField
                {...bind("dialect")}
                label="Dialect"
                hint={props.mode === "edit" ? "Fixed when the template was created" : undefined}
                select={{ disabled: props.mode === "edit" }}
                options={props.dialects.map((d) => [d, d.toLowerCase()])}
              />
              {/* A disabled select sends nothing; the fixed dialect still travels with the form. */}
              {props.mode === "edit" && (
                <input
                  type="hidden"
                  name="dialect"
                  value={draft.dialect}
                />
              )}
              <InputField {...bind("description")} label="Description" />
            </div>
            <TextareaField
              {...bind("body")}
              label="Body"
              textarea={{ rows: 16, spellcheck: false, "data-editor": "sql" }}
            />
            <TextareaField
              {...bind("imports")}
              label="Imports"
              hint="One per line: alias = template id@version (a released version)."
              textarea={{ rows: 3, spellcheck: false, placeholder: "alias = folder/template@1" }}
            />
          </ReadOnly>
          {ro ? <ReadPreview view={view} /> : (
            <div class="field">
              <span class="label">Preview</span>
              {/* Renders the text as it stands, as typing pauses; the saved version is untouched. */}
              <div
                id="preview"
                class="preview"
                aria-live="polite"
                hx-post="/partials/templates/preview"
                hx-include="closest form"
                hx-trigger="load, keyup delay:700ms from:body, change from:body"
              >
                <div class="empty">The rendered SQL appears here.</div>
              </div>
            </div>
          )}
          {!ro && (
            <FormActions
              submit={props.mode === "new" ? "Create draft" : "Save draft"}
              cancel={props.mode === "new" ? "/templates" : view}
            />
          )}
        </div>
      </form>
    </AppShell>
  );
}

/** The live preview renders unsaved text, an author's act; a reader has the saved rendering. */
function ReadPreview(props: { view: string }) {
  return (
    <p class="muted small read-preview">
      The rendered SQL of the saved version is on <a href={props.view}>the template's page</a>.
    </p>
  );
}
