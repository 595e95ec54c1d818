/**
 * OIDC sign-in routes (docs/access.md#signing-in-with-an-openid-provider): the redirect to a
 * configured provider and its callback. Registered only when a provider is configured. Every
 * provider failure answers a redirect to the login page with a banner, never an error page; the use
 * case has already audited it.
 */
import { getCookie } from "hono/cookie";
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { AUTHZ_TTL_SECONDS } from "../../identity/mod.ts";
import type { Services } from "../../services.ts";
import type { AppContext } from "../context.ts";
import { AUTHZ_COOKIE, clearAuthzCookie, secureCookies, setAuthzCookie } from "../cookies.ts";
import type { Router } from "../routing.ts";
import { startSession } from "../sign_in.ts";

const params = z.object({ name: z.string().regex(/^[a-z0-9-]{1,63}$/) });

export function registerRoutes(
  router: Router,
  services: Pick<Services, "settings" | "admin" | "identity">,
): void {
  const { oidc } = services.identity;
  if (!oidc) return; // step 8 exists only with a configured provider
  const deps = {
    audit: services.admin.audit,
    sessions: services.identity.sessions,
    secureCookies: secureCookies(services.settings.baseUrl),
  };
  /** An unknown provider name is an unknown path, not a provider failure. */
  const configured = (c: AppContext, name: string) => {
    if (!oidc.has(name)) {
      throw new AppError("request.not_found", { method: "GET", path: c.req.path });
    }
  };
  /** Both ends of the redirect: public browser GETs naming a configured provider. */
  const providerRoute = (
    path: string,
    summary: string,
    answer: (c: AppContext, provider: string) => Promise<Response>,
  ) =>
    router.add(
      { method: "get", tag: "auth", kind: "html", access: "public", params, path, summary },
      (c, { params }) => {
        configured(c, params.name);
        return answer(c, params.name);
      },
    );

  providerRoute("/oauth2/authorization/:name", "Redirect to an OIDC provider", async (c, name) => {
    const begun = await oidc.begin(name);
    if (!begun.ok) return c.redirect(`/login?error=${begun.reason}`, 302);
    setAuthzCookie(c, begun.authz, AUTHZ_TTL_SECONDS, deps.secureCookies);
    return c.redirect(begun.redirectTo, 302);
  });

  providerRoute("/login/oauth2/code/:name", "OIDC provider callback", async (c, name) => {
    const query = new URL(c.req.url).searchParams;
    const authz = getCookie(c, AUTHZ_COOKIE);
    // One use only: a replayed callback finds no state.
    clearAuthzCookie(c, deps.secureCookies);
    const outcome = await oidc.complete(name, query, authz);
    if (!outcome.ok) return c.redirect(`/login?error=${outcome.reason}`, 302);
    await startSession(c, deps, outcome.user, {
      amr: "oidc",
      provider: name,
      workspace: outcome.workspace,
    });
    return c.redirect("/", 302);
  });
}
