import type { ComponentChildren } from "preact";
import { ScrollTable } from "../components/head.tsx";
import { PageHead } from "../components/page_head.tsx";
import { Pager } from "../components/paging.tsx";
import { Ago } from "../components/status.tsx";
import { AppShell, type ShellContext } from "../layouts/shell.tsx";

/** One user as `GET /api/v1/auth/users` lists it. */
export interface UserRow {
  id: string;
  email: string;
  display_name: string;
  provider: string;
  is_active: boolean;
  is_admin: boolean;
  must_change_password: boolean;
  local_login: boolean;
  locked: boolean;
  created_at: string;
  last_login_at: string | null;
}

/** How a user signs in, said plainly. */
export function signInLabel(u: { provider: string; local_login: boolean }): string {
  if (u.provider === "system") return "none (system actor)";
  const sso = u.provider === "local" || u.provider === "bootstrap" ? null : u.provider;
  if (sso && u.local_login) return `${sso} or local password`;
  if (sso) return sso;
  return u.local_login ? "local password" : "local sign-in disabled";
}

/** A user's state as badges: active or not, super admin, locked, a pending password change. */
export function UserBadges(props: { user: UserRow }) {
  const u = props.user;
  return (
    <span class="user-badges">
      {u.provider === "system"
        ? <span class="badge">system</span>
        : u.is_active
        ? <span class="badge ok">active</span>
        : <span class="badge bad">deactivated</span>}
      {u.is_admin && <span class="badge info">super admin</span>}
      {u.locked && <span class="badge warn">locked</span>}
      {u.must_change_password && u.local_login && (
        <span class="badge warn">must change password</span>
      )}
    </span>
  );
}

/** `/admin/users`: every user of the instance, searched by name or email, paged. */
export function UsersPage(props: {
  ctx: ShellContext;
  now: Date;
  users: UserRow[];
  q: string;
  offset: number;
  limit: number;
  /** Whether the address named the limit, so the pager keeps it. */
  limitAsked: boolean;
  total: number;
  /** Whether local accounts are on, so a local user can be created. */
  localEnabled: boolean;
}) {
  const { ctx } = props;
  return (
    <AppShell title="Users" nav="users" ctx={ctx}>
      <PageHead
        title="Users"
        actions={props.localEnabled && (
          <a class="btn primary" href="/admin/users/new">New local user</a>
        )}
      >
        <p>
          Everyone who can sign in to this instance. Open a user to deactivate them, make them a
          super admin, or manage their local password.
        </p>
      </PageHead>
      <form method="get" action="/admin/users" class="toolbar filters" role="search">
        <input
          type="search"
          name="q"
          value={props.q}
          maxLength={200}
          placeholder="Name or email"
          aria-label="Search users by name or email"
        />
        <button type="submit">Search</button>
        {props.q && <a class="btn ghost" href="/admin/users">Clear</a>}
      </form>
      <section class="card" id="user-list">
        {props.users.length === 0
          ? (
            <div class="empty">
              <strong>No user matches “{props.q}”</strong>Search by part of a name or an email.
            </div>
          )
          : (
            <ScrollTable
              class="users"
              cols={["User", "Signs in with", "State", "Last sign-in", "Created"]}
            >
              {props.users.map((u) => (
                <tr key={u.id} class={u.is_active ? undefined : "inactive"}>
                  <td data-label="User">
                    <a class="title" href={`/admin/users/${u.id}`}>{u.display_name}</a>
                    <div class="muted small">{u.email}</div>
                  </td>
                  <td data-label="Signs in with">{signInLabel(u)}</td>
                  <td data-label="State">
                    <UserBadges user={u} />
                  </td>
                  <td data-label="Last sign-in" class="nowrap">
                    {u.last_login_at ? <Ago at={u.last_login_at} now={props.now} /> : "never"}
                  </td>
                  <td data-label="Created" class="nowrap">{u.created_at.slice(0, 10)}</td>
                </tr>
              ))}
            </ScrollTable>
          )}
      </section>
      <Pager
        base="/admin/users"
        query={{ q: props.q, limit: props.limitAsked ? String(props.limit) : undefined }}
        offset={props.offset}
        limit={props.limit}
        total={props.total}
      />
    </AppShell>
  );
}

/**
 * `/admin/users/new`: the create form, or (as the answer of the create) what became of the
 * one-time password in its place.
 */
export function NewUserPage(props: {
  ctx: ShellContext;
  /** The form, or the outcome of the create. */
  children: ComponentChildren;
}) {
  return (
    <AppShell title="New local user" nav="users" ctx={props.ctx}>
      <PageHead trail={[["/admin/users", "Users"]]} title="New local user">
        <p>
          A local account signs in with an email and a password at{" "}
          <code>/login</code>. It starts with a one-time password and must choose its own at the
          first sign-in.
        </p>
      </PageHead>
      <section class="card create-slot" id="create-slot" data-swap-refusal>
        {props.children}
      </section>
    </AppShell>
  );
}

/** The answer of a create: who was made, where they joined, and the one-time password's fate. */
export function CreatedUser(props: {
  user: { id: string; email: string; display_name: string };
  joined: string[];
  credential: ComponentChildren;
}) {
  const u = props.user;
  return (
    <div class="issued body" role="status" tabindex={-1} autofocus>
      <h2>{u.display_name} ({u.email}) created</h2>
      {props.credential}
      <p class="muted">
        {props.joined.length > 0
          ? `Member of ${props.joined.join(", ")}.`
          : "Member of no workspace yet."}
      </p>
      <p class="actions">
        <a class="btn" href={`/admin/users/${u.id}`}>Open {u.display_name}</a>
        <a class="btn ghost" href="/admin/users/new">Create another</a>
      </p>
    </div>
  );
}
