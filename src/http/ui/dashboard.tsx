/** `/dashboard`: recent and failed runs and open drafts of the active workspace. */
import type { Principal } from "../../identity/mod.ts";
import { DashboardPage, type DashboardProps } from "../../../ui/pages/dashboard.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { Router } from "../routing.ts";
import { pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const DASHBOARD_ROWS = 6;

async function dashboardData(
  deps: UiPageDeps,
  actor: Principal,
  workspaceId: string,
): Promise<NonNullable<DashboardProps["data"]>> {
  const caller = { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin };
  const [recent, failed, drafts, all] = await Promise.all([
    deps.runs.executions.list(caller, { workspaceId }, 0, DASHBOARD_ROWS),
    deps.runs.executions.list(caller, { workspaceId, status: "FAILED" }, 0, DASHBOARD_ROWS),
    deps.content.pipelines.list(workspaceId, { hasDraft: true }, {
      offset: 0,
      limit: DASHBOARD_ROWS,
    }),
    deps.content.pipelines.list(workspaceId, {}, { offset: 0, limit: 200 }),
  ]);
  const names = new Map(all.items.map((x) => [x.id, x.name]));
  const run = (r: (typeof recent.items)[number]) => ({
    execution_id: r.execution_id,
    pipeline_id: r.pipeline_id,
    pipeline_name: names.get(r.pipeline_id) ?? r.pipeline_id,
    status: r.status,
    started_at: r.started_at,
    duration_ms: r.duration_ms,
    triggered_by_name: r.triggered_by === actor.userId ? "you" : r.triggered_via.toLowerCase(),
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

export function dashboardRoutes(router: Router, deps: UiPageDeps): void {
  router.add(
    pageRoute({
      method: "get",
      path: "/dashboard",
      summary: "Dashboard",
      access: "me.read",
    }),
    async (c, { actor, workspace }) => {
      const ctx = await shellContext(c, deps, actor);
      const data = workspace ? await dashboardData(deps, actor, workspace.id) : null;
      return c.html(renderPage(<DashboardPage ctx={ctx} now={new Date()} data={data} />));
    },
  );
}
