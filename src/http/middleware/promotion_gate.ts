/**
 * Step 3, the promotion key gate (spec 3 §4.4, DECISIONS.md): the two receiver routes open only
 * to a valid server-kind key in `SVC-Promotion-Key`; every failure is one answer. The key's actor
 * is the system actor, never the admin who minted it; the key id rides along for audit.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { AccessDeps } from "../access_deps.ts";
import type { AppEnv } from "../context.ts";

const GATED = new Set(["/api/v1/promotion/inventory", "/api/v1/promotion/push"]);

export function promotionGate(
  deps: Pick<AccessDeps, "keys" | "systemActor">,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!GATED.has(c.req.path)) return await next();
    const presented = c.req.header("svc-promotion-key");
    if (!presented) throw new AppError("auth.promotion.key_invalid", { reason: "missing" });
    const key = await deps.keys.validate(presented, { ip: c.get("clientIp") }).catch(() =>
      undefined
    );
    if (!key || key.kind !== "server") throw new AppError("auth.promotion.key_invalid", {});
    c.set("principal", {
      userId: deps.systemActor.id,
      email: deps.systemActor.email,
      displayName: deps.systemActor.displayName,
      provider: "system",
      isSuperAdmin: false,
      authMethod: "API_KEY",
      mustChangePassword: false,
      keyId: key.keyId,
      keyKind: "server",
      scopes: [],
      pinnedWorkspaceId: key.pinnedWorkspaceId,
    });
    await next();
  };
}
