/**
 * `/api/v1/auth/me`, user administration (docs/access.md#local-user-administration) and the audit
 * trail.
 */
import { z } from "zod";
import { auditRowView } from "../../audit/mod.ts";
import { type Principal, principalView, userAccountView } from "../../identity/mod.ts";
import { toIso } from "../../lib/time.ts";
import type { Services } from "../../services.ts";
import { ok, paged, pagedData } from "../envelope.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "admin" | "identity">;

const userId = z.object({ user_id: z.string().max(64) });

export function registerRoutes(router: Router, deps: Deps): void {
  router.add({
    method: "get",
    path: "/api/v1/auth/me",
    tag: "auth",
    summary: "The current principal",
    access: "me.read",
    response: principalView,
  }, (c, { actor: p, workspace }) => {
    return ok(c, {
      user_id: p.userId,
      email: p.email,
      display_name: p.displayName,
      scopes: p.scopes,
      auth_method: p.authMethod,
      ...(p.keyId ? { key_id: p.keyId } : {}),
      workspace: workspace?.name ?? null,
      is_admin: p.isSuperAdmin,
    });
  });

  router.add({
    method: "get",
    path: "/api/v1/auth/users",
    tag: "users",
    summary: "List users (super admin)",
    access: "users.admin",
    query: z.object({ q: z.string().max(200).optional() }),
    page: true,
    response: pagedData(userAccountView),
  }, async (c, { page, query }) => {
    const { items, total } = await deps.identity.users.list(query.q, page.offset, page.limit);
    return paged(c, items, { ...page, total });
  });

  router.add({
    method: "get",
    path: "/api/v1/auth/users/:user_id",
    tag: "users",
    summary: "One user (super admin)",
    access: "users.admin",
    params: userId,
    response: userAccountView,
  }, async (c, { params }) => ok(c, await deps.identity.users.view(params.user_id)));

  const flips: [string, (actor: Principal, id: string) => Promise<unknown>][] = [
    ["deactivate", (a, id) => deps.identity.users.setActive(a, id, false)],
    ["activate", (a, id) => deps.identity.users.setActive(a, id, true)],
    ["grant-admin", (a, id) => deps.identity.users.setAdmin(a, id, true)],
    ["revoke-admin", (a, id) => deps.identity.users.setAdmin(a, id, false)],
  ];
  for (const [verb, act] of flips) {
    router.add({
      method: "post",
      path: `/api/v1/auth/users/:user_id/${verb}`,
      tag: "users",
      summary: `${verb} a user (super admin)`,
      access: "users.admin",
      params: userId,
      response: userAccountView,
    }, async (c, { actor, params }) => {
      const view = await act(actor, params.user_id);
      deps.identity.directory.forgetUser(params.user_id);
      return ok(c, view);
    });
  }

  router.add({
    method: "get",
    path: "/api/v1/audit",
    tag: "audit",
    summary: "The audit trail: a workspace admin's own workspace, a super admin's whole instance",
    access: "audit.read",
    query: z.object({
      event: z.string().max(100).optional(),
      actor: z.uuid().optional(),
      from: z.string().refine((v) => toIsoSafe(v) !== null, "an ISO 8601 timestamp").optional(),
      to: z.string().refine((v) => toIsoSafe(v) !== null, "an ISO 8601 timestamp").optional(),
      scope: z.enum(["workspace", "instance"]).optional(),
    }),
    page: true,
    response: pagedData(auditRowView),
  }, async (c, { actor, workspace, page, query }) => {
    const { items, total } = await deps.admin.audit.trail({
      isSuperAdmin: actor.isSuperAdmin,
      workspaceId: workspace?.id ?? null,
    }, {
      scope: query.scope,
      event: query.event,
      actor: query.actor,
      from: query.from ? toIsoSafe(query.from)! : undefined,
      to: query.to ? toIsoSafe(query.to)! : undefined,
      ...page,
    });
    return paged(c, items, { ...page, total });
  });
}

function toIsoSafe(value: string): string | null {
  try {
    return toIso(value);
  } catch {
    return null;
  }
}
