/**
 * Step 5, the API key filter: `SVC-API-Key`, or `Authorization: Bearer` on `/mcp` only. When a key
 * is presented it decides: a failing key ends the request with its own error and the session cookie
 * is never consulted.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import { expandScopes } from "../../identity/mod.ts";
import { inSpan } from "../../lib/tracing.ts";
import type { AccessDeps } from "../access_deps.ts";
import type { AppEnv } from "../context.ts";

export function apiKey(deps: Pick<AccessDeps, "keys">): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let presented = c.req.header("svc-api-key");
    if (!presented && c.req.path === "/mcp") {
      const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
      presented = bearer?.[1];
    }
    if (presented === undefined || c.get("principal")) return await next();
    const key = await inSpan(
      "authenticate",
      { "svc.credential": "api_key" },
      () => deps.keys.validate(presented, { ip: c.get("clientIp") }),
    );
    if (key.kind === "server") {
      throw new AppError("endpoint.key_kind_refused", { reason: "server_key_off_surface" });
    }
    c.set("principal", {
      userId: key.userId,
      email: key.email,
      displayName: key.display_name,
      provider: key.provider,
      isSuperAdmin: key.is_admin,
      authMethod: "API_KEY",
      mustChangePassword: false,
      keyId: key.keyId,
      keyKind: key.kind,
      scopes: key.kind === "user" ? expandScopes(key.scopes) : [],
      pinnedWorkspaceId: key.pinnedWorkspaceId,
    });
    await next();
  };
}
