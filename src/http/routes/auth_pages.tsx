/**
 * Browser sign-in (docs/access.md#local-accounts): the login page and form, logout, workspace
 * switch, and the password change page with its endpoint. Plain HTML forms; htmx callers get
 * `HX-Redirect`.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { ChangePasswordPage } from "../../../ui/pages/change_password.tsx";
import { LoginPage } from "../../../ui/pages/login.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import {
  clearSessionCookie,
  ensureCsrfToken,
  secureCookies,
  setSessionCookie,
} from "../cookies.ts";
import { postFields } from "../input.ts";
import type { Services } from "../../services.ts";
import type { Router } from "../routing.ts";
import { startSession } from "../sign_in.ts";

function redirect(c: AppContext, to: string): Response {
  if (c.req.header("hx-request") === "true") return c.body(null, 200, { "HX-Redirect": to });
  return c.redirect(to, 302);
}

export function registerRoutes(
  router: Router,
  services: Pick<Services, "settings" | "admin" | "identity">,
): void {
  const { settings } = services;
  const deps = {
    ...services,
    ...settings.signIn,
    // What startSession needs, flat.
    audit: services.admin.audit,
    sessions: services.identity.sessions,
    secureCookies: secureCookies(settings.baseUrl),
  };
  router.add({
    method: "get",
    path: "/login",
    tag: "auth",
    summary: "Sign-in page",
    kind: "html",
    access: "public",
    query: z.object({ error: z.string().max(40).optional() }),
  }, (c, { query }) => {
    const csrf = ensureCsrfToken(c, deps.secureCookies);
    return c.html(renderPage(
      <LoginPage
        csrf={csrf}
        localEnabled={deps.localEnabled}
        providers={deps.providers}
        error={query.error}
      />,
    ));
  });

  router.add({
    method: "post",
    path: "/login",
    tag: "auth",
    summary: "Local sign-in",
    kind: "html",
    access: "public",
  }, async (c) => {
    if (!deps.localEnabled) {
      throw new AppError("request.not_found", { method: "POST", path: "/login" });
    }
    const form = await postFields(c);
    const outcome = await deps.identity.local.login(form.email, form.password);
    if (!outcome.ok) return c.redirect(`/login?error=${outcome.reason}`, 302);
    const user = outcome.user;
    const workspace = await deps.identity.signInLanding({
      userId: user.id,
      email: user.email,
      provider: user.provider,
      isSuperAdmin: user.is_admin,
    });
    await startSession(c, deps, user, { amr: "pwd", provider: "local", workspace });
    return c.redirect("/", 302);
  });

  router.add({
    method: "post",
    path: "/logout",
    tag: "auth",
    summary: "Sign out",
    kind: "html",
    access: "session.logout",
  }, async (c, { actor: p }) => {
    clearSessionCookie(c, deps.secureCookies);
    await deps.admin.audit.record({ event: "auth.logout", userId: p.userId, provider: p.provider });
    return redirect(c, "/login");
  });

  router.add({
    method: "post",
    path: "/workspace/switch",
    tag: "auth",
    summary: "Switch the active workspace",
    kind: "html",
    access: "workspace.switch",
  }, async (c, { actor: p }) => {
    const name = (await postFields(c)).workspace;
    if (typeof name !== "string" || name.length === 0 || name.length > 63) {
      throw new AppError("pipeline.execution.invalid_parameter_type", {
        field: "workspace",
        reason: "a workspace name is required",
      });
    }
    const target = await deps.identity.directory.resolveByName({
      userId: p.userId,
      isSuperAdmin: p.isSuperAdmin,
    }, name);
    if (!target) throw new AppError("workspace.not_found", { workspace: name });
    await deps.identity.directory.rememberLastUsed(p.userId, target.id);
    const token = await deps.identity.sessions.issue(
      { id: p.userId, email: p.email, displayName: p.displayName },
      p.amr ?? "pwd",
      target.name,
    );
    setSessionCookie(c, token, deps.identity.sessions.ttlSeconds, deps.secureCookies);
    return redirect(c, "/dashboard");
  });

  router.add({
    method: "get",
    path: "/settings/password",
    tag: "auth",
    summary: "Password change page",
    kind: "html",
    access: "password.change_own",
    query: z.object({ error: z.string().max(200).optional(), changed: z.string().optional() }),
  }, (c, { actor: p, query }) => {
    return c.html(renderPage(
      <ChangePasswordPage
        csrf={ensureCsrfToken(c, deps.secureCookies)}
        forced={p.mustChangePassword}
        error={query.error}
        changed={query.changed !== undefined}
      />,
    ));
  });

  router.add({
    method: "post",
    path: "/partials/account/password",
    tag: "auth",
    summary: "Change own password",
    kind: "html",
    access: "password.change_own",
  }, async (c, { actor: p }) => {
    const form = await postFields(c);
    const isForm = !/^application\/json/i.test(c.req.header("content-type") ?? "");
    try {
      const { forced } = await deps.identity.local.changePassword(
        p.userId,
        form.current_password,
        form.new_password,
      );
      deps.identity.directory.forgetUser(p.userId);
      if (forced) return redirect(c, "/dashboard");
      if (c.req.header("hx-request") === "true") {
        return c.html(`<p class="banner ok" role="status">Your password was changed.</p>`);
      }
      return isForm ? c.redirect("/settings/password?changed=1", 303) : c.json({
        schema_version: 1,
        correlation_id: c.get("correlationId"),
        data: { changed: true },
      });
    } catch (e) {
      if (!(e instanceof AppError) || !isForm || c.req.header("hx-request") === "true") throw e;
      return c.redirect(`/settings/password?error=${encodeURIComponent(e.userMessage)}`, 303);
    }
  });
}
