import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import type { EditorError } from "./template_editor.tsx";
import { FormError } from "../components/save_conflict.tsx";
import { CheckField, Field } from "../components/field.tsx";

export interface DatasourceDraft {
  name: string;
  display_name: string;
  dialect: string;
  jdbc_url: string;
  username: string;
  readonly: boolean;
}

/**
 * `/datasources/new` and `/datasources/{name}/edit`. The password is write-only: the field is
 * always empty, and leaving it empty on an edit keeps the stored secret.
 */
export function DatasourceFormPage(props: {
  ctx: ShellContext;
  mode: "new" | "edit";
  draft: DatasourceDraft;
  dialects: readonly string[];
  passwordSet?: boolean;
  error?: EditorError;
}) {
  const { draft, error } = props;
  const title = props.mode === "new" ? "Register a datasource" : `Edit ${draft.name}`;
  const err = (field: string) => error?.field === field ? error.message : undefined;
  return (
    <AppShell title={title} nav="datasources" ctx={props.ctx}>
      <div class="page-head">
        <div>
          <div class="crumbs">
            <a href="/datasources">Datasources</a>
          </div>
          <h1>{title}</h1>
          <p>
            Bound to this workspace. The password is stored encrypted and never shown again.
          </p>
        </div>
      </div>
      {error && !error.field && <FormError code={error.code} message={error.message} />}
      <form
        method="post"
        action={props.mode === "new"
          ? "/partials/datasources/create"
          : `/partials/datasources/${draft.name}/save`}
        class="card editor-form"
      >
        <input type="hidden" name="_csrf" value={props.ctx.csrf} />
        <div class="body">
          <div class="grid cols-2">
            <Field
              id="d-name"
              label="Name"
              error={err("name")}
              hint={props.mode === "edit" ? "A datasource keeps its name" : undefined}
            >
              {(a) => (
                <input
                  {...a}
                  name="name"
                  value={draft.name}
                  required
                  class="mono"
                  disabled={props.mode === "edit"}
                  placeholder="sales_db"
                />
              )}
            </Field>
            <Field id="d-display" label="Display name" error={err("display_name")}>
              {(a) => <input {...a} name="display_name" value={draft.display_name} />}
            </Field>
            <Field id="d-dialect" label="Dialect" error={err("dialect")}>
              {(a) => (
                <select {...a} name="dialect">
                  {props.dialects.map((d) => (
                    <option key={d} value={d} selected={d === draft.dialect}>{d}</option>
                  ))}
                </select>
              )}
            </Field>
            <Field id="d-url" label="JDBC URL" error={err("jdbc_url")}>
              {(a) => (
                <input
                  {...a}
                  name="jdbc_url"
                  value={draft.jdbc_url}
                  required
                  class="mono"
                  placeholder="jdbc:postgresql://db.internal:5432/sales"
                />
              )}
            </Field>
            <Field id="d-user" label="Username" error={err("username")}>
              {(a) => <input {...a} name="username" value={draft.username} autocomplete="off" />}
            </Field>
            <Field
              id="d-password"
              label="Password"
              error={err("password")}
              hint={props.passwordSet
                ? "A password is stored. Leave this empty to keep it."
                : "Write-only: it is stored encrypted and never shown again."}
            >
              {(a) => (
                <input
                  {...a}
                  name="password"
                  type="password"
                  autocomplete="new-password"
                />
              )}
            </Field>
          </div>
          <CheckField
            id="d-readonly"
            name="readonly"
            checked={draft.readonly}
            error={err("readonly")}
            label="Read-only: pipelines may read but never write through it"
          />
          <div class="actions">
            <button type="submit" class="primary">
              {props.mode === "new" ? "Register" : "Save"}
            </button>
            <a
              class="btn ghost"
              href={props.mode === "new" ? "/datasources" : `/datasources/${draft.name}`}
            >
              Cancel
            </a>
          </div>
        </div>
      </form>
    </AppShell>
  );
}
