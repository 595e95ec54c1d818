import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import type { EditorError } from "./template_editor.tsx";
import { FormError } from "../components/save_conflict.tsx";
import { PageHead } from "../components/page_head.tsx";
import {
  CheckField,
  draftFields,
  FormActions,
  InputField,
  SelectField,
} from "../components/field.tsx";

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
  const { bind, on } = draftFields("d", draft, error);
  return (
    <AppShell title={title} nav="datasources" ctx={props.ctx}>
      <PageHead trail={[["/datasources", "Datasources"]]} title={title}>
        <p>
          Bound to this workspace. The password is stored encrypted and never shown again.
        </p>
      </PageHead>
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
            <InputField
              {...bind("name")}
              label="Name"
              hint={props.mode === "edit" ? "A datasource keeps its name" : undefined}
              input={{
                required: true,
                class: "mono",
                disabled: props.mode === "edit",
                placeholder: "sales_db",
              }}
            />
            <InputField {...bind("display_name", "display")} label="Display name" />
            <SelectField
              {...bind("dialect")}
              label="Dialect"
              options={props.dialects.map((d) => [d, d])}
            />
            <InputField
              {...bind("jdbc_url", "url")}
              label="JDBC URL"
              input={{
                required: true,
                class: "mono",
                placeholder: "jdbc:postgresql://db.internal:5432/sales",
              }}
            />
            <InputField
              {...bind("username", "user")}
              label="Username"
              input={{ autocomplete: "off" }}
            />
            <InputField
              id="d-password"
              label="Password"
              error={on("password")}
              hint={props.passwordSet
                ? "A password is stored. Leave this empty to keep it."
                : "Write-only: it is stored encrypted and never shown again."}
              input={{ name: "password", type: "password", autocomplete: "new-password" }}
            />
          </div>
          <CheckField
            id="d-readonly"
            name="readonly"
            checked={draft.readonly}
            error={on("readonly")}
            label="Read-only: pipelines may read but never write through it"
          />
          <FormActions
            submit={props.mode === "new" ? "Register" : "Save"}
            cancel={props.mode === "new" ? "/datasources" : `/datasources/${draft.name}`}
          />
        </div>
      </form>
    </AppShell>
  );
}
