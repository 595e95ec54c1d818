/**
 * `/dashboard`: the active workspace's pipelines (each with Run), recent and failed runs, open
 * drafts, and in the demo workspace the first steps of a new user until they are done.
 */
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import { DEMO_WORKSPACE } from "../../workspaces/mod.ts";
import {
  DashboardPage,
  type DashboardProps,
  type FirstSteps,
} from "../../../ui/pages/dashboard.tsx";
import { renderPage } from "../../../ui/render.tsx";
import type { AppContext } from "../context.ts";
import { resultSeen } from "../cookies.ts";
import type { Router } from "../routing.ts";
import { allows, pageRoute, shellContext, type UiPageDeps } from "./shell.ts";

const DASHBOARD_ROWS = 6;
const DASHBOARD_PIPELINES = 8;
/** The demo pipeline the first steps walk through: docs/endpoints.md's guide publishes it too. */
const FIRST_PIPELINE = "demo/top_customers";

type Data = NonNullable<DashboardProps["data"]>;

async function dashboardData(
  c: AppContext,
  deps: UiPageDeps,
  actor: Principal,
  workspace: WorkspaceContext,
): Promise<Data> {
  const workspaceId = workspace.id;
  const caller = { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin };
  const [recent, failed, drafts, all] = await Promise.all([
    // The latest few, uncounted: a workspace's history may hold millions of runs.
    deps.runs.executions.latest(caller, { workspaceId }, DASHBOARD_ROWS),
    deps.runs.executions.latest(caller, { workspaceId, status: "FAILED" }, DASHBOARD_ROWS),
    deps.content.pipelines.list(workspaceId, { hasDraft: true }, {
      offset: 0,
      limit: DASHBOARD_ROWS,
    }),
    deps.content.pipelines.list(workspaceId, {}, { offset: 0, limit: 200 }),
  ]);
  const names = new Map(all.items.map((x) => [x.id, x.name]));
  const run = (r: (typeof recent)[number]) => ({
    execution_id: r.execution_id,
    pipeline_id: r.pipeline_id,
    pipeline_name: names.get(r.pipeline_id) ?? r.pipeline_id,
    status: r.status,
    started_at: r.started_at,
    duration_ms: r.duration_ms,
    triggered_by_name: r.triggered_by === actor.userId ? "you" : r.triggered_via.toLowerCase(),
  });
  const canRun = allows({ actor, workspace }, "pipelines.execute");
  const runs = recent.map(run);
  return {
    recent: runs,
    failed: failed.map(run),
    drafts: drafts.items.map((d) => ({
      id: d.id,
      name: d.name,
      working_version: d.version ?? 1,
      current_version: d.current_version,
      updated_at: d.updated_at,
    })),
    pipelineCount: all.total,
    pipelines: all.items.slice(0, DASHBOARD_PIPELINES).map((p) => ({
      id: p.id,
      name: p.name,
      title: p.display_name ?? p.name.slice(p.name.lastIndexOf("/") + 1),
      status: p.status,
    })),
    canRun,
    firstSteps: canRun && workspace.name === DEMO_WORKSPACE.name
      ? await firstSteps(c, deps, actor, workspace, all.items, runs)
      : null,
  };
}

/**
 * The demo's first steps, each ticked from what is so: a run of yours exists, this browser has
 * opened a result, an endpoint is published in the workspace, and a run came in through one.
 * Null once the last step is done, or without the demo pipeline to walk through. Publishing and
 * calling are offered only to whom may manage endpoints.
 */
async function firstSteps(
  c: AppContext,
  deps: UiPageDeps,
  actor: Principal,
  workspace: WorkspaceContext,
  pipelines: { id: string; name: string; display_name: string | null }[],
  runs: Data["recent"],
): Promise<FirstSteps | null> {
  const target = pipelines.find((p) => p.name === FIRST_PIPELINE);
  if (!target) return null;
  const ran = runs.length > 0;
  const chartSeen = resultSeen(c);
  const lastResult = runs.find((r) => r.status === "SUCCESS");
  const steps: FirstSteps = {
    pipeline: { id: target.id, title: target.display_name ?? target.name },
    ran,
    resultHref: lastResult ? `/runs/${lastResult.execution_id}/result` : null,
    chartSeen,
    publishing: null,
  };
  if (allows({ actor, workspace }, "endpoints.manage")) {
    const at = { actor, workspaceId: workspace.id };
    const endpoints = await deps.publishing.endpoints.list(at, { offset: 0, limit: 1 });
    const first = endpoints.items[0];
    // No endpoint, no call to find: the executions are searched only once one is published.
    const called = first !== undefined && await deps.runs.executions.any(
      { userId: actor.userId, isSuperAdmin: actor.isSuperAdmin },
      { workspaceId: workspace.id, triggeredVia: "ENDPOINT" },
    );
    if (called) return null;
    steps.publishing = {
      endpointHref: first ? `/endpoints/view?path=${encodeURIComponent(first.path_pattern)}` : null,
    };
  } else if (chartSeen && ran) {
    return null;
  }
  return steps;
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
      const data = workspace ? await dashboardData(c, deps, actor, workspace) : null;
      return c.html(renderPage(<DashboardPage ctx={ctx} now={new Date()} data={data} />));
    },
  );
}
