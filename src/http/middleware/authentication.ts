/**
 * Step 9, authorization by path: public paths pass; anything else needs a principal. Browsers are
 * sent to `/login` (relative Location); `/api/**` and `/mcp` never redirect and answer the 401
 * envelope, naming why a presented session was refused.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { AppEnv } from "../context.ts";
import { isPublicPath } from "../public_paths.ts";

export function requireAuthentication(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get("principal") || isPublicPath(c.req.method, c.req.path)) return await next();
    const isApi = /^\/(api|mcp)(\/|$)/.test(c.req.path);
    if (!isApi && (c.req.header("accept") ?? "").includes("text/html")) {
      return c.redirect("/login", 302);
    }
    throw c.get("sessionFailure") ?? new AppError("auth.api_key.missing");
  };
}
