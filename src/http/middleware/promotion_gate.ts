/**
 * Step 3, the promotion key gate (docs/decisions.md#the-server-key): the two receiver routes open
 * only to `SVC-Promotion-Key` — the configured pre-shared value, or a valid server-kind key — and
 * every failure is the one identical 401 (the promotion domain decides, see promotion/keys.ts). The
 * actor is the system actor, never the admin who minted the key; the key id rides along for audit.
 */
import type { MiddlewareHandler } from "hono";
import type { AccessDeps } from "../access_deps.ts";
import type { AppEnv } from "../context.ts";

/** The receiver routes; the pipeline registers the gate on these paths only. */
export const PROMOTION_RECEIVERS = ["/api/v1/promotion/inventory", "/api/v1/promotion/push"];
const GATED = new Set(PROMOTION_RECEIVERS);

export function promotionGate(
  deps: Pick<AccessDeps, "promotionKeys" | "systemActor">,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!GATED.has(c.req.path)) return await next();
    const caller = await deps.promotionKeys.authenticate(c.req.header("svc-promotion-key"), {
      ip: c.get("clientIp"),
      path: c.req.path,
    });
    c.set("promotionCaller", caller);
    c.set("principal", {
      userId: deps.systemActor.id,
      email: deps.systemActor.email,
      displayName: deps.systemActor.displayName,
      provider: "system",
      isSuperAdmin: false,
      authMethod: "API_KEY",
      mustChangePassword: false,
      keyId: caller.keyId ?? undefined,
      keyKind: "server",
      scopes: [],
      pinnedWorkspaceId: caller.pinnedWorkspaceId,
    });
    await next();
  };
}
