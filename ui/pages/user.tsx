import { Card } from "../components/card.tsx";
import type { ComponentChildren } from "preact";
import { ConfirmDialog, ConfirmLink } from "../components/confirm.tsx";
import { PageHead } from "../components/page_head.tsx";
import { Ago } from "../components/status.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";
import { signInLabel, UserBadges, type UserRow } from "./users.tsx";

/** The acts on one user: the four of `/api/v1/auth/users/{id}/…` and the three local ones. */
export const USER_ACTS = [
  "deactivate",
  "activate",
  "grant-admin",
  "revoke-admin",
  "reset-password",
  "disable-local",
  "unlock",
] as const;
export type UserAct = (typeof USER_ACTS)[number];

/** The partials these go through without a script (the local ones are PATCH with htmx). */
export const LOCAL_ACTS: readonly UserAct[] = ["reset-password", "disable-local", "unlock"];

/** One user as the detail page draws it. */
export interface UserDetail extends UserRow {
  locked_until: string | null;
  failed_login_count: number;
}

/** A workspace the user belongs to, with their flags there. */
export interface Membership {
  name: string;
  display_name: string;
  author: boolean;
  promoter: boolean;
  admin: boolean;
  joined_at: string | null;
}

/** What the page knows around the user that changes what an act means. */
export interface ActContext {
  /** The viewer is this user. */
  self: boolean;
  /** Active super admins on the instance, this user included when they are one. */
  superAdmins: number;
  localEnabled: boolean;
  mailOn: boolean;
}

/** The acts drawn for this user: the state flips, then the local ones that apply. */
export function actsFor(u: UserDetail, at: ActContext): UserAct[] {
  if (u.provider === "system") return [];
  return [
    u.is_active ? "deactivate" : "activate",
    u.is_admin ? "revoke-admin" : "grant-admin",
    ...(at.localEnabled ? ["reset-password" as const] : []),
    ...(u.locked ? ["unlock" as const] : []),
    ...(u.local_login ? ["disable-local" as const] : []),
  ];
}

interface ActText {
  /** What the act is about, over its one line. */
  topic: string;
  label: string;
  /** One line beside the button. */
  summary: string;
  title: string;
  confirm: string;
  danger?: boolean;
  /** What the act changes, said in the dialog. */
  what: ComponentChildren;
}

const when = (iso: string | null) => iso ? iso.replace("T", " ").slice(0, 16) + " UTC" : "";

/** Labels and the dialog's words for each act on `u`. */
function actText(act: UserAct, u: UserDetail, at: ActContext): ActText {
  const name = u.display_name;
  const lastAdmin = u.is_admin && u.is_active && at.superAdmins <= 1;
  switch (act) {
    case "deactivate":
      return {
        topic: "Access",
        label: "Deactivate",
        summary:
          "Active. Deactivating ends their sign-ins, sessions and API keys; content and memberships stay.",
        title: `Deactivate ${name}?`,
        confirm: "Deactivate",
        danger: true,
        what: (
          <>
            <p>
              {name}{" "}
              can no longer sign in. Their open sessions and API keys stop working (at once here,
              within about a minute on other replicas). Their content, memberships and keys are
              kept; Activate brings them back.
            </p>
            {at.self && (
              <p class="banner error">
                This is you: you are signed out at once, and only another super admin can activate
                you again.
              </p>
            )}
            {lastAdmin && !at.self && (
              <p class="banner error">
                {name} is the only active super admin: nobody would be left to administer users.
              </p>
            )}
          </>
        ),
      };
    case "activate":
      return {
        topic: "Access",
        label: "Activate",
        summary: "Deactivated: nothing they hold works. Activating lets them back in.",
        title: `Activate ${name}?`,
        confirm: "Activate",
        what: (
          <p>
            {name}{" "}
            can sign in again with the credentials they had, and the API keys they own work again.
          </p>
        ),
      };
    case "grant-admin":
      return {
        topic: "Super admin",
        label: "Make super admin",
        summary: "No. A super admin holds every capability in every workspace, and this page.",
        title: `Make ${name} a super admin?`,
        confirm: "Make super admin",
        what: (
          <p>
            {name}{" "}
            gets every capability in every workspace (member or not), user administration, workspace
            creation and instance datasources. Their acts in workspaces they are not a member of are
            audited as <code>auth.super_admin_acting</code>.
          </p>
        ),
      };
    case "revoke-admin":
      return {
        topic: "Super admin",
        label: "Revoke super admin",
        summary: "Yes. Revoking leaves them what their workspace memberships allow.",
        title: `Revoke super admin from ${name}?`,
        confirm: "Revoke super admin",
        danger: true,
        what: (
          <>
            <p>
              {name}{" "}
              keeps their workspace memberships and loses everything else: workspaces they are not a
              member of, user administration and instance datasources. The bootstrap grant never
              gives it back; only a super admin can.
            </p>
            {at.self && (
              <p class="banner error">
                This is you: you lose this page and every super admin act at once.
              </p>
            )}
            {lastAdmin && (
              <p class="banner error">
                {at.self ? "You are" : `${name} is`}{" "}
                the only active super admin: afterwards nobody can administer users or grant the
                flag again.
              </p>
            )}
          </>
        ),
      };
    case "reset-password":
      return {
        topic: "Password",
        label: u.local_login ? "Reset password" : "Issue a local password",
        summary: `${
          !u.local_login
            ? "None: they sign in only through single sign-on."
            : u.must_change_password
            ? "A one-time password, not yet changed."
            : "Set by them."
        } A new one-time password is ${at.mailOn ? "mailed to them" : "shown to you once"}.`,
        title: `${u.local_login ? "Reset the password of" : "Issue a local password to"} ${name}?`,
        confirm: u.local_login ? "Reset password" : "Issue password",
        danger: u.local_login,
        what: (
          <p>
            A new one-time password{" "}
            {at.mailOn ? `is mailed to ${u.email}` : "is shown to you once, on the next screen"}
            {u.local_login ? " and their current password stops working" : ""}. Any lockout is
            cleared, and they must choose their own password at the next sign-in.
          </p>
        ),
      };
    case "disable-local":
      return {
        topic: "Local sign-in",
        label: "Disable local sign-in",
        summary: "Enabled. Disabling clears their password: single sign-on only from then on.",
        title: `Disable local sign-in for ${name}?`,
        confirm: "Disable local sign-in",
        danger: true,
        what: (
          <p>
            Their local password is cleared: from now on {name}{" "}
            signs in only through a single sign-on provider (with none configured, not at all).
            Sessions already open stay open until they expire. Reset password gives them a local
            password again.
          </p>
        ),
      };
    case "unlock":
      return {
        topic: "Lockout",
        label: "Unlock",
        summary: `Locked after ${u.failed_login_count} failed sign-ins until ${
          when(u.locked_until)
        }.`,
        title: `Unlock ${name}?`,
        confirm: "Unlock",
        what: (
          <p>
            The lockout after {u.failed_login_count} failed sign-ins ends now instead of at{" "}
            {when(u.locked_until)}. Their password is unchanged.
          </p>
        ),
      };
  }
}

/** The dialog an act asks first (`?confirm=<act>`): what it changes, Cancel, the act. */
export function UserActDialog(props: {
  user: UserDetail;
  act: UserAct;
  at: ActContext;
  csrf: string;
}) {
  const { user, act } = props;
  const t = actText(act, user, props.at);
  const action = `/partials/admin/users/${user.id}/${act}`;
  return (
    <ConfirmDialog
      id="confirm-act"
      title={t.title}
      action={action}
      csrf={props.csrf}
      confirm={t.confirm}
      danger={t.danger}
      cancel={`/admin/users/${user.id}`}
      // The local acts are PATCH partials: htmx sends them and swaps the page's main part; without
      // the script the form posts to the same path.
      hx={LOCAL_ACTS.includes(act)
        ? {
          "hx-patch": action,
          "hx-target": "#user-main",
          "hx-select": "#user-main",
          "hx-swap": "outerHTML",
        }
        : undefined}
    >
      {t.what}
    </ConfirmDialog>
  );
}

const ROLE = (m: Membership) =>
  m.admin
    ? "admin"
    : [m.author && "author", m.promoter && "promoter"].filter(Boolean).join(", ") || "viewer";

/** `/admin/users/{id}`: who they are, where they belong, and the acts a super admin has on them. */
export function UserPage(props: {
  ctx: ShellContext;
  now: Date;
  user: UserDetail;
  memberships: Membership[];
  at: ActContext;
  /** What the last act did (a banner or a one-time password), shown at the top. */
  outcome?: ComponentChildren;
  /** The act being confirmed (`?confirm=`). */
  confirm?: UserAct;
}) {
  const { ctx, user: u, at } = props;
  const acts = actsFor(u, at);
  return (
    <AppShell title={u.display_name} nav="users" ctx={ctx}>
      <PageHead trail={[["/admin/users", "Users"]]} title={u.display_name}>
        <p class="muted">{u.email}</p>
      </PageHead>
      <div id="user-main" data-swap-refusal>
        {props.outcome && (
          <div class="user-outcome" role="status" tabindex={-1} autofocus>
            {props.outcome}
          </div>
        )}
        <div class="grid cols-2">
          <Card title="Account">
            <dl class="facts">
              <dt>State</dt>
              <dd>
                <UserBadges user={u} />
              </dd>
              <dt>Signs in with</dt>
              <dd>{signInLabel(u)}</dd>
              {u.locked && (
                <>
                  <dt>Locked until</dt>
                  <dd>{when(u.locked_until)}</dd>
                </>
              )}
              <dt>Last sign-in</dt>
              <dd>{u.last_login_at ? <Ago at={u.last_login_at} now={props.now} /> : "never"}</dd>
              <dt>Created</dt>
              <dd>{when(u.created_at)}</dd>
              <dt>User id</dt>
              <dd class="mono small">{u.id}</dd>
            </dl>
          </Card>
          <Card title="Workspaces">
            {props.memberships.length === 0
              ? (
                <p class="empty">
                  {u.is_admin
                    ? "No membership; as a super admin they act in every workspace."
                    : "Not a member of any active workspace."}
                </p>
              )
              : (
                <ul class="list">
                  {props.memberships.map((m) => (
                    <li key={m.name}>
                      <span>
                        <span class="title">{m.display_name}</span>{" "}
                        <span class="muted small mono">{m.name}</span>
                      </span>
                      <span class="meta">
                        {ROLE(m)}
                        {m.joined_at && ` · joined ${m.joined_at.slice(0, 10)}`}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
          </Card>
        </div>
        <Card class="section-gap" title="Actions">
          {acts.length === 0
            ? (
              <p class="empty">
                The system actor stamps acts that belong to no person; nobody can sign in as it.
              </p>
            )
            : (
              <ul class="list user-acts">
                {acts.map((act) => {
                  const t = actText(act, u, at);
                  return (
                    <li key={act}>
                      <span>
                        <span class="title">{t.topic}</span>
                        <span class="meta">{t.summary}</span>
                      </span>
                      <ConfirmLink
                        href={`/admin/users/${u.id}?confirm=${act}`}
                        class={`btn${t.danger ? " danger" : ""}`}
                        label={`${t.label}: ${u.display_name}`}
                      >
                        {t.label}
                      </ConfirmLink>
                    </li>
                  );
                })}
              </ul>
            )}
        </Card>
      </div>
      {props.confirm && acts.includes(props.confirm) && (
        <UserActDialog user={u} act={props.confirm} at={at} csrf={ctx.csrf} />
      )}
    </AppShell>
  );
}
