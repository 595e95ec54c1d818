import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { FormError, SaveConflict } from "../components/save_conflict.tsx";
import { Field } from "../components/field.tsx";

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
  /** The import map the code editor's modules resolve through. */
  importMap?: string;
  mode: "new" | "edit";
  draft: TemplateDraft;
  /** The hash the edit started from (If-Match); absent when creating. */
  bodyHash?: string;
  dialects: readonly string[];
  error?: EditorError;
  /** On a conflicting save: the version someone else saved, to compare with yours. */
  conflict?: { version: number; status: string; author: string; body: string; body_hash: string };
}

/** `/templates/new` and `/templates/edit?id=`: the whole template in one form. */
export function TemplateEditorPage(props: TemplateEditorProps) {
  const { draft, error } = props;
  const title = props.mode === "new" ? "New template" : `Edit ${draft.id}`;
  const err = (field: string) => error?.field === field ? error.message : undefined;
  return (
    <AppShell title={title} nav="templates" ctx={props.ctx} importMap={props.importMap}>
      <script type="module" src="/js/editor.js"></script>
      <div class="page-head">
        <div>
          <div class="crumbs">
            <a href="/templates">Templates</a>
            {props.mode === "edit" && (
              <>
                {" / "}
                <a href={`/templates/view?id=${encodeURIComponent(draft.id)}`}>{draft.id}</a>
              </>
            )}
          </div>
          <h1>{title}</h1>
          <p>
            Liquid SQL: refer to parameters as <code>:name</code>, test them in{" "}
            <code>{"{% if params.x %}"}</code>, and import released snippets by alias.
          </p>
        </div>
      </div>
      {error && !error.field && !props.conflict && (
        <FormError code={error.code} message={error.message} />
      )}
      {props.conflict && (
        <SaveConflict
          noun="template"
          version={props.conflict.version}
          status={props.conflict.status}
          author={props.conflict.author}
          text={props.conflict.body}
        />
      )}
      <form method="post" action="/partials/templates/save" class="card editor-form">
        <input type="hidden" name="_csrf" value={props.ctx.csrf} />
        <input type="hidden" name="mode" value={props.mode} />
        {props.bodyHash && (
          <input
            type="hidden"
            name="body_hash"
            value={props.conflict?.body_hash ?? props.bodyHash}
          />
        )}
        <div class="body">
          <div class="grid cols-2">
            <Field id="t-id" label="Id (folder path)" error={err("id")}>
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
            <Field id="t-name" label="Display name" error={err("display_name")}>
              {(a) => <input {...a} name="display_name" value={draft.display_name} required />}
            </Field>
            <Field
              id="t-dialect"
              label="Dialect"
              error={err("dialect")}
              hint={props.mode === "edit" ? "Fixed when the template was created" : undefined}
            >
              {(a) => (
                <>
                  <select {...a} name="dialect" disabled={props.mode === "edit"}>
                    {props.dialects.map((d) => (
                      <option key={d} value={d} selected={d === draft.dialect}>
                        {d.toLowerCase()}
                      </option>
                    ))}
                  </select>
                  {props.mode === "edit" && (
                    <input type="hidden" name="dialect" value={draft.dialect} />
                  )}
                </>
              )}
            </Field>
            <Field id="t-description" label="Description" error={err("description")}>
              {(a) => <input {...a} name="description" value={draft.description} />}
            </Field>
          </div>
          <Field id="t-body" label="Body" error={err("body")}>
            {(a) => (
              <textarea {...a} name="body" rows={16} spellcheck={false} data-editor="sql">
                {draft.body}
              </textarea>
            )}
          </Field>
          <Field
            id="t-imports"
            label="Imports"
            hint="One per line: alias = template id@version (a released version)."
            error={err("imports")}
          >
            {(a) => (
              <textarea
                {...a}
                name="imports"
                rows={3}
                spellcheck={false}
                placeholder="alias = folder/template@1"
              >
                {draft.imports}
              </textarea>
            )}
          </Field>
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
          <div class="actions">
            <button type="submit" class="primary">
              {props.mode === "new" ? "Create draft" : "Save draft"}
            </button>
            <a
              class="btn ghost"
              href={props.mode === "new"
                ? "/templates"
                : `/templates/view?id=${encodeURIComponent(draft.id)}`}
            >
              Cancel
            </a>
          </div>
        </div>
      </form>
    </AppShell>
  );
}
