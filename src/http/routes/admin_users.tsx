/**
 * Local-account partials (spec 1 §4.4): create, reset, disable-local, unlock (super admin, browser
 * session only) and the caller's theme. They answer an htmx fragment, or the JSON envelope when the
 * caller asks for JSON. With mail off the one-time password is shown once; with mail on the answer
 * says only where the mail went, and the password travels by mail alone.
 */
import { z } from "zod";
import type { Principal } from "../../identity/mod.ts";
import type { MailOutcome, MailService } from "../../mail/mod.ts";
import type { UserRow } from "../../identity/mod.ts";
import { userView } from "../../identity/mod.ts";
import type { Services } from "../../services.ts";
import type { AppContext } from "../context.ts";
import { ok } from "../envelope.ts";
import { postFields } from "../input.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "admin" | "directory"> & { mail: AccountMail };

/** What these routes need of the mail service (`src/mail`). */
export type AccountMail = Pick<MailService, "enabled" | "welcome" | "passwordReset" | "newUser">;

const wantsJson = (c: AppContext) => (c.req.header("accept") ?? "").includes("application/json");

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const id = z.object({ id: z.string().max(64) });

/** What the screen says about the mail, by outcome (with mail on). */
const DELIVERY: Record<MailOutcome, (to: string) => string> = {
  queued: (to) => `A mail with the one-time password is on its way to ${to}.`,
  sent: (to) => `A mail with the one-time password was sent to ${to}.`,
  failed: (to) =>
    `The mail to ${to} could not be sent (see the audit log); reset the password to try again.`,
  duplicate: (to) => `The mail for this act was already sent to ${to}.`,
  skipped: (to) => `No mail was sent to ${to}.`,
};

export function registerRoutes(router: Router, deps: Deps): void {
  /**
   * The credential part of an answer. Mail off: the one-time password, shown this once. Mail on:
   * only what became of the mail; the password travels by mail alone.
   */
  const credential = (email: string, password: string, outcome: MailOutcome) =>
    deps.mail.enabled ? { mail: outcome, html: DELIVERY[outcome](escape(email)) } : {
      mail: "off" as const,
      one_time_password: password,
      html: `One-time password for ${escape(email)}: <code>${
        escape(password)
      }</code> (shown once; a change is forced at first sign-in).`,
    };

  router.add({
    method: "post",
    path: "/partials/admin/users",
    tag: "admin",
    summary: "Create a local user with a one-time password (super admin, session only)",
    kind: "html",
    access: "users.admin_local",
    errors: ["auth.user.email_taken", "auth.session.required"],
  }, async (c, { actor }) => {
    const created = await deps.admin.create(actor, { email: undefined, ...await postFields(c) });
    const to = created.user.email;
    const by = { userId: actor.userId, provider: actor.provider };
    // The act has committed; mail is raised now and never fails the request.
    const outcome = await deps.mail.welcome({
      userId: created.user.id,
      actId: created.actId,
      to,
      displayName: created.user.display_name,
      oneTimePassword: created.oneTimePassword,
      actor: by,
    });
    await deps.mail.newUser({
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
      const { html: _, ...rest } = shown;
      return ok(c, { user: userView(created.user), joined: created.joined, ...rest }, 201);
    }
    return c.html(
      `<div class="banner ok" role="status">Created ${escape(to)}. ${shown.html}</div>`,
      201,
    );
  });

  router.add({
    method: "patch",
    path: "/partials/admin/users/:id/reset-password",
    tag: "admin",
    summary: "Issue a new one-time password (forces a change, clears the lockout)",
    kind: "html",
    access: "users.admin_local",
    params: id,
  }, async (c, { actor, params }) => {
    const reset = await deps.admin.resetPassword(actor, params.id);
    deps.directory.forgetUser(reset.user.id);
    const outcome = await deps.mail.passwordReset({
      userId: reset.user.id,
      actId: reset.actId,
      to: reset.user.email,
      displayName: reset.user.display_name,
      oneTimePassword: reset.oneTimePassword,
      actor: { userId: actor.userId, provider: actor.provider },
    });
    const shown = credential(reset.user.email, reset.oneTimePassword, outcome);
    if (wantsJson(c)) {
      const { html: _, ...rest } = shown;
      return ok(c, { user: userView(reset.user), ...rest });
    }
    return c.html(`<div class="banner ok" role="status">${shown.html}</div>`);
  });

  const simple: [string, string, (actor: Principal, userId: string) => Promise<UserRow>, string][] =
    [
      [
        "disable-local",
        "Clear the local password (OIDC only from now on)",
        (a, i) => deps.admin.disableLocal(a, i),
        "Local sign-in disabled.",
      ],
      [
        "unlock",
        "Clear the lockout; the password is untouched",
        (a, i) => deps.admin.unlock(a, i),
        "Account unlocked.",
      ],
    ];
  for (const [verb, summary, act, done] of simple) {
    router.add({
      method: "patch",
      path: `/partials/admin/users/:id/${verb}`,
      tag: "admin",
      summary,
      kind: "html",
      access: "users.admin_local",
      params: id,
    }, async (c, { actor, params }) => {
      const user = await act(actor, params.id);
      deps.directory.forgetUser(user.id);
      return wantsJson(c)
        ? ok(c, userView(user))
        : c.html(`<div class="banner ok" role="status">${done}</div>`);
    });
  }

  router.add({
    method: "patch",
    path: "/partials/profile/theme",
    tag: "profile",
    summary: "Set the caller's own theme: light, dark or system",
    kind: "html",
    access: "profile.theme",
  }, async (c, { actor }) => {
    const theme = await deps.admin.setTheme(actor.userId, (await postFields(c)).theme);
    return wantsJson(c) ? ok(c, { theme }) : c.html(`<span class="muted">Theme: ${theme}</span>`);
  });
}
