/**
 * Workspaces and members (docs/access.md#workspaces). Each route is judged in the workspace its
 * path names.
 */
import { z } from "zod";
import {
  invitationReceiptView,
  membersView,
  memberView,
  workspaceRowView,
  workspaceView,
} from "../../workspaces/mod.ts";
import { ok, paged, pagedData } from "../envelope.ts";
import type { Services } from "../../services.ts";
import type { Router } from "../routing.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "admin" | "identity">;

const name = z.object({ name: z.string().max(200) });
const member = z.object({ name: z.string().max(200), user_id: z.string().max(64) });
const invitation = z.object({ name: z.string().max(200), email: z.string().max(320) });

export function registerRoutes(router: Router, deps: Deps): void {
  const ws = deps.admin.workspaces;
  /** Every mutation drops this instance's cached resolutions so the change shows at once. */
  const changed = <T>(value: T): T => {
    deps.identity.directory.forgetWorkspaces();
    return value;
  };

  router.add({
    method: "get",
    path: "/api/v1/workspaces",
    tag: "workspaces",
    summary: "The caller's workspaces (a super admin: every workspace)",
    access: "workspaces.read",
    response: pagedData(workspaceRowView),
  }, async (c, { actor }) => {
    const items = await ws.listForUser({ userId: actor.userId, isSuperAdmin: actor.isSuperAdmin });
    return paged(c, items, { offset: 0, limit: items.length, total: items.length });
  });

  router.add({
    method: "post",
    path: "/api/v1/workspaces",
    tag: "workspaces",
    summary: "Create a workspace (super admin)",
    access: "workspaces.create",
    status: 201,
    body: z.unknown(),
    response: workspaceView,
  }, async (c, { actor, body }) => {
    const input = (typeof body === "object" && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    return ok(
      c,
      changed(await ws.create(actor, { name: input.name, display_name: input.display_name })),
      201,
    );
  });

  router.add({
    method: "get",
    path: "/api/v1/workspaces/:name",
    tag: "workspaces",
    summary: "One workspace",
    access: "workspaces.read",
    workspaceParam: "name",
    params: name,
    response: workspaceView,
  }, async (c, { params }) => ok(c, await ws.view(params.name)));

  router.add(
    {
      method: "put",
      path: "/api/v1/workspaces/:name",
      tag: "workspaces",
      summary: "Update the display name",
      access: "workspaces.update",
      workspaceParam: "name",
      params: name,
      body: z.object({ display_name: z.string().min(1).max(200).optional() }),
      response: workspaceView,
    },
    async (c, { actor, params, body }) => ok(c, changed(await ws.update(actor, params.name, body))),
  );

  router.add({
    method: "delete",
    path: "/api/v1/workspaces/:name",
    tag: "workspaces",
    summary: "Soft-delete a workspace that owns no content",
    access: "workspaces.update",
    status: 204,
    workspaceParam: "name",
    params: name,
    errors: ["workspace.in_use"],
  }, async (c, { actor, params }) => {
    changed(await ws.remove(actor, params.name));
    return c.body(null, 204);
  });

  for (const verb of ["deactivate", "reactivate"] as const) {
    router.add({
      method: "post",
      path: `/api/v1/workspaces/:name/${verb}`,
      tag: "workspaces",
      summary: `${verb[0].toUpperCase()}${verb.slice(1)} a workspace (super admin)`,
      access: "workspaces.state",
      workspaceParam: "name",
      reachDeactivated: true,
      params: name,
      response: workspaceView,
    }, async (c, { actor, params }) => {
      const view = verb === "deactivate"
        ? await ws.deactivate(actor, params.name)
        : await ws.reactivate(actor, params.name);
      return ok(c, changed(view));
    });
  }

  router.add({
    method: "get",
    path: "/api/v1/workspaces/:name/members",
    tag: "workspaces",
    summary: "Members and pending invitations",
    access: "workspaces.read",
    workspaceParam: "name",
    params: name,
    response: membersView,
  }, async (c, { params }) => ok(c, await ws.members(params.name)));

  router.add({
    method: "post",
    path: "/api/v1/workspaces/:name/members",
    tag: "workspaces",
    summary: "Add a member by email (200), or invite one without an account (202)",
    access: "members.manage",
    workspaceParam: "name",
    reachDeactivated: true,
    params: name,
    body: z.unknown(),
    response: memberView,
    alsoAnswers: { 202: invitationReceiptView },
  }, async (c, { actor, params, body }) => {
    const result = changed(await ws.addMember(actor, params.name, body));
    return result.status === 202 ? ok(c, result.invitation, 202) : ok(c, result.member);
  });

  router.add(
    {
      method: "put",
      path: "/api/v1/workspaces/:name/members/:user_id",
      tag: "workspaces",
      summary: "Replace a member's flags",
      access: "members.manage",
      workspaceParam: "name",
      params: member,
      body: z.unknown(),
      response: memberView,
      errors: ["workspace.last_admin"],
    },
    async (c, { actor, params, body }) =>
      ok(c, changed(await ws.setFlags(actor, params.name, params.user_id, body))),
  );

  router.add({
    method: "delete",
    path: "/api/v1/workspaces/:name/members/:user_id",
    tag: "workspaces",
    summary: "Remove a member",
    access: "members.manage",
    status: 204,
    workspaceParam: "name",
    params: member,
    errors: ["workspace.last_admin"],
  }, async (c, { actor, params }) => {
    changed(await ws.removeMember(actor, params.name, params.user_id));
    return c.body(null, 204);
  });

  router.add({
    method: "delete",
    path: "/api/v1/workspaces/:name/invitations/:email",
    tag: "workspaces",
    summary: "Revoke a pending invitation",
    access: "members.manage",
    status: 204,
    workspaceParam: "name",
    reachDeactivated: true,
    params: invitation,
    errors: ["workspace.invitation.not_found"],
  }, async (c, { actor, params }) => {
    changed(await ws.revokeInvitation(actor, params.name, params.email));
    return c.body(null, 204);
  });
}
