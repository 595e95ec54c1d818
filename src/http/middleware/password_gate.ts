/**
 * Step 10, the forced password change (docs/access.md#first-start): a password-opened session with
 * a pending change reaches only the change page and its endpoint, logout, health and static assets.
 * Browsers get 302, htmx gets `HX-Redirect`, everything else 403 auth.password.change_required.
 * Keys and OIDC sessions are never gated.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { AppEnv } from "../context.ts";
import { isPasswordGateExempt } from "../public_paths.ts";

export const CHANGE_PAGE = "/settings/password";

export function passwordGate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const p = c.get("principal");
    if (!p || p.authMethod !== "OIDC" || p.amr !== "pwd" || !p.mustChangePassword) {
      return await next();
    }
    if (isPasswordGateExempt(c.req.path)) return await next();
    if (c.req.header("hx-request") === "true") {
      return c.body(null, 204, { "HX-Redirect": CHANGE_PAGE });
    }
    const isApi = /^\/(api|mcp)(\/|$)/.test(c.req.path);
    if (!isApi && (c.req.header("accept") ?? "").includes("text/html")) {
      return c.redirect(CHANGE_PAGE, 302);
    }
    throw new AppError("auth.password.change_required", {});
  };
}
