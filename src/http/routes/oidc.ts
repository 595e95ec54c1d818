/**
 * OIDC sign-in routes (spec 1 §4.1): the redirect to a configured provider and its callback.
 * Registered only when a provider is configured. Every provider failure answers a redirect to the
 * login page with a banner, never an error page; the use case has already audited it.
 */
import { getCookie } from "hono/cookie";
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { AUTHZ_TTL_SECONDS, type OidcLogin } from "../../identity/mod.ts";
import { AUTHZ_COOKIE, clearAuthzCookie, setAuthzCookie } from "../cookies.ts";
import type { Router } from "../routing.ts";
import { type SignInDeps, startSession } from "../sign_in.ts";

export interface OidcRouteDeps extends SignInDeps {
  oidc: OidcLogin;
}

const params = z.object({ name: z.string().regex(/^[a-z0-9-]{1,63}$/) });

export function oidcRoutes(router: Router, deps: OidcRouteDeps): void {
  router.add({
    method: "get",
    path: "/oauth2/authorization/:name",
    tag: "auth",
    summary: "Redirect to an OIDC provider",
    kind: "html",
    access: "public",
    params,
  }, async (c, { params }) => {
    if (!deps.oidc.has(params.name)) {
      throw new AppError("request.not_found", { method: "GET", path: c.req.path });
    }
    const begun = await deps.oidc.begin(params.name);
    if (!begun.ok) return c.redirect(`/login?error=${begun.reason}`, 302);
    setAuthzCookie(c, begun.authz, AUTHZ_TTL_SECONDS, deps.secureCookies);
    return c.redirect(begun.redirectTo, 302);
  });

  router.add({
    method: "get",
    path: "/login/oauth2/code/:name",
    tag: "auth",
    summary: "OIDC provider callback",
    kind: "html",
    access: "public",
    params,
  }, async (c, { params }) => {
    if (!deps.oidc.has(params.name)) {
      throw new AppError("request.not_found", { method: "GET", path: c.req.path });
    }
    const query = new URL(c.req.url).searchParams;
    const authz = getCookie(c, AUTHZ_COOKIE);
    // One use only: a replayed callback finds no state.
    clearAuthzCookie(c, deps.secureCookies);
    const outcome = await deps.oidc.complete(params.name, query, authz);
    if (!outcome.ok) return c.redirect(`/login?error=${outcome.reason}`, 302);
    await startSession(c, deps, outcome.user, {
      amr: "oidc",
      provider: params.name,
      workspace: outcome.workspace,
    });
    return c.redirect("/", 302);
  });
}
