/** `/api/v1/auth/me`, user administration (spec 1 §4.3) and the audit trail. */
import { z } from "zod";
import type { Principal } from "../../identity/mod.ts";
import { toIso } from "../../lib/time.ts";
import type { Services } from "../../services.ts";
import { ok, paged } from "../envelope.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "audit" | "users" | "directory">;

const userId = z.object({ user_id: z.string().max(64) });

const meData = z.object({
  user_id: z.uuid(),
  email: z.string(),
  display_name: z.string(),
  scopes: z.array(z.string()),
  auth_method: z.enum(["OIDC", "API_KEY"]),
  key_id: z.string().optional(),
  workspace: z.string().nullable(),
  is_admin: z.boolean(),
});

const userData = z.object({
  id: z.uuid(),
  email: z.string(),
  display_name: z.string(),
  profile_picture_url: z.string().nullable(),
  provider: z.string(),
  is_active: z.boolean(),
  is_admin: z.boolean(),
  must_change_password: z.boolean(),
  local_login: z.boolean(),
  locked: z.boolean(),
  created_at: z.string(),
  last_login_at: z.string().nullable(),
});

export function registerRoutes(router: Router, deps: Deps): void {
  router.add({
    method: "get",
    path: "/api/v1/auth/me",
    tag: "auth",
    summary: "The current principal",
    access: "me.read",
    response: meData,
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
    response: z.object({ items: z.array(userData) }),
  }, async (c, { page, query }) => {
    const { items, total } = await deps.users.list(query.q, page.offset, page.limit);
    return paged(c, items, { ...page, total });
  });

  router.add({
    method: "get",
    path: "/api/v1/auth/users/:user_id",
    tag: "users",
    summary: "One user (super admin)",
    access: "users.admin",
    params: userId,
    response: userData,
  }, async (c, { params }) => ok(c, await deps.users.view(params.user_id)));

  const flips: [string, (actor: Principal, id: string) => Promise<unknown>][] = [
    ["deactivate", (a, id) => deps.users.setActive(a, id, false)],
    ["activate", (a, id) => deps.users.setActive(a, id, true)],
    ["grant-admin", (a, id) => deps.users.setAdmin(a, id, true)],
    ["revoke-admin", (a, id) => deps.users.setAdmin(a, id, false)],
  ];
  for (const [verb, act] of flips) {
    router.add({
      method: "post",
      path: `/api/v1/auth/users/:user_id/${verb}`,
      tag: "users",
      summary: `${verb} a user (super admin)`,
      access: "users.admin",
      params: userId,
      response: userData,
    }, async (c, { actor, params }) => {
      const view = await act(actor, params.user_id);
      deps.directory.forgetUser(params.user_id);
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
  }, async (c, { actor, workspace, page, query }) => {
    const { items, total } = await deps.audit.trail({
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
