/**
 * `/admin/workspaces` (super admin): every workspace of the instance, and the partials that
 * create, deactivate and reactivate one, over the same workspace service and the same operations
 * as `POST /api/v1/workspaces` and `POST /api/v1/workspaces/{name}/(de|re)activate`. A workspace
 * admin is refused them (403 `auth.role_required`), as REST refuses them.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import type { Principal } from "../../identity/mod.ts";
import {
  AdminWorkspacesPage,
  type AdminWorkspacesProps,
  type WorkspaceSummary,
} from "../../../ui/pages/admin_workspaces.tsx";
import type { Flash } from "../../../ui/pages/workspace.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import type { Router } from "../routing.ts";
import { formPost, pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const named = z.object({ name: z.string().max(200) });

function flashOf(done: string | undefined, name: string): Flash | undefined {
  switch (done) {
    case "created":
      return {
        tone: "ok",
        text: `Workspace ${name} created. Open it to add its first admin by email.`,
      };
    case "deactivated":
      return { tone: "ok", text: `Workspace ${name} is deactivated; nothing was deleted.` };
    case "reactivated":
      return { tone: "ok", text: `Workspace ${name} is active again.` };
    default:
      return undefined;
  }
}

export function adminWorkspaceRoutes(router: Router, deps: UiPageDeps): void {
  const ws = deps.admin.workspaces;

  const page = async (
    c: AppContext,
    actor: Principal,
    extra: Partial<Pick<AdminWorkspacesProps, "flash" | "create">> = {},
    status = 200,
  ) => {
    const [ctx, rows] = await Promise.all([
      shellContext(c, deps, actor),
      ws.listForUser({ userId: actor.userId, isSuperAdmin: true }),
    ]);
    // A handful of reads per workspace: an instance has tens of them, not thousands.
    const workspaces: WorkspaceSummary[] = await Promise.all(
      [...rows].sort((a, b) => a.name.localeCompare(b.name)).map(async (r) => {
        const [record, found] = await Promise.all([ws.get(r.name), ws.members(r.name)]);
        return {
          name: r.name,
          display_name: r.display_name,
          created_at: record?.created_at ?? "",
          ...(r.deactivated_at ? { deactivated_at: r.deactivated_at } : {}),
          members: found.members.length,
          invitations: found.invitations.length,
        };
      }),
    );
    const q = c.req.query();
    const confirm = q.confirm === "deactivate"
      ? workspaces.find((w) => w.name === q.name)
      : undefined;
    const props: AdminWorkspacesProps = {
      ctx,
      workspaces,
      flash: flashOf(q.done, q.name ?? ""),
      confirm,
      ...extra,
    };
    return c.html(renderPage(<AdminWorkspacesPage {...props} />), status as 200);
  };

  router.add(
    pageRoute({
      method: "get",
      path: "/admin/workspaces",
      summary: "Every workspace of the instance: create, deactivate, reactivate (super admin)",
      access: "workspaces.create",
    }),
    (c, { actor }) => page(c, actor),
  );

  formPost(router, {
    path: "/partials/admin/workspaces",
    summary: "Create a workspace from the form (super admin)",
    access: "workspaces.create",
    errors: [
      "workspace.validation.name_invalid",
      "workspace.validation.duplicate_name",
      "pipeline.execution.invalid_parameter_type",
    ],
  }, async (c, { actor }, f) => {
    const draft = { name: f.name ?? "", display_name: f.display_name ?? "" };
    try {
      const made = await ws.create(actor, {
        name: draft.name,
        // An empty display name means "the name", as an absent one does in REST.
        display_name: draft.display_name.trim() === "" ? undefined : draft.display_name,
      });
      deps.identity.directory.forgetWorkspaces();
      return c.redirect(`/admin/workspaces?done=created&name=${made.name}`, 303);
    } catch (e) {
      if (!(e instanceof AppError) || e.status >= 500) throw e;
      const d = e.details as Record<string, unknown>;
      const field = e.code.startsWith("workspace.validation.")
        ? "name"
        : d.field === "display_name"
        ? "display_name"
        : undefined;
      return page(c, actor, {
        create: { ...draft, error: { code: e.code, message: e.message, field } },
      }, e.status);
    }
  });

  for (const verb of ["deactivate", "reactivate"] as const) {
    router.add(
      pageRoute({
        method: "post",
        path: `/partials/admin/workspaces/:name/${verb}`,
        summary: `${verb === "deactivate" ? "Deactivate" : "Reactivate"} a workspace (super admin)`,
        access: "workspaces.state",
        workspaceParam: "name",
        reachDeactivated: true,
        params: named,
      }),
      async (c, { actor, params }) => {
        if (verb === "deactivate") await ws.deactivate(actor, params.name);
        else await ws.reactivate(actor, params.name);
        deps.identity.directory.forgetWorkspaces();
        return c.redirect(`/admin/workspaces?done=${verb}d&name=${params.name}`, 303);
      },
    );
  }
}
