/**
 * Running and reading runs: the run form, one run (live while it runs), its result pages, and
 * the run history. A run starts from the browser over the same execute route programs use.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import { EXECUTION_STATUSES, type ExecutionRecord } from "../../executions/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import type { DagNode } from "../../../ui/components/dag.tsx";
import type { ResultPage } from "../../../ui/components/result_table.tsx";
import { type RunNodesInfo, type RunRecord, RunView } from "../../../ui/components/run_view.tsx";
import type { ParameterView } from "../../pipelines/mod.ts";
import { ResultPageView } from "../../../ui/pages/result.tsx";
import { RunFormPage, RunPage } from "../../../ui/pages/run.tsx";
import { RunsPage } from "../../../ui/pages/runs.tsx";
import { renderPage } from "../../../ui/render.tsx";
import { renderToString } from "preact-render-to-string";
import type { Router } from "../routing.ts";
import { markResultSeen } from "../cookies.ts";
import { allows, dayBound, pageRoute, shellContext, type UiPageDeps, userNames } from "./shell.ts";

const id = z.object({ id: z.uuid() });
const PREVIEW_ROWS = 50;
const RESULT_ROWS = 100;
const HISTORY_ROWS = 25;

/** Who reads, where: the handler's actor and the workspace the route guarantees. */
interface At {
  actor: Principal;
  workspace: WorkspaceContext;
}

const callerOf = (p: Principal) => ({ userId: p.userId, isSuperAdmin: p.isSuperAdmin });

function shortName(name: string): string {
  return name.slice(name.lastIndexOf("/") + 1);
}

/** `top_customers-2026-11-28-1530.csv`: the pipeline and the minute the run ended (UTC). */
export function csvName(
  run: { pipeline_name: string; started_at: string; completed_at: string | null },
) {
  const base = shortName(run.pipeline_name).replace(/[^A-Za-z0-9_.-]+/g, "_") || "result";
  const at = (run.completed_at ?? run.started_at).slice(0, 16).replace("T", "-").replace(":", "");
  return `${base}-${at}.csv`;
}

/** Titles of pipelines by id, as people know them (display name, else the path's last part). */
export async function pipelineTitles(
  deps: UiPageDeps,
  workspaceId: string,
  ids: Iterable<string>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  await Promise.all([...new Set(ids)].map(async (pid) => {
    // deno-lint-ignore no-explicit-any
    const p: any = await deps.content.pipelines.get(workspaceId, pid).catch(() => undefined);
    if (p) out[pid] = p.display_name ?? shortName(p.name);
  }));
  return out;
}

/**
 * A run with what the page draws beside it: names, the version's nodes, the first rows, the
 * node spans for the timeline, the child runs its PIPELINE nodes started and the run that
 * started it.
 */
async function loadRun(deps: UiPageDeps, at: At, executionId: string) {
  const { actor } = at;
  const workspaceId = at.workspace.id;
  const executions = deps.runs.executions;
  const caller = callerOf(actor);
  const record = await executions.visible(caller, workspaceId, executionId);
  const [version, names, spans, children, parentRecord] = await Promise.all([
    deps.content.pipelines
      .getVersion(workspaceId, record.pipeline_id, record.pipeline_version)
      // deno-lint-ignore no-explicit-any
      .catch(() => undefined) as Promise<any>,
    userNames(deps, [record.triggered_by]),
    executions.nodeSpans(caller, workspaceId, executionId),
    executions.descendants(caller, [executionId]),
    record.parent_execution_id
      ? executions.visible(caller, workspaceId, record.parent_execution_id).catch(() => null)
      : Promise.resolve(null),
  ]);
  const nodes = (version?.nodes ?? []) as (DagNode & { pipeline?: { id: string } })[];
  const direct = children.filter((c) => c.parent_execution_id === executionId);
  const titles = await pipelineTitles(deps, workspaceId, [
    ...nodes.flatMap((n) => n.pipeline ? [n.pipeline.id] : []),
    ...direct.map((c) => c.pipeline_id),
    ...parentRecord ? [parentRecord.pipeline_id] : [],
  ]);
  const run: RunRecord = {
    ...record,
    pipeline_name: version?.name ?? record.pipeline_id,
    triggered_by_name: record.triggered_by === actor.userId
      ? "you"
      : names.get(record.triggered_by) ?? "someone",
  } as RunRecord;
  const result = record.status === "SUCCESS"
    ? await resultPage(deps, at, record, 0, PREVIEW_ROWS)
    : null;
  // No span for a run whose nodes ended: its events are past their retention.
  const eventsGone = spans.length === 0 && (record.node_stats ?? []).length > 0;
  const info: RunNodesInfo = {
    spans: eventsGone ? null : spans,
    children: direct.map((c) => ({
      execution_id: c.execution_id,
      parent_node_id: c.parent_node_id,
      pipeline_id: c.pipeline_id,
      pipeline_title: titles[c.pipeline_id] ?? "a pipeline no longer stored",
      status: c.status,
      duration_ms: c.duration_ms,
    })),
    pipelineTitles: titles,
    replayableUntil: executions.replayableUntil(record),
  };
  const parent = parentRecord
    ? {
      execution_id: parentRecord.execution_id,
      node_id: record.parent_node_id ?? "",
      pipeline_name: titles[parentRecord.pipeline_id] ?? "a pipeline no longer stored",
    }
    : null;
  return { run, nodes: nodes as DagNode[], result, info, parent };
}

async function resultPage(
  deps: UiPageDeps,
  at: At,
  record: ExecutionRecord,
  offset: number,
  limit: number,
): Promise<ResultPage | null> {
  try {
    const { result, rows } = await deps.runs.executions.page(
      callerOf(at.actor),
      at.workspace.id,
      record.execution_id,
      offset,
      limit,
    );
    return {
      execution_id: record.execution_id,
      schema: result.schema,
      rows,
      offset,
      limit,
      total_rows: result.row_count,
      expires_at: result.expires_at,
    };
  } catch (e) {
    // An expired or absent result is a state the page explains, not an error page.
    if (e instanceof AppError && e.code.startsWith("result.")) return null;
    throw e;
  }
}

export function runPageRoutes(router: Router, deps: UiPageDeps): void {
  router.add(
    pageRoute({
      method: "get",
      path: "/pipelines/:id/run",
      summary: "The run form of a pipeline's working version",
      access: "pipelines.execute",
      params: id,
      errors: ["pipeline.not_found"],
    }),
    async (c, { actor, workspace, params }) => {
      const [ctx, view] = await Promise.all([
        shellContext(c, deps, actor),
        deps.content.pipelines.get(workspace.id, params.id),
      ]);
      // deno-lint-ignore no-explicit-any
      const v = view as any;
      return c.html(renderPage(
        <RunFormPage
          ctx={ctx}
          pipeline={{
            id: v.id,
            name: v.name,
            title: v.display_name ?? shortName(v.name),
            version: v.version,
            status: v.status,
          }}
          parameters={v.parameters as Record<string, ParameterView>}
        />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/runs/:id",
      summary: "One run: live while it runs, else as stored",
      access: "content.read",
      params: id,
      errors: ["result.execution_not_found"],
    }),
    async (c, { actor, workspace, params }) => {
      const [ctx, loaded] = await Promise.all([
        shellContext(c, deps, actor),
        loadRun(deps, { actor, workspace }, params.id),
      ]);
      return c.html(renderPage(
        <RunPage
          ctx={ctx}
          now={new Date()}
          {...loaded}
          canCancel={allows({ actor, workspace }, "executions.cancel")}
        />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/partials/runs/:id",
      summary: "One run's view, for the run form to show once a run has started",
      access: "content.read",
      params: id,
      errors: ["result.execution_not_found"],
    }),
    async (c, { actor, workspace, params }) => {
      const { parent: _, ...loaded } = await loadRun(deps, { actor, workspace }, params.id);
      return c.html(renderToString(
        <RunView
          {...loaded}
          now={new Date()}
          canCancel={allows({ actor, workspace }, "executions.cancel")}
        />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/runs/:id/result",
      summary: "A run's result, paged, with CSV download and a chart",
      access: "results.read",
      params: id,
      page: { defaultLimit: RESULT_ROWS, maxLimit: RESULT_ROWS },
      errors: ["result.execution_not_found"],
    }),
    async (c, { actor, workspace, params, page }) => {
      const [ctx, loaded] = await Promise.all([
        shellContext(c, deps, actor),
        loadRun(deps, { actor, workspace }, params.id),
      ]);
      const result = loaded.run.status === "SUCCESS"
        ? await resultPage(
          deps,
          { actor, workspace },
          loaded.run as unknown as ExecutionRecord,
          page.offset,
          page.limit,
        )
        : null;
      if (result) markResultSeen(c, deps.secureCookies);
      return c.html(renderPage(
        <ResultPageView ctx={ctx} now={new Date()} run={loaded.run} page={result} />,
      ));
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/runs/:id/result.csv",
      summary: "A run's whole result as CSV, named after its pipeline and when it ran",
      access: "results.read",
      params: id,
      errors: [
        "result.execution_not_found",
        "result.execution_incomplete",
        "result.execution_failed",
        "result.expired",
      ],
    }),
    async (c, { actor, workspace, params }) => {
      const { body, record } = await deps.runs.executions.csv(
        callerOf(actor),
        workspace.id,
        params.id,
      );
      // deno-lint-ignore no-explicit-any
      const version: any = await deps.content.pipelines
        .getVersion(workspace.id, record.pipeline_id, record.pipeline_version)
        .catch(() => undefined);
      const name = csvName({ ...record, pipeline_name: version?.name ?? "result" });
      return c.body(body, 200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
      });
    },
  );

  router.add(
    pageRoute({
      method: "get",
      path: "/runs",
      summary: "Run history with filters",
      access: "content.read",
      query: z.object({
        pipeline: z.string().max(64).optional(),
        status: z.enum(EXECUTION_STATUSES).or(z.literal("")).optional(),
        from: z.string().max(40).optional(),
        to: z.string().max(40).optional(),
        who: z.string().max(64).optional(),
      }),
      page: { defaultLimit: HISTORY_ROWS, maxLimit: HISTORY_ROWS },
    }),
    async (c, { actor, workspace, query, page }) => {
      const workspaceId = workspace.id;
      const { offset } = page;
      const pipelineId = query.pipeline && z.uuid().safeParse(query.pipeline).success
        ? query.pipeline
        : undefined;
      // Whose runs: a super admin sees everyone's and may pick one person; anyone else sees only
      // their own (docs/decisions.md#who-sees-which-runs), so they get no such filter and a `who`
      // in the URL is ignored.
      const whoId = actor.isSuperAdmin && query.who && z.uuid().safeParse(query.who).success
        ? query.who
        : undefined;
      const [ctx, runs, pipelines, triggerers] = await Promise.all([
        shellContext(c, deps, actor),
        deps.runs.executions.list(
          callerOf(actor),
          {
            workspaceId,
            // Child runs nest under their parent's row; asked for by pipeline, they stand alone.
            topLevel: !pipelineId,
            pipelineId,
            status: query.status || undefined,
            startedAfter: dayBound(query.from, false),
            startedBefore: dayBound(query.to, true),
            triggeredBy: whoId,
          },
          offset,
          HISTORY_ROWS,
        ),
        deps.content.pipelines.list(workspaceId, {}, { offset: 0, limit: 200 }),
        actor.isSuperAdmin
          ? deps.runs.executions.triggerers(callerOf(actor), workspaceId)
          : Promise.resolve([]),
      ]);
      const children = pipelineId ? [] : await deps.runs.executions.descendants(
        callerOf(actor),
        runs.items.map((r) => r.execution_id),
      );
      const names = new Map(pipelines.items.map((x) => [x.id, x.name]));
      // A pipeline past the first 200 of the filter's list is named by its own lookup.
      const unnamed = [...runs.items, ...children].map((r) => r.pipeline_id)
        .filter((id) => !names.has(id));
      for (const [id, title] of Object.entries(await pipelineTitles(deps, workspaceId, unnamed))) {
        names.set(id, title);
      }
      const all = [...runs.items, ...children];
      const who = await userNames(deps, [...all.map((r) => r.triggered_by), ...triggerers]);
      const nameOf = (id: string) => id === actor.userId ? "you" : who.get(id) ?? "someone";
      const people = actor.isSuperAdmin
        ? triggerers
          .map((id) => ({ id, name: id === actor.userId ? "You" : who.get(id) ?? id }))
          .sort((a, b) =>
            a.id === actor.userId ? -1 : b.id === actor.userId ? 1 : a.name.localeCompare(b.name)
          )
        : null;
      const row = (r: ExecutionRecord) => ({
        ...r,
        pipeline_name: names.get(r.pipeline_id) ?? "a pipeline no longer stored",
        triggered_by_name: nameOf(r.triggered_by),
      });
      return c.html(renderPage(
        <RunsPage
          ctx={ctx}
          now={new Date()}
          filters={{
            pipeline: pipelineId ?? "",
            status: query.status ?? "",
            from: query.from ?? "",
            to: query.to ?? "",
            who: whoId ?? "",
          }}
          people={people}
          pipelines={pipelines.items.map((x) => ({ id: x.id, name: x.name }))}
          runs={runs.items.map(row)}
          childRuns={children.map(row)}
          offset={offset}
          limit={HISTORY_ROWS}
          total={runs.total}
        />,
      ));
    },
  );
}
