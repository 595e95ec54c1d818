/**
 * The users pages (super admin): `/admin/users` over the same user service as
 * `GET /api/v1/auth/users`, one user at `/admin/users/{id}` (the address the new-user mail links
 * to), the new local user form, and the form partials behind activate, deactivate, grant and
 * revoke, which call what `POST /api/v1/auth/users/{id}/…` calls and so refuse what it refuses.
 * The local-account partials (create, reset, disable-local, unlock) are in `local_accounts.tsx`.
 */
import type { ComponentChildren } from "preact";
import { z } from "zod";
import type { Principal } from "../../identity/mod.ts";
import { type Credential, OneTimeCredential } from "../../../ui/components/local_user.tsx";
import { USER_ACTS, type UserAct, UserPage } from "../../../ui/pages/user.tsx";
import { UsersPage } from "../../../ui/pages/users.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import { ok } from "../envelope.ts";
import type { Router } from "../routing.ts";
import { pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const ROWS = 25;

/** The four state flips, as the REST routes name them. */
const FLIPS = {
  deactivate: (deps: UiPageDeps, a: Principal, id: string) =>
    deps.identity.users.setActive(a, id, false),
  activate: (deps: UiPageDeps, a: Principal, id: string) =>
    deps.identity.users.setActive(a, id, true),
  "grant-admin": (deps: UiPageDeps, a: Principal, id: string) =>
    deps.identity.users.setAdmin(a, id, true),
  "revoke-admin": (deps: UiPageDeps, a: Principal, id: string) =>
    deps.identity.users.setAdmin(a, id, false),
} as const;

/** The banner after a flip (`?done=`), named for the user it changed. */
const DONE: Partial<Record<UserAct, (name: string) => string>> = {
  deactivate: (n) => `${n} is deactivated: their sign-ins, sessions and keys are refused.`,
  activate: (n) => `${n} is active again.`,
  "grant-admin": (n) => `${n} is now a super admin.`,
  "revoke-admin": (n) => `${n} is no longer a super admin.`,
};

export const wantsJson = (c: AppContext) =>
  (c.req.header("accept") ?? "").includes("application/json");

/** What a page answer about one user adds: an outcome at the top, or an act's dialog. */
export interface UserAnswer {
  outcome?: ComponentChildren;
  /** A one-time password in the answer: never cached, never kept by Back. */
  credential?: { credential: Credential; email: string };
  confirm?: UserAct;
}

/** `/admin/users/{id}` as a page (or as the answer of an act on the user). */
export async function userPage(
  c: AppContext,
  deps: UiPageDeps,
  actor: Principal,
  userId: string,
  answer: UserAnswer = {},
  status: 200 | 201 = 200,
): Promise<Response> {
  const user = await deps.identity.users.get(userId);
  const [ctx, memberships, superAdmins] = await Promise.all([
    shellContext(c, deps, actor),
    deps.admin.workspaces.listForUser({ userId: user.id, isSuperAdmin: false }),
    deps.identity.users.activeSuperAdmins(),
  ]);
  const { password_hash: _, ...rest } = user;
  const html = renderPage(
    <UserPage
      ctx={ctx}
      now={new Date()}
      user={{
        ...rest,
        local_login: user.password_hash !== null,
        locked: user.locked_until !== null && Date.parse(user.locked_until) > Date.now(),
      }}
      memberships={memberships}
      at={{
        self: user.id === actor.userId,
        superAdmins,
        localEnabled: deps.settings.signIn.localEnabled,
        mailOn: deps.admin.mail.enabled,
      }}
      outcome={answer.credential ? <OneTimeCredential {...answer.credential} /> : answer.outcome}
      confirm={answer.confirm}
    />,
  );
  // Every user page is kept out of caches: one may hold a one-time password.
  c.header("Cache-Control", "no-store");
  return c.html(html, status);
}

export function userPageRoutes(router: Router, deps: UiPageDeps): void {
  router.add(
    pageRoute({
      method: "get",
      path: "/admin/users",
      summary: "Every user of the instance, searched and paged (super admin)",
      // The same row as GET /api/v1/auth/users, so the page refuses whom the API refuses.
      access: "users.admin",
      query: z.object({ q: z.string().max(200).optional() }),
      page: { defaultLimit: ROWS, maxLimit: 100 },
    }),
    async (c, { actor, query, page }) => {
      const q = query.q?.trim() ?? "";
      const [ctx, found] = await Promise.all([
        shellContext(c, deps, actor),
        deps.identity.users.list(q || undefined, page.offset, page.limit),
      ]);
      return c.html(renderPage(
        <UsersPage
          ctx={ctx}
          now={new Date()}
          users={found.items}
          q={q}
          offset={page.offset}
          limit={page.limit}
          limitAsked={c.req.query("limit") !== undefined}
          total={found.total}
          localEnabled={deps.settings.signIn.localEnabled}
        />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/admin/users/:id",
      summary: "One user: state, workspaces, and the acts on them (super admin)",
      access: "users.admin",
      params: z.object({ id: z.string().max(64) }),
      query: z.object({
        confirm: z.enum(USER_ACTS).optional(),
        done: z.enum(USER_ACTS).optional(),
      }),
      errors: ["auth.user.not_found"],
    }),
    async (c, { actor, params, query }) => {
      const done = query.done && DONE[query.done];
      const name = done ? (await deps.identity.users.get(params.id)).display_name : "";
      return userPage(c, deps, actor, params.id, {
        confirm: query.confirm,
        outcome: done && <p class="banner ok">{done(name)}</p>,
      });
    },
  );

  for (const [verb, act] of Object.entries(FLIPS)) {
    router.add(
      pageRoute({
        method: "post",
        path: `/partials/admin/users/:id/${verb}`,
        summary: `The form behind ${verb} on a user's page (POST /api/v1/auth/users/{id}/${verb})`,
        access: "users.admin",
        params: z.object({ id: z.string().max(64) }),
        errors: ["auth.user.not_found"],
      }),
      async (c, { actor, params }) => {
        const view = await act(deps, actor, params.id);
        deps.identity.directory.forgetUser(view.id);
        if (wantsJson(c)) return ok(c, view);
        // Deactivating or demoting oneself leaves no user page to come back to.
        const self = view.id === actor.userId && (verb === "deactivate" || verb === "revoke-admin");
        return c.redirect(self ? "/" : `/admin/users/${view.id}?done=${verb}`, 303);
      },
    );
  }
}
