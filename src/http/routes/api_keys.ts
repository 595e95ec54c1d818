/**
 * `/api/v1/auth/api-keys` (docs/access.md#api-keys): the caller's keys; issuance rules live in the
 * service.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { apiKeyView, issuedKeyView } from "../../identity/mod.ts";
import { ok, paged, pagedData } from "../envelope.ts";
import type { Services } from "../../services.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "identity" | "admin">;

export function registerRoutes(router: Router, deps: Deps): void {
  router.add({
    method: "get",
    path: "/api/v1/auth/api-keys",
    tag: "auth",
    summary: "The caller's own API keys (never a secret)",
    access: "keys.manage_own",
    response: pagedData(apiKeyView),
  }, async (c, { actor }) => {
    const items = await deps.identity.keys.listOwn(actor.userId);
    return paged(c, items, { offset: 0, limit: items.length, total: items.length });
  });

  router.add({
    method: "post",
    path: "/api/v1/auth/api-keys",
    tag: "auth",
    summary: "Issue a key; the plaintext is in the answer once",
    access: "keys.manage_own",
    status: 201,
    response: issuedKeyView,
    // Validated field by field in the service, which owns the issuance rules and their codes.
    body: z.unknown(),
    errors: [
      "auth.scope.insufficient",
      "auth.key_scope_unavailable",
      "endpoint.key_kind_refused",
      "auth.api_key.expiry_invalid",
    ],
  }, async (c, { actor: principal, workspace, body }) => {
    if (!workspace) throw new AppError("workspace.membership_required", {});
    const issued = await deps.identity.keys.issue(
      { ...principal, activeWorkspaceId: workspace.id },
      body,
      {
        flags: workspace.flags ?? { author: false, promoter: false, admin: false },
        isSuperAdmin: principal.isSuperAdmin,
      },
    );
    return ok(c, issued, 201);
  });

  router.add({
    method: "delete",
    path: "/api/v1/auth/api-keys/:key_id",
    tag: "auth",
    summary: "Revoke a key (own keys; a workspace admin: any key pinned to their workspace)",
    access: "keys.manage_own",
    status: 204,
    params: z.object({ key_id: z.string().max(100) }),
  }, async (c, { actor: principal, params }) => {
    const who = { userId: principal.userId, isSuperAdmin: principal.isSuperAdmin };
    await deps.identity.keys.revoke(principal, params.key_id, async (workspaceId) => {
      if (principal.isSuperAdmin) return true;
      const pinned = await deps.admin.workspaces.resolveById(who, workspaceId);
      return pinned.context?.flags?.admin === true;
    });
    return c.body(null, 204);
  });
}
