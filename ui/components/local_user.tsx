import { SlotForm } from "./slot_form.tsx";
import { CopyText } from "./copy_text.tsx";
import { CheckField, draftFields, EMAIL, FormActions, InputField, SelectField } from "./field.tsx";
import { FLAG_NAMES } from "./member_row.tsx";

/** Each flag with what it lets its holder do, as the create form offers them. */
const FLAG_MEANINGS: Record<(typeof FLAG_NAMES)[number], string> = {
  author: "Author: edits pipelines and templates",
  promoter: "Promoter: releases and promotes",
  admin: "Admin: manages members (and is an author)",
};

/** The create form as typed, kept across a refusal. */
export interface LocalUserDraft {
  email: string;
  display_name: string;
  workspace: string;
  author: boolean;
  promoter: boolean;
  admin: boolean;
}

/** A refusal of the create, placed on the field it names when it names one. */
export interface LocalUserFormError {
  code: string;
  message: string;
  field?: keyof LocalUserDraft;
}

/** What became of a one-time password: shown here (mail off), or mailed (mail on). */
export type Credential =
  | { mail: "off"; password: string }
  | { mail: "queued" | "sent" | "failed" | "duplicate" | "skipped"; to: string };

/** What the screen says about the mail, by outcome (with mail on). */
const DELIVERY: Record<Exclude<Credential["mail"], "off">, (to: string) => string> = {
  queued: (to) => `A mail with the one-time password is on its way to ${to}.`,
  sent: (to) => `A mail with the one-time password was sent to ${to}.`,
  failed: (to) =>
    `The mail to ${to} could not be sent (see the audit log); reset the password to try again.`,
  duplicate: (to) => `The mail for this act was already sent to ${to}.`,
  skipped: (to) => `No mail was sent to ${to}.`,
};

/** The sentence about a mailed password, for a screen or a fragment. */
export function deliveryText(mail: Exclude<Credential["mail"], "off">, to: string): string {
  return DELIVERY[mail](to);
}

/**
 * A one-time password as the create and reset answers show it. Mail off: the password, this once,
 * with a copy button; the page drops it when left, so Back cannot show it again. Mail on: only
 * what became of the mail; the password travels by mail alone.
 */
export function OneTimeCredential(props: { credential: Credential; email: string }) {
  const c = props.credential;
  if (c.mail !== "off") {
    return (
      <p class={`banner ${c.mail === "failed" ? "error" : "ok"}`} id="mail-outcome">
        {deliveryText(c.mail, c.to)}
      </p>
    );
  }
  return (
    <div class="one-time" data-shown-once>
      <p class="banner warn">
        One-time password for{" "}
        {props.email}: pass it on now, it is shown only this once. At the first sign-in they must
        choose their own.
      </p>
      <CopyText
        id="one-time-password"
        text={c.password}
        label="Copy the one-time password"
        mono
      />
    </div>
  );
}

/**
 * The create form, answered inside `#create-slot` (the outcome, or the form with its refusal), so
 * the page's address never holds the password and a reload shows an empty form.
 */
export function LocalUserForm(props: {
  csrf: string;
  draft: LocalUserDraft;
  error?: LocalUserFormError;
  /** Active workspaces the new user may join in the same act. */
  workspaces: { name: string; display_name: string }[];
  mailOn: boolean;
}) {
  const { draft, error } = props;
  const { bind, on } = draftFields("user", draft, error);
  return (
    <SlotForm
      action="/partials/admin/users"
      slot="create-slot"
      class="editor-form local-user-form"
      csrf={props.csrf}
    >
      <header>
        <h2>Account</h2>
      </header>
      <div class="body">
        {error && !error.field && (
          <p class="banner error" role="alert">
            {error.message} <span class="mono small">({error.code})</span>
          </p>
        )}
        <p class="muted">
          {props.mailOn
            ? "They get a one-time password by mail; this page says only whether the mail went out."
            : "Mail is off: the one-time password is shown once, here, for you to pass on."}
        </p>
        <div class="grid cols-2">
          <InputField
            {...bind("email")}
            label="Email"
            hint="What they sign in with."
            input={EMAIL}
          />
          <InputField
            {...bind("display_name")}
            label="Display name (optional)"
            hint="Defaults to the part of the email before @."
            input={{ maxLength: 200 }}
          />
        </div>
        <fieldset class="join">
          <legend>Workspace (optional)</legend>
          <SelectField
            {...bind("workspace")}
            label="Join"
            hint="They become a member in the same act. Pending invitations for the email are joined too."
            empty="No workspace"
            options={props.workspaces.map((w) => [w.name, w.display_name])}
          />
          <div class="flags">
            {FLAG_NAMES.map((flag) => (
              <CheckField
                key={flag}
                id={`user-${flag}`}
                name={flag}
                label={FLAG_MEANINGS[flag]}
                checked={draft[flag]}
                error={on(flag)}
              />
            ))}
          </div>
        </fieldset>
        <FormActions submit="Create user" cancel="/admin/users" />
      </div>
    </SlotForm>
  );
}
