import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import type { EditorError } from "./template_editor.tsx";
import { FormError } from "../components/save_conflict.tsx";

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
  const invalid = (field: string) => error?.field === field ? "true" : undefined;
  const fieldError = (field: string) =>
    error?.field === field && <span class="error" role="alert">{error.message}</span>;
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
            <div class="field">
              <label for="d-name">Name</label>
              <input
                id="d-name"
                name="name"
                value={draft.name}
                required
                disabled={props.mode === "edit"}
                placeholder="sales_db"
                aria-invalid={invalid("name")}
              />
              {fieldError("name")}
            </div>
            <div class="field">
              <label for="d-display">Display name</label>
              <input id="d-display" name="display_name" value={draft.display_name} />
              {fieldError("display_name")}
            </div>
            <div class="field">
              <label for="d-dialect">Dialect</label>
              <select id="d-dialect" name="dialect" aria-invalid={invalid("dialect")}>
                {props.dialects.map((d) => (
                  <option key={d} value={d} selected={d === draft.dialect}>{d}</option>
                ))}
              </select>
              {fieldError("dialect")}
            </div>
            <div class="field">
              <label for="d-url">JDBC URL</label>
              <input
                id="d-url"
                name="jdbc_url"
                value={draft.jdbc_url}
                required
                placeholder="jdbc:postgresql://db.internal:5432/sales"
                aria-invalid={invalid("jdbc_url")}
              />
              {fieldError("jdbc_url")}
            </div>
            <div class="field">
              <label for="d-user">Username</label>
              <input id="d-user" name="username" value={draft.username} autocomplete="off" />
              {fieldError("username")}
            </div>
            <div class="field">
              <label for="d-password">Password</label>
              <input
                id="d-password"
                name="password"
                type="password"
                autocomplete="new-password"
                placeholder={props.passwordSet ? "stored — leave empty to keep it" : ""}
                aria-invalid={invalid("password")}
              />
              {fieldError("password")}
            </div>
          </div>
          <div class="field checkbox">
            <label>
              <input type="checkbox" name="readonly" value="true" checked={draft.readonly} />{" "}
              Read-only: pipelines may read but never write through it
            </label>
          </div>
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
