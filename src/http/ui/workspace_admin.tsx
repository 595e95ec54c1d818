/**
 * Workspace administration for people (issue 23 item 3): `/workspaces/{name}` with its members,
 * invitations and settings, over the same workspace service as `/api/v1/workspaces/{name}/**`.
 * Each partial is judged like its REST twin (the workspace its path names, the same operation)
 * and refuses with the same codes; a refusal is drawn where it belongs: on the member's row, on
 * the form's field, or at the top of the page.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import type { Principal } from "../../identity/mod.ts";
import type { InvitationRow, MemberRow as MemberRecord } from "../../workspaces/mod.ts";
import { renderToString } from "preact-render-to-string";
import { flagWords, MemberRow, type MemberView } from "../../../ui/components/member_row.tsx";
import {
  type Flash,
  WorkspacePage,
  type WorkspacePageProps,
} from "../../../ui/pages/workspace.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import type { Router, RouteSpec } from "../routing.ts";
import { formPost, pageRoute, shellContext, type UiPageDeps, userNames } from "./shell.ts";

const named = z.object({ name: z.string().max(200) });
const member = named.extend({ user_id: z.string().max(64) });
const invitation = named.extend({ email: z.string().max(320) });

/** A refusal of what was asked, drawn in place; anything else is the error page's. */
function refusal(e: unknown): e is AppError {
  return e instanceof AppError && e.status < 500;
}

const isHtmx = (c: AppContext) => c.req.header("hx-request") === "true";

/** Checkboxes post "true" when ticked and nothing otherwise. */
function flagsOf(f: Record<string, string>) {
  return {
    author: f.author === "true",
    promoter: f.promoter === "true",
    admin: f.admin === "true",
  };
}

const pageOf = (name: string) => `/workspaces/${name}`;

/** The line a finished act leaves at the top of the page (`?done=…&who=…`). */
function flashOf(
  done: string | undefined,
  who: string,
  found: { members: MemberRecord[]; invitations: InvitationRow[] },
): Flash | undefined {
  const m = found.members.find((x) => x.email === who);
  const i = found.invitations.find((x) => x.email === who);
  switch (done) {
    case "added":
      return { tone: "ok", text: `${who} is now a member, as ${m ? flagWords(m) : "asked"}.` };
    case "existing":
      return {
        tone: "ok",
        text: `${who} is already a member; their flags stay as they are (change them below).`,
      };
    case "invited":
      return {
        tone: "ok",
        text: `No account uses ${who} yet, so an invitation was created${
          i ? ` (as ${flagWords(i)})` : ""
        }: it becomes a membership when they first sign in.`,
      };
    case "removed":
      return { tone: "ok", text: `${who} was removed from the workspace.` };
    case "revoked":
      return { tone: "ok", text: `The invitation of ${who} was revoked.` };
    case "settings":
      return { tone: "ok", text: "Settings saved." };
    default:
      return undefined;
  }
}

export function workspacePageRoutes(router: Router, deps: UiPageDeps): void {
  const ws = deps.admin.workspaces;
  /** Every change drops this instance's cached resolutions, as the REST routes do. */
  const changed = () => deps.identity.directory.forgetWorkspaces();

  const viewOf = (m: MemberRecord, actor: Principal): MemberView => ({
    user_id: m.user_id,
    email: m.email,
    display_name: m.display_name,
    joined_at: m.joined_at,
    author: m.author,
    promoter: m.promoter,
    admin: m.admin,
    self: m.user_id === actor.userId,
  });

  /** The page of workspace `name`, with what the request adds (a refusal, a draft, a dialog). */
  const page = async (
    c: AppContext,
    actor: Principal,
    name: string,
    extra: Partial<Omit<WorkspacePageProps, "ctx" | "ws" | "base" | "members" | "invitations">>,
    status = 200,
  ) => {
    const [ctx, view, found] = await Promise.all([
      shellContext(c, deps, actor),
      ws.view(name),
      ws.members(name),
    ]);
    const inviters = await userNames(deps, found.invitations.map((i) => i.invited_by));
    const members = found.members.map((m) => viewOf(m, actor));
    const invitations = found.invitations.map((i) => ({
      ...i,
      invited_by: inviters.get(i.invited_by) ?? "someone no longer here",
    }));
    const q = c.req.query();
    const asked = q.confirm === "remove"
      ? members.find((m) => m.user_id === q.user)
      : q.confirm === "revoke"
      ? invitations.find((i) => i.email === q.email)
      : undefined;
    const props: WorkspacePageProps = {
      ctx,
      ws: view,
      base: pageOf(view.name),
      members,
      invitations,
      memberDatasources: deps.settings.memberDatasourceWrites,
      flash: flashOf(q.done, q.who ?? "", found),
      confirm: asked
        ? ("user_id" in asked
          ? { kind: "remove", member: asked }
          : { kind: "revoke", invitation: asked })
        : undefined,
      ...extra,
    };
    return c.html(renderPage(<WorkspacePage {...props} />), status as 200);
  };

  router.add(
    pageRoute({
      method: "get",
      path: "/workspace",
      summary: "The active workspace's administration page",
      access: "members.manage",
    }),
    (c, { workspace }) => {
      const search = new URL(c.req.url).search;
      return c.redirect(`${pageOf(workspace.name)}${search}`, 302);
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/workspaces/:name",
      summary: "A workspace's members, invitations and settings (workspace admin, super admin)",
      access: "members.manage",
      workspaceParam: "name",
      params: named,
    }),
    (c, { actor, workspace }) => page(c, actor, workspace.name, {}),
  );

  // The acts on one member's row, judged as their REST twins are.
  const onMember = {
    access: "members.manage",
    workspaceParam: "name",
    params: member,
    errors: ["workspace.last_admin", "workspace.inactive"],
  } satisfies Partial<RouteSpec>;

  formPost(router, {
    path: "/partials/workspaces/:name/members/:user_id/flags",
    summary: "Replace a member's flags from their row; htmx gets the row back",
    ...onMember,
  }, async (c, { actor, params, workspace }, f) => {
    const flags = flagsOf(f);
    try {
      const row = await ws.setFlags(actor, workspace.name, params.user_id, flags);
      changed();
      if (!isHtmx(c)) {
        const to = `${pageOf(workspace.name)}#member-${row.user_id}`;
        return c.redirect(to, 303);
      }
      return c.html(renderToString(
        <MemberRow
          m={viewOf(row, actor)}
          base={pageOf(workspace.name)}
          workspace={workspace.name}
          csrf={c.req.header("svc-csrf-token") ?? ""}
          saved
        />,
      ));
    } catch (e) {
      if (!refusal(e)) throw e;
      return await refusedOnRow(c, actor, workspace.name, params.user_id, e);
    }
  });

  /** A refusal of a member's act: on their row (htmx: the row alone), else at the top. */
  const refusedOnRow = async (
    c: AppContext,
    actor: Principal,
    name: string,
    userId: string,
    e: AppError,
  ) => {
    const stored = (await ws.members(name).catch(() => undefined))?.members
      .find((m) => m.user_id === userId);
    const error = { code: e.code, message: e.message };
    if (isHtmx(c)) {
      if (!stored) throw e;
      return c.html(
        renderToString(
          <MemberRow
            m={viewOf(stored, actor)}
            base={pageOf(name)}
            workspace={name}
            csrf={c.req.header("svc-csrf-token") ?? ""}
            error={error}
          />,
        ),
        e.status as 409,
      );
    }
    return page(
      c,
      actor,
      name,
      stored
        ? { rowError: { userId, error } }
        : { flash: { tone: "error", text: `${e.message} (${e.code})` } },
      e.status,
    );
  };

  router.add(
    pageRoute({
      method: "post",
      path: "/partials/workspaces/:name/members/:user_id/remove",
      summary: "Remove a member (asked first on the page)",
      ...onMember,
    }),
    async (c, { actor, params, workspace }) => {
      const gone = (await ws.members(workspace.name)).members
        .find((m) => m.user_id === params.user_id);
      try {
        await ws.removeMember(actor, workspace.name, params.user_id);
      } catch (e) {
        if (!refusal(e)) throw e;
        return await refusedOnRow(c, actor, workspace.name, params.user_id, e);
      }
      changed();
      // Whoever removed themselves has no page here any more.
      if (params.user_id === actor.userId && !actor.isSuperAdmin) {
        return c.redirect("/dashboard", 303);
      }
      const who = encodeURIComponent(gone?.email ?? params.user_id);
      return c.redirect(`${pageOf(workspace.name)}?done=removed&who=${who}`, 303);
    },
  );

  formPost(router, {
    path: "/partials/workspaces/:name/members",
    summary: "Add a member by email, or invite someone without an account yet",
    access: "members.manage",
    workspaceParam: "name",
    reachDeactivated: true,
    params: named,
    errors: [
      "pipeline.execution.invalid_parameter_type",
      "auth.login.domain_not_allowed",
      "workspace.inactive",
    ],
  }, async (c, { actor, workspace }, f) => {
    const draft = { email: f.email ?? "", ...flagsOf(f) };
    const email = draft.email.trim().toLowerCase();
    try {
      // The service answers a member either way; only the list before tells "already one".
      const before = await ws.members(workspace.name);
      const result = await ws.addMember(actor, workspace.name, draft);
      changed();
      const done = result.status === 202
        ? "invited"
        : before.members.some((m) => m.user_id === result.member.user_id)
        ? "existing"
        : "added";
      const who = encodeURIComponent(email);
      return c.redirect(`${pageOf(workspace.name)}?done=${done}&who=${who}`, 303);
    } catch (e) {
      if (!refusal(e)) throw e;
      const d = e.details as Record<string, unknown>;
      const field = d.field === "email" || e.code === "auth.login.domain_not_allowed"
        ? "email"
        : undefined;
      return page(c, actor, workspace.name, {
        add: { draft, error: { code: e.code, message: e.message, field } },
      }, e.status);
    }
  });

  router.add(
    pageRoute({
      method: "post",
      path: "/partials/workspaces/:name/invitations/:email/revoke",
      summary: "Revoke a pending invitation (asked first on the page)",
      access: "members.manage",
      workspaceParam: "name",
      // As its REST twin: a super admin may still tidy a deactivated workspace's invitations.
      reachDeactivated: true,
      params: invitation,
      errors: ["workspace.invitation.not_found"],
    }),
    async (c, { actor, params, workspace }) => {
      try {
        await ws.revokeInvitation(actor, workspace.name, params.email);
      } catch (e) {
        if (!refusal(e)) throw e;
        return page(c, actor, workspace.name, {
          flash: { tone: "error", text: `${e.message} (${e.code})` },
        }, e.status);
      }
      changed();
      const who = encodeURIComponent(params.email.trim().toLowerCase());
      return c.redirect(`${pageOf(workspace.name)}?done=revoked&who=${who}`, 303);
    },
  );

  formPost(router, {
    path: "/partials/workspaces/:name/settings",
    summary: "Change a workspace's display name",
    access: "workspaces.update",
    workspaceParam: "name",
    params: named,
    errors: ["pipeline.execution.invalid_parameter_type", "workspace.inactive"],
  }, async (c, { actor, workspace }, f) => {
    const displayName = f.display_name ?? "";
    try {
      await ws.update(actor, workspace.name, { display_name: displayName });
    } catch (e) {
      if (!refusal(e)) throw e;
      const d = e.details as Record<string, unknown>;
      return page(c, actor, workspace.name, {
        settings: {
          display_name: displayName,
          error: {
            code: e.code,
            message: e.message,
            field: d.field === "display_name" ? "display_name" : undefined,
          },
        },
      }, e.status);
    }
    changed();
    return c.redirect(`${pageOf(workspace.name)}?done=settings`, 303);
  });
}
