/**
 * The signed-in browser pages (spec 1 §4.1). Each page is one read of the same domain services
 * REST uses; the views in `ui/` only draw what they are handed.
 */
import type { ExecutionService } from "../../executions/service.ts";
import type { UserService } from "../../identity/users.ts";
import type { Principal } from "../../identity/types.ts";
import type { PipelineService } from "../../pipelines/mod.ts";
import type { WorkspaceService } from "../../workspaces/mod.ts";
import type { Theme } from "../../../ui/layouts/base.tsx";
import type { ShellContext } from "../../../ui/layouts/shell.tsx";
import { DashboardPage, type DashboardProps } from "../../../ui/pages/dashboard.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import { ensureCsrfToken } from "../cookies.ts";
import type { Router } from "../routing.ts";

export interface UiPageDeps {
  users: UserService;
  workspaces: WorkspaceService;
  pipelines: PipelineService;
  executions: ExecutionService;
  secureCookies: boolean;
}

/** The frame every signed-in page draws: who, where, which theme, where else. */
export async function shellContext(
  c: AppContext,
  deps: UiPageDeps,
  p: Principal,
): Promise<ShellContext> {
  const [user, workspaces] = await Promise.all([
    deps.users.get(p.userId),
    deps.workspaces.listForUser({ userId: p.userId, isSuperAdmin: p.isSuperAdmin }),
  ]);
  return {
    csrf: ensureCsrfToken(c, deps.secureCookies),
    theme: (user.theme as Theme) ?? "system",
    user: { displayName: p.displayName, email: p.email, isSuperAdmin: p.isSuperAdmin },
    workspace: c.get("workspace")?.name ?? null,
    workspaces,
  };
}

const DASHBOARD_ROWS = 6;

async function dashboardData(
  deps: UiPageDeps,
  p: Principal,
  workspaceId: string,
): Promise<NonNullable<DashboardProps["data"]>> {
  const caller = { userId: p.userId, isSuperAdmin: p.isSuperAdmin };
  const [recent, failed, drafts, all] = await Promise.all([
    deps.executions.list(caller, { workspaceId }, 0, DASHBOARD_ROWS),
    deps.executions.list(caller, { workspaceId, status: "FAILED" }, 0, DASHBOARD_ROWS),
    deps.pipelines.list(workspaceId, { hasDraft: true }, { offset: 0, limit: DASHBOARD_ROWS }),
    deps.pipelines.list(workspaceId, {}, { offset: 0, limit: 200 }),
  ]);
  const names = new Map(all.items.map((x) => [x.id, x.name]));
  const run = (r: (typeof recent.items)[number]) => ({
    execution_id: r.execution_id,
    pipeline_id: r.pipeline_id,
    pipeline_name: names.get(r.pipeline_id) ?? r.pipeline_id,
    status: r.status,
    started_at: r.started_at,
    duration_ms: r.duration_ms,
    triggered_by_name: r.triggered_by === p.userId ? "you" : r.triggered_via.toLowerCase(),
  });
  return {
    recent: recent.items.map(run),
    failed: failed.items.map(run),
    drafts: drafts.items.map((d) => ({
      id: d.id,
      name: d.name,
      working_version: d.version ?? 1,
      current_version: d.current_version,
      updated_at: d.updated_at,
    })),
    pipelineCount: all.total,
  };
}

export function uiPageRoutes(router: Router, deps: UiPageDeps): void {
  router.add({
    method: "get",
    path: "/dashboard",
    tag: "pages",
    summary: "Dashboard",
    kind: "html",
    access: "me.read",
  }, async (c) => {
    const p = c.get("principal")!;
    const ctx = await shellContext(c, deps, p);
    const workspace = c.get("workspace");
    const data = workspace ? await dashboardData(deps, p, workspace.id) : null;
    return c.html(renderPage(<DashboardPage ctx={ctx} now={new Date()} data={data} />));
  });
}
