/**
 * Execute over SSE, history, replay, cancel and the result cursor
 * (docs/executions.md#running-pipelines-execute-results-cancel-replay). Thin: the executions
 * service decides; these read headers and query strings and pick the response form. Everything
 * refused before the first frame answers the error envelope.
 */
import { z } from "zod";
import { AppError } from "../../errors/mod.ts";
import type { EventFrame } from "../../executions/mod.ts";
import {
  eventsView,
  EXECUTION_STATUSES,
  executionRowView,
  executionView,
  resultPageView,
  type TriggeredVia,
} from "../../executions/mod.ts";
import type { Principal } from "../../identity/mod.ts";
import type { AppContext } from "../context.ts";
import { ok, paged, pagedData } from "../envelope.ts";
import type { Services } from "../../services.ts";
import type { Router } from "../routing.ts";
import { eventStream } from "../sse.ts";

/** What these routes need of the services. */
type Deps = Pick<Services, "runs" | "publishing" | "settings" | "platform">;

const SSE = "text/event-stream";
const id = z.object({ id: z.uuid() });
const timestamp = z.string().refine((v) => !Number.isNaN(Date.parse(v)), "not a timestamp")
  .transform((v) => new Date(v).toISOString());

const accepts = (c: AppContext, type: string) =>
  (c.req.header("accept") ?? "").split(",").some((p) => p.trim().split(";")[0] === type);

function requireSse(c: AppContext): void {
  if (!accepts(c, SSE)) throw new AppError("request.not_acceptable", { produces: SSE });
}

const caller = (p: Principal) => ({ userId: p.userId, isSuperAdmin: p.isSuperAdmin });

function sseResponse(c: AppContext, body: ReadableStream<Uint8Array>, executionId: string) {
  return c.body(body, 200, {
    "content-type": SSE,
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
    "SVC-Execution-Id": executionId,
  });
}

export function registerRoutes(router: Router, deps: Deps): void {
  const { executions } = deps.runs;
  const { heartbeatMs, disconnectGraceMs: graceMs } = deps.settings.sse;

  router.add({
    method: "post",
    path: "/api/v1/pipelines/:id/execute",
    tag: "executions",
    summary: "Run a pipeline; the response is its event stream",
    access: "pipelines.execute",
    params: id,
    produces: [SSE],
    body: z.object({
      version: z.int().min(1).optional(),
      parameters: z.record(z.string(), z.unknown()).optional(),
    }).optional(),
    errors: [
      "request.not_acceptable",
      "idempotency.key_reused_for_different_request",
      "pipeline.execution.concurrency_limit",
      "pipeline.execution.stream_limit",
      "service.unavailable",
    ],
  }, async (c, { actor, workspace, params, body }) => {
    requireSse(c);
    const started = await executions.execute({
      caller: caller(actor),
      workspaceId: workspace.id,
      pipelineId: params.id,
      version: body?.version,
      parameters: body?.parameters ?? {},
      idempotencyKey: c.req.header("idempotency-key") || undefined,
      ttlHeader: c.req.header("svc-result-ttl-seconds"),
      pageRowsHeader: c.req.header("svc-result-page-rows"),
      correlationId: c.get("correlationId"),
      triggeredVia: (actor.authMethod === "API_KEY" ? "REST" : "UI") as TriggeredVia,
    });
    const stream = eventStream(released(started.frames, started.release), {
      heartbeatMs,
      // A stream cannot be resumed (docs/decisions.md#a-dropped-stream-cancels-its-run): the grace
      // only spares a run whose end is imminent.
      onDisconnect: () => {
        started.disconnected(graceMs);
        started.release();
      },
    });
    return sseResponse(c, stream, started.executionId);
  });

  router.add({
    method: "get",
    path: "/api/v1/executions",
    tag: "executions",
    summary: "Execution history (own executions; a super admin sees the workspace's)",
    access: "content.read",
    query: z.object({
      pipeline_id: z.uuid().optional(),
      status: z.enum(EXECUTION_STATUSES).optional(),
      started_after: timestamp.optional(),
      started_before: timestamp.optional(),
    }),
    page: true,
    response: pagedData(executionRowView),
  }, async (c, { actor, workspace, page, query }) => {
    const { items, total } = await executions.list(
      caller(actor),
      {
        workspaceId: workspace.id,
        pipelineId: query.pipeline_id,
        status: query.status,
        startedAfter: query.started_after,
        startedBefore: query.started_before,
      },
      page.offset,
      page.limit,
    );
    // The list never carries result links.
    const rows = items.map(({ result_expires_at: _, ...r }) => r);
    return paged(c, rows, { ...page, total });
  });

  router.add(
    {
      method: "get",
      path: "/api/v1/executions/:id",
      tag: "executions",
      summary: "One execution record with lineage",
      access: "content.read",
      endpointKeys: true,
      params: id,
      response: executionView,
      errors: ["result.execution_not_found"],
    },
    async (c, { actor, workspace, params }) => {
      await deps.publishing.endpoints.mayReadExecution(actor, params.id);
      return ok(
        c,
        await executions.view(caller(actor), workspace.id, params.id, deps.platform.origin()),
      );
    },
  );

  router.add({
    method: "get",
    path: "/api/v1/executions/:id/events",
    tag: "executions",
    summary: "Replay of the stored event stream (SSE, or JSON with Accept: application/json)",
    access: "content.read",
    params: id,
    response: eventsView,
    produces: [SSE],
    errors: ["result.execution_not_found", "result.expired", "request.not_acceptable"],
  }, async (c, { actor, workspace, params }) => {
    const who = caller(actor);
    if (accepts(c, "application/json") && !accepts(c, SSE)) {
      const events = await executions.replayFrames(who, workspace.id, params.id);
      return ok(c, { events });
    }
    // The replay's own format is the stream (docs/decisions.md#replay-answers-as-stored): a client
    // that states no preference, or takes anything, gets it.
    const accept = c.req.header("accept") ?? "";
    if (accept.trim() !== "" && !accepts(c, SSE) && !accepts(c, "*/*") && !accepts(c, "text/*")) {
      throw new AppError("request.not_acceptable", { produces: SSE });
    }
    const stop = new AbortController();
    const { frames } = await executions.replay(who, workspace.id, params.id, stop.signal);
    const release = await executions.streamSlot(who);
    const stream = eventStream(released(frames, release), {
      heartbeatMs,
      onDisconnect: () => {
        stop.abort();
        release();
      },
    });
    return sseResponse(c, stream, params.id);
  });

  router.add({
    method: "delete",
    path: "/api/v1/executions/:id",
    tag: "executions",
    summary: "Cancel a running execution (owner, or a super admin)",
    access: "executions.cancel",
    status: 204,
    params: id,
    errors: ["result.execution_not_found", "pipeline.execution.not_running"],
  }, async (c, { actor, workspace, params }) => {
    await executions.cancel(caller(actor), workspace.id, params.id);
    return c.body(null, 204);
  });

  router.add({
    method: "get",
    path: "/api/v1/executions/:id/result",
    tag: "executions",
    summary: "The result: JSON pages or the whole result as CSV",
    access: "results.read",
    endpointKeys: true,
    params: id,
    query: z.object({ format: z.string().optional() }),
    page: deps.settings.resultPage,
    response: resultPageView,
    produces: ["text/csv"],
    errors: [
      "result.execution_not_found",
      "result.execution_incomplete",
      "result.execution_failed",
      "result.expired",
      "result.format_unsupported",
    ],
  }, async (c, { actor, workspace, page, params, query }) => {
    await deps.publishing.endpoints.mayReadExecution(actor, params.id);
    const format = query.format ?? "json";
    if (format !== "json" && format !== "csv") {
      throw new AppError("result.format_unsupported", { format, supported: ["json", "csv"] });
    }
    if (format === "csv") {
      const { body } = await executions.csv(caller(actor), workspace.id, params.id);
      return c.body(body, 200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${params.id}.csv"`,
      });
    }
    const { offset, limit } = page;
    const { result, rows } = await executions.page(
      caller(actor),
      workspace.id,
      params.id,
      offset,
      limit,
    );
    return ok(c, {
      execution_id: params.id,
      schema: result.schema,
      rows,
      row_count: rows.length,
      offset,
      limit,
      total_rows: result.row_count,
      has_more: offset + rows.length < result.row_count,
      expires_at: result.expires_at,
    });
  });
}

/** Runs `done` once when the frames end, however they end. */
async function* released(
  frames: AsyncIterable<EventFrame>,
  done: () => Promise<void>,
): AsyncGenerator<EventFrame> {
  try {
    yield* frames;
  } finally {
    await done();
  }
}
