/**
 * Step 11, scope and role (docs/access.md#roles), as each route's own middleware (the Router puts
 * it in front of the handler, so Hono's match is the only one): key kinds are confined first, then
 * the route's declared operation is checked on both axes. A route without a declaration is refused
 * (default-deny). Routes that name their workspace in the path are judged in that workspace. The
 * decision's audit rows are the identity domain's (identity/access_audit.ts).
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { AccessDeps } from "../access_deps.ts";
import type { AppEnv } from "../context.ts";
import type { RouteSpec } from "../routing.ts";

export function routeAccess(
  spec: RouteSpec,
  deps: Pick<AccessDeps, "directory" | "access">,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = c.get("principal");
    if (principal?.keyKind === "endpoint" && !spec.endpointKeys) {
      throw new AppError("endpoint.key_kind_refused", { reason: "endpoint_key_off_surface" });
    }
    // Server keys arrive only through the promotion gate and reach only the receiver routes.
    if (principal?.keyKind === "server" && !spec.promotionReceiver) {
      throw new AppError("endpoint.key_kind_refused", { reason: "server_key_off_surface" });
    }
    if (spec.access === "public") return await next();
    // An endpoint-kind key has no scopes: on the routes open to it (its own executions) it bypasses
    // both axes, and the handler proves it started what it reads
    // (docs/decisions.md#every-serve-is-recorded-before-its-answer).
    if (principal?.keyKind === "endpoint") return await next();
    if (!spec.access) {
      throw new AppError("auth.role_required", { required: "declared operation", held: [] });
    }
    if (!principal) throw c.get("sessionFailure") ?? new AppError("auth.api_key.missing");

    let workspace = c.get("workspace");
    if (spec.workspaceParam) {
      const name = c.req.param(spec.workspaceParam) ?? "";
      const user = { userId: principal.userId, isSuperAdmin: principal.isSuperAdmin };
      const target = await deps.directory.resolveByName(user, name);
      const keyMismatch = principal.authMethod === "API_KEY" && target?.id !== workspace?.id;
      if (target && !keyMismatch) {
        workspace = target;
      } else {
        // Some verbs reach a deactivated workspace, and only for a super admin session.
        const deactivated =
          spec.reachDeactivated && principal.isSuperAdmin && principal.authMethod !== "API_KEY"
            ? await deps.directory.describe(name)
            : null;
        if (deactivated?.state !== "deactivated") {
          throw new AppError("workspace.not_found", { workspace: name });
        }
        workspace = {
          id: deactivated.id,
          name: deactivated.name,
          flags: { author: true, promoter: true, admin: true },
          implicit: true,
        };
      }
    }
    let operation = spec.access;
    if (spec.accessFor) {
      const chosen = await spec.accessFor(c, {
        actor: principal,
        params: c.req.param(),
        workspace,
      });
      if (chosen) {
        operation = chosen.access;
        if (chosen.workspace !== undefined) workspace = chosen.workspace;
      }
    }
    await deps.access.authorize(
      { operation, principal, workspace, membershipCount: c.get("membershipCount") ?? 0 },
      { path: c.req.path, method: c.req.method },
    );
    c.set("workspace", workspace);
    await next();
  };
}
