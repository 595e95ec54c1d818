/**
 * Step 6, the session filter (docs/access.md#sessions): verifies the `svc_session` token, then
 * re-checks the user's liveness through the cache. A failure clears the cookie and the request
 * continues unauthenticated, remembering why in case the route needs a credential. Skipped when a
 * key already decided and on `/mcp`, which never takes cookies.
 */
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { AppError } from "../../errors/mod.ts";
import { inSpan } from "../../lib/tracing.ts";
import type { AccessDeps } from "../access_deps.ts";
import type { AppEnv } from "../context.ts";
import { clearSessionCookie, SESSION_COOKIE } from "../cookies.ts";

export function session(
  deps: Pick<AccessDeps, "sessions" | "directory" | "secureCookies">,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (c.get("principal") || c.req.path === "/mcp" || !token) return await next();
    try {
      const { claims, user } = await inSpan(
        "authenticate",
        { "svc.credential": "session" },
        async () => {
          const claims = await deps.sessions.verify(token);
          return { claims, user: await deps.directory.sessionUser(claims.sub) };
        },
      );
      if (!user) throw new AppError("auth.session.invalid", { reason: "user inactive or gone" });
      c.set("principal", {
        userId: claims.sub,
        email: user.email,
        displayName: user.displayName,
        provider: user.provider,
        isSuperAdmin: user.isAdmin,
        authMethod: "OIDC",
        amr: claims.amr,
        mustChangePassword: user.mustChangePassword,
        activeWorkspace: claims.active_workspace,
        scopes: [],
      });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      c.set("sessionFailure", e);
      clearSessionCookie(c, deps.secureCookies);
    }
    await next();
  };
}
