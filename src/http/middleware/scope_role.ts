/**
 * Step 11, scope and role (spec 1 §4.6, §5.6): key kinds are confined first, then the matched
 * route's declared operation is checked on both axes. A route without a declaration is refused
 * (default-deny). Routes that name their workspace in the path are judged in that workspace.
 * A super admin acting where they hold no membership is audited on every governed request.
 */
import type { MiddlewareHandler } from "hono";
import { recordAudit } from "../../audit/mod.ts";
import { AppError } from "../../errors/mod.ts";
import { authorize } from "../../identity/mod.ts";
import type { AccessDeps } from "../access_deps.ts";
import type { AppEnv } from "../context.ts";

/** Refusals of the two axes, audited as `auth.scope.denied`. */
const DENIALS = new Set<string>([
  "auth.scope.insufficient",
  "auth.role_required",
  "auth.key_issuer_role_lost",
]);

export function scopeAndRole(
  deps: Pick<AccessDeps, "router" | "directory" | "db">,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = c.get("principal");
    const match = deps.router.match(c.req.method, c.req.path);
    if (!match) return await next(); // 404 or 405 answers from the fallback
    const { spec, params } = match;
    if (principal?.keyKind === "endpoint" && !spec.endpointKeys) {
      throw new AppError("endpoint.key_kind_refused", { reason: "endpoint_key_off_surface" });
    }
    // Server keys arrive only through the promotion gate and reach only the receiver routes.
    if (principal?.keyKind === "server" && !spec.promotionReceiver) {
      throw new AppError("endpoint.key_kind_refused", { reason: "server_key_off_surface" });
    }
    if (spec.access === "public") return await next();
    if (!spec.access) {
      throw new AppError("auth.role_required", { required: "declared operation", held: [] });
    }
    if (!principal) throw c.get("sessionFailure") ?? new AppError("auth.api_key.missing");

    let workspace = c.get("workspace");
    if (spec.workspaceParam) {
      const name = params[spec.workspaceParam] ?? "";
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
      const chosen = await spec.accessFor(c, params, workspace);
      if (chosen) {
        operation = chosen.access;
        if (chosen.workspace !== undefined) workspace = chosen.workspace;
      }
    }
    try {
      authorize({
        operation,
        principal,
        workspace,
        membershipCount: c.get("membershipCount") ?? 0,
      });
    } catch (e) {
      if (e instanceof AppError && DENIALS.has(e.code)) {
        await recordAudit(deps.db, {
          event: "auth.scope.denied",
          userId: principal.userId,
          provider: principal.provider,
          workspaceId: workspace?.id ?? null,
          details: {
            operation,
            code: e.code,
            ...e.details,
            key_id: principal.keyId,
            path: c.req.path,
          },
        });
      }
      throw e;
    }
    if (workspace?.implicit) {
      await recordAudit(deps.db, {
        event: "auth.super_admin_acting",
        userId: principal.userId,
        provider: principal.provider,
        workspaceId: workspace.id,
        details: {
          operation,
          workspace: workspace.name,
          path: c.req.path,
          method: c.req.method,
          acting_via: "super_admin",
        },
      });
    }
    c.set("workspace", workspace);
    await next();
  };
}
