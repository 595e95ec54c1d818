/**
 * Local-account partials (docs/access.md#local-user-administration): create, reset, disable-local,
 * unlock (super admin, browser session only) and the caller's theme. They answer the JSON envelope
 * when the caller asks for JSON, else the page the act belongs to (htmx picks its part of it): the
 * new-user page after a create, the user's page after the others. With mail off the one-time
 * password is shown once; with mail on the answer says only where the mail went, and the password
 * travels by mail alone. The three acts on an existing user are PATCH (htmx); each also answers
 * POST on the same path, which is how the confirm dialog's form sends it without the script.
 */
import { AppError } from "../../errors/mod.ts";
import type { Principal } from "../../identity/mod.ts";
import type { MailOutcome } from "../../mail/mod.ts";
import type { UserRow } from "../../identity/mod.ts";
import { userView } from "../../identity/mod.ts";
import {
  type Credential,
  type LocalUserDraft,
  LocalUserForm,
  type LocalUserFormError,
  OneTimeCredential,
} from "../../../ui/components/local_user.tsx";
import { CreatedUser, NewUserPage } from "../../../ui/pages/users.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import { ok } from "../envelope.ts";
import { postFields } from "../input.ts";
import type { Router } from "../routing.ts";
import { pageRoute, shellContext, type UiPageDeps } from "./shell.ts";
import { userPage, wantsJson } from "./users.tsx";
import { z } from "zod";

const id = z.object({ id: z.string().max(64) });
const FIELDS: (keyof LocalUserDraft)[] = [
  "email",
  "display_name",
  "workspace",
  "author",
  "promoter",
  "admin",
];

/** Where a refusal of the create belongs on the form. */
function placed(e: AppError): LocalUserFormError {
  const d = e.details as Record<string, unknown>;
  const named = typeof d.field === "string"
    ? d.field
    : e.code === "auth.user.email_taken"
    ? "email"
    : e.code.startsWith("workspace.")
    ? "workspace"
    : undefined;
  const field = FIELDS.find((f) => f === named);
  return { code: e.code, message: e.userMessage, field };
}

const checked = (v: unknown) => v === "on" || v === "true" || v === true;

export function localAccountRoutes(router: Router, deps: UiPageDeps): void {
  /** What became of a one-time password: mail off shows it; mail on says where it went. */
  const credential = (to: string, password: string, outcome: MailOutcome): Credential =>
    deps.admin.mail.enabled ? { mail: outcome, to } : { mail: "off", password };

  /** The JSON answer's credential part: the password only with mail off. */
  const jsonCredential = (c: Credential) =>
    c.mail === "off" ? { mail: c.mail, one_time_password: c.password } : { mail: c.mail };

  /** The new-user page: the form (maybe with a refusal), or the outcome in its place. */
  const newUserPage = async (
    c: AppContext,
    actor: Principal,
    slot: { draft?: LocalUserDraft; error?: LocalUserFormError; created?: unknown },
    status = 200,
  ) => {
    const [ctx, listed] = await Promise.all([
      shellContext(c, deps, actor),
      deps.admin.workspaces.listForUser({ userId: actor.userId, isSuperAdmin: actor.isSuperAdmin }),
    ]);
    // Where a new user can join now: the active workspaces (a deactivated one answers 404).
    const workspaces = listed.filter((w) => !w.deactivated_at);
    const draft = slot.draft ??
      { email: "", display_name: "", workspace: "", author: false, promoter: false, admin: false };
    if (slot.created) c.header("Cache-Control", "no-store");
    return c.html(
      renderPage(
        <NewUserPage ctx={ctx}>
          {slot.created ?? (
            <LocalUserForm
              csrf={ctx.csrf}
              draft={draft}
              error={slot.error}
              workspaces={workspaces}
              mailOn={deps.admin.mail.enabled}
            />
          )}
        </NewUserPage>,
      ),
      status as 200,
    );
  };

  router.add(
    pageRoute({
      method: "get",
      path: "/admin/users/new",
      summary: "The form that creates a local user (super admin, session only)",
      access: "users.admin_local",
    }),
    (c, { actor }) => newUserPage(c, actor, {}),
  );

  router.add({
    method: "post",
    path: "/partials/admin/users",
    tag: "admin",
    summary: "Create a local user with a one-time password (super admin, session only)",
    kind: "html",
    access: "users.admin_local",
    errors: ["auth.user.email_taken", "auth.session.required"],
  }, async (c, { actor }) => {
    const fields = await postFields(c);
    let created;
    try {
      created = await deps.identity.userAdmin.create(actor, { email: undefined, ...fields });
    } catch (e) {
      // A refusal of what was typed lands on its field, the form keeping the rest.
      if (wantsJson(c) || !(e instanceof AppError) || e.status >= 500 || e.status === 403) throw e;
      const text = (k: string) => typeof fields[k] === "string" ? fields[k] as string : "";
      const draft: LocalUserDraft = {
        email: text("email"),
        display_name: text("display_name"),
        workspace: text("workspace"),
        author: checked(fields.author),
        promoter: checked(fields.promoter),
        admin: checked(fields.admin),
      };
      return newUserPage(c, actor, { draft, error: placed(e) }, e.status);
    }
    const to = created.user.email;
    const by = { userId: actor.userId, provider: actor.provider };
    // The act has committed; mail is raised now and never fails the request.
    const outcome = await deps.admin.mail.welcome({
      userId: created.user.id,
      actId: created.actId,
      to,
      displayName: created.user.display_name,
      oneTimePassword: created.oneTimePassword,
      actor: by,
    });
    await deps.admin.mail.newUser({
      userId: created.user.id,
      actId: created.actId,
      email: to,
      displayName: created.user.display_name,
      provider: created.user.provider,
      creator: actor.email,
      workspace: created.joined[0] ?? null,
      at: created.user.created_at,
      actor: by,
    });
    const shown = credential(to, created.oneTimePassword, outcome);
    if (wantsJson(c)) {
      return ok(
        c,
        { user: userView(created.user), joined: created.joined, ...jsonCredential(shown) },
        201,
      );
    }
    return newUserPage(c, actor, {
      created: (
        <CreatedUser
          user={created.user}
          joined={created.joined}
          credential={<OneTimeCredential credential={shown} email={to} />}
        />
      ),
    }, 201);
  });

  // PATCH for htmx and API callers; POST for the confirm dialog's form without the script.
  for (const method of ["patch", "post"] as const) {
    router.add({
      method,
      path: "/partials/admin/users/:id/reset-password",
      tag: "admin",
      summary: "Issue a new one-time password (forces a change, clears the lockout)",
      kind: "html",
      access: "users.admin_local",
      params: id,
      errors: ["auth.user.not_found"],
    }, async (c, { actor, params }) => {
      const reset = await deps.identity.userAdmin.resetPassword(actor, params.id);
      deps.identity.directory.forgetUser(reset.user.id);
      const outcome = await deps.admin.mail.passwordReset({
        userId: reset.user.id,
        actId: reset.actId,
        to: reset.user.email,
        displayName: reset.user.display_name,
        oneTimePassword: reset.oneTimePassword,
        actor: { userId: actor.userId, provider: actor.provider },
      });
      const shown = credential(reset.user.email, reset.oneTimePassword, outcome);
      if (wantsJson(c)) return ok(c, { user: userView(reset.user), ...jsonCredential(shown) });
      return userPage(c, deps, actor, reset.user.id, {
        credential: { credential: shown, email: reset.user.email },
      });
    });

    const simple: [string, string, (a: Principal, i: string) => Promise<UserRow>, string][] = [
      [
        "disable-local",
        "Clear the local password (OIDC only from now on)",
        (a, i) => deps.identity.userAdmin.disableLocal(a, i),
        "Local sign-in disabled: the password is cleared.",
      ],
      [
        "unlock",
        "Clear the lockout; the password is untouched",
        (a, i) => deps.identity.userAdmin.unlock(a, i),
        "Account unlocked; the password is unchanged.",
      ],
    ];
    for (const [verb, summary, act, done] of simple) {
      router.add({
        method,
        path: `/partials/admin/users/:id/${verb}`,
        tag: "admin",
        summary,
        kind: "html",
        access: "users.admin_local",
        params: id,
        errors: ["auth.user.not_found"],
      }, async (c, { actor, params }) => {
        const user = await act(actor, params.id);
        deps.identity.directory.forgetUser(user.id);
        return wantsJson(c) ? ok(c, userView(user)) : userPage(c, deps, actor, user.id, {
          outcome: <p class="banner ok">{done}</p>,
        });
      });
    }
  }

  router.add({
    method: "patch",
    path: "/partials/profile/theme",
    tag: "profile",
    summary: "Set the caller's own theme: light, dark or system",
    kind: "html",
    access: "profile.theme",
  }, async (c, { actor }) => {
    const theme = await deps.identity.userAdmin.setTheme(actor.userId, (await postFields(c)).theme);
    return wantsJson(c) ? ok(c, { theme }) : c.html(`<span class="muted">Theme: ${theme}</span>`);
  });
}
