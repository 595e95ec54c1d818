import { SlotForm } from "./slot_form.tsx";
import { CopyText } from "./copy_text.tsx";
import { draftFields, FormActions, InputField, SelectField, TextareaField } from "./field.tsx";

/** The issue form as typed, kept across a refusal. */
export interface KeyDraft {
  name: string;
  kind: string;
  scope: string;
  workspace: string;
  expires_in: string;
  expires_at: string;
  bindings: string;
}

/** A refusal of the issue, placed on the field it concerns when it names one. */
export interface KeyFormError {
  code: string;
  message: string;
  field?: keyof KeyDraft;
}

const KIND_LABELS: Record<string, string> = {
  user: "User: acts with scopes in one workspace",
  endpoint: "Endpoint: calls only the published endpoints it is bound to",
  server: "Server: pushes promotions to this instance",
};

const EXPIRY: [string, string][] = [
  ["never", "Never"],
  ["7d", "In 7 days"],
  ["30d", "In 30 days"],
  ["90d", "In 90 days"],
  ["1y", "In a year"],
  ["custom", "On a date…"],
];

const SCOPES: [string, string][] = [
  ["read", "read: read pipelines, runs and results"],
  ["execute", "execute: read, and run pipelines"],
  ["author", "author: execute, and edit pipelines and templates"],
];

/**
 * The issue form, answered inside `#key-create-slot` (the secret, or the form with its refusal),
 * so the page's address never holds the secret and a reload shows only the list.
 *
 * `back` is where the answer's Done leads, for a form drawn on another page (an endpoint's try-it
 * panel): that page has no key list to refresh, and its visitor returns to it.
 */
export function KeyCreateForm(props: {
  csrf: string;
  draft: KeyDraft;
  error?: KeyFormError;
  kinds: string[];
  workspaces: { name: string; display_name: string; role: string }[];
  back?: string;
  title?: string;
}) {
  const { error } = props;
  const { bind } = draftFields("key", props.draft, error);
  return (
    <SlotForm
      action="/partials/account/api-keys"
      slot="key-create-slot"
      class="key-create editor-form"
      csrf={props.csrf}
      oob={props.back ? undefined : "#key-list"}
    >
      {props.back && <input type="hidden" name="back" value={props.back} />}
      <header>
        <h2>{props.title ?? "Create a key"}</h2>
      </header>
      <div class="body">
        {error && !error.field && <p class="banner error" role="alert">{error.message}</p>}
        <div class="grid cols-2">
          <InputField
            {...bind("name")}
            label="Name"
            hint="What the key is for, so you know which to revoke."
            input={{ required: true, maxLength: 200 }}
          />
          <SelectField
            {...bind("kind")}
            label="Kind"
            options={props.kinds.map((k) => [k, KIND_LABELS[k] ?? k])}
          />
          <SelectField
            {...bind("workspace")}
            label="Workspace"
            hint="The key is pinned to it; it never acts elsewhere."
            options={props.workspaces.map((w) => [w.name, w.display_name])}
          />
          <SelectField
            {...bind("scope")}
            label="Scope (user keys)"
            hint="Each includes the ones before it; never more than your role in the workspace."
            options={SCOPES}
          />
          <SelectField {...bind("expires_in")} label="Expires" options={EXPIRY} />
          <InputField
            {...bind("expires_at")}
            label="Expiry date (with “On a date…”)"
            input={{ type: "date" }}
          />
        </div>
        <TextareaField
          {...bind("bindings")}
          label="Endpoint bindings (endpoint keys)"
          hint="One endpoint path per line, e.g. /shop/{country}; the key reaches that path and all below it."
          textarea={{ rows: 3 }}
        />
        <FormActions submit="Create key" />
      </div>
    </SlotForm>
  );
}

/**
 * The one time a key's secret is shown: in place of the form, with a copy button. The key's name
 * and id ride on the block for a page that uses the key at once (the try-it panel); the secret is
 * only ever in this text.
 */
export function IssuedSecret(
  props: { name: string; id: string; secret: string; back?: string },
) {
  return (
    <div class="issued body" role="status" data-key-name={props.name} data-key-id={props.id}>
      <h2>Key {props.name} created</h2>
      <p class="banner warn">
        Copy the key now: it is shown only this once and cannot be shown again.
      </p>
      <CopyText id="issued-secret" text={props.secret} label="Copy the key" mono />
      <p class="muted small">
        Send it as the <code>SVC-API-Key</code> header. Its id is{" "}
        <span class="mono">{props.id}</span>.
      </p>
      <p>
        <a class="btn" href={props.back ?? "/settings/api-keys"}>Done</a>
      </p>
    </div>
  );
}
