import { Card } from "../components/card.tsx";
import type { ComponentChildren } from "preact";
import { ScrollTable } from "../components/head.tsx";
import { PageHead } from "../components/page_head.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { KeyCreateForm, type KeyDraft, type KeyFormError } from "../components/key_create.tsx";

export { IssuedSecret, KeyCreateForm } from "../components/key_create.tsx";
export type { KeyDraft, KeyFormError } from "../components/key_create.tsx";

/** One of the viewer's keys as `GET /auth/api-keys` answers it. */
export interface KeyRow {
  id: string;
  name: string;
  kind: string;
  scopes: string[];
  bindings: { path: string }[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  last_used_ip: string | null;
  is_revoked: boolean;
  workspace: string | null;
}

/** What a key can do, said the way its revocation ends it. */
function reach(k: KeyRow): string {
  if (k.kind === "endpoint") {
    return k.bindings.length === 0
      ? "calls to published endpoints (it is bound to none yet)"
      : `calls to the published endpoints under ${k.bindings.map((b) => b.path).join(", ")}`;
  }
  if (k.kind === "server") return "promotions pushed to this instance with it";
  return `API and agent calls (scope ${k.scopes.join(", ")}, workspace ${
    k.workspace ?? "unknown"
  })`;
}

function state(k: KeyRow, now: number): [string, string] {
  if (k.is_revoked) return ["revoked", "bad"];
  if (k.expires_at && Date.parse(k.expires_at) <= now) return ["expired", "warn"];
  return ["active", "ok"];
}

const day = (iso: string | null, none: string) => iso ? iso.slice(0, 10) : none;

/**
 * `/settings/api-keys`: the viewer's own keys, a form that issues one (its secret shown once, in
 * place of the form), and revocation behind a dialog that says what stops working.
 */
export function ApiKeysPage(props: {
  ctx: ShellContext;
  keys: KeyRow[];
  /** Null when the viewer may not mint keys (viewers never do). */
  form: {
    draft: KeyDraft;
    error?: KeyFormError;
    kinds: string[];
    workspaces: ShellContext["workspaces"];
    /** The page the form was posted from, when not this one (see KeyCreateForm). */
    back?: string;
  } | null;
  /** Set when the page is the no-script answer of an issue: the secret, once. */
  issued?: ComponentChildren;
  /** The key whose revocation is being confirmed without script (`?revoke=`). */
  confirm?: string;
  revoked?: string;
  now: number;
}) {
  const { ctx } = props;
  return (
    <AppShell title="API keys" nav={null} ctx={ctx}>
      <PageHead
        title="API keys"
        actions={<a class="btn" href="/docs/access">Access docs</a>}
      >
        <p>
          Keys let programs and agents act as you (<code>SVC-API-Key</code> header). A{" "}
          <strong>user</strong> key carries scopes in one workspace; an <strong>endpoint</strong>
          {" "}
          key only calls the published endpoints it is bound to.
        </p>
      </PageHead>
      {props.revoked && <p class="banner ok" role="status">Key {props.revoked} was revoked.</p>}
      <section class="card key-create-slot" id="key-create-slot" data-swap-refusal>
        {props.issued ??
          (props.form
            ? (
              <KeyCreateForm
                csrf={ctx.csrf}
                draft={props.form.draft}
                error={props.form.error}
                kinds={props.form.kinds}
                workspaces={props.form.workspaces}
                back={props.form.back}
              />
            )
            : (
              <p class="muted body">
                Keys are issued by authors and above; a view-only member has none to create.
              </p>
            ))}
      </section>
      <Card id="key-list" title="Your keys">
        {props.keys.length === 0 ? <p class="empty">No keys yet.</p> : (
          <ScrollTable
            class="keys"
            cols={[
              "Name",
              "Kind",
              "Scopes or bindings",
              "Workspace",
              "Created",
              "Last used",
              "Expires",
              "State",
              "Actions",
            ]}
          >
            {props.keys.map((k) => {
              const [label, tone] = state(k, props.now);
              return (
                <tr key={k.id}>
                  <td>
                    <span class="title">{k.name}</span>
                    <div class="muted small mono">{k.id}</div>
                  </td>
                  <td>{k.kind}</td>
                  <td class="mono small">
                    {k.kind === "endpoint"
                      ? (k.bindings.map((b) => b.path).join(", ") || "none")
                      : (k.scopes.join(", ") || "—")}
                  </td>
                  <td>{k.workspace ?? "—"}</td>
                  <td class="nowrap">{day(k.created_at, "—")}</td>
                  <td class="nowrap">
                    {day(k.last_used_at, "never")}
                    {k.last_used_ip && <div class="muted small">{k.last_used_ip}</div>}
                  </td>
                  <td class="nowrap">{day(k.expires_at, "never")}</td>
                  <td>
                    <span class={`badge ${tone}`}>{label}</span>
                  </td>
                  <td>
                    {!k.is_revoked && (
                      <RevokeControl
                        k={k}
                        csrf={ctx.csrf}
                        open={props.confirm === k.id}
                      />
                    )}
                  </td>
                </tr>
              );
            })}
          </ScrollTable>
        )}
      </Card>
    </AppShell>
  );
}

/**
 * Revoke: a link that, with the script, opens the dialog in place; without it, reloads the page
 * with the dialog drawn open. The dialog says what stops working before anything is changed.
 */
function RevokeControl(props: { k: KeyRow; csrf: string; open: boolean }) {
  const { k } = props;
  const id = `revoke-${k.id}`;
  return (
    <>
      <a
        class="btn ghost small danger"
        href={`/settings/api-keys?revoke=${encodeURIComponent(k.id)}`}
        data-dialog={id}
        aria-label={`Revoke ${k.name}`}
      >
        Revoke
      </a>
      <dialog id={id} aria-labelledby={`${id}-title`} open={props.open}>
        <form method="post" action={`/partials/account/api-keys/${k.id}/revoke`} class="stack">
          <input type="hidden" name="_csrf" value={props.csrf} />
          <h2 id={`${id}-title`}>Revoke {k.name}?</h2>
          <p>
            From now on every request with this key is refused with 401:{" "}
            {reach(k)}. This cannot be undone; a program that needs access again needs a new key.
          </p>
          <div class="actions">
            <button type="submit" class="danger">Revoke key</button>
            <a class="btn ghost" href="/settings/api-keys" data-confirm-cancel>Cancel</a>
          </div>
        </form>
      </dialog>
    </>
  );
}
