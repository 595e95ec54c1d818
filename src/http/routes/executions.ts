/**
 * Execute over SSE, history, replay, cancel and the result cursor (spec 2 §4.3–4.5). Thin: the
 * executions service decides; these read headers and query strings and pick the response form.
 * Everything refused before the first frame answers the error envelope.
 */
import { z } from "zod";
import type { ResolvedConfig } from "../../config/mod.ts";
import { AppError } from "../../errors/mod.ts";
import {
  type EventFrame,
  EXECUTION_STATUSES,
  type ExecutionService,
  type TriggeredVia,
} from "../../executions/mod.ts";
import type { AppContext } from "../context.ts";
import { ok, paged } from "../envelope.ts";
import type { Router } from "../routing.ts";
import { eventStream } from "../sse.ts";

export interface ExecutionRouteDeps {
  executions: ExecutionService;
  config: ResolvedConfig;
  baseUrl: () => string;
}

const SSE = "text/event-stream";
const id = z.object({ id: z.uuid() });
const timestamp = z.string().refine((v) => !Number.isNaN(Date.parse(v)), "not a timestamp")
  .transform((v) => new Date(v).toISOString());

const accepts = (c: AppContext, type: string) =>
  (c.req.header("accept") ?? "").split(",").some((p) => p.trim().split(";")[0] === type);

function requireSse(c: AppContext): void {
  if (!accepts(c, SSE)) throw new AppError("request.not_acceptable", { produces: SSE });
}

const caller = (c: AppContext) => {
  const p = c.get("principal")!;
  return { userId: p.userId, isSuperAdmin: p.isSuperAdmin };
};
const workspaceId = (c: AppContext) => c.get("workspace")!.id;

function sseResponse(c: AppContext, body: ReadableStream<Uint8Array>, executionId: string) {
  return c.body(body, 200, {
    "content-type": SSE,
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
    "SVC-Execution-Id": executionId,
  });
}

export function executionRoutes(router: Router, deps: ExecutionRouteDeps): void {
  const { executions } = deps;
  const heartbeatMs = deps.config.sse.heartbeatIntervalSeconds * 1000;
  const graceMs = deps.config.sse.disconnectGraceSeconds * 1000;

  router.add({
    method: "post",
    path: "/api/v1/pipelines/:id/execute",
    tag: "executions",
    summary: "Run a pipeline; the response is its event stream",
    access: "pipelines.execute",
    params: id,
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
  }, async (c, { params, body }) => {
    requireSse(c);
    const p = c.get("principal")!;
    const started = await executions.execute({
      caller: caller(c),
      workspaceId: workspaceId(c),
      pipelineId: params.id,
      version: body?.version,
      parameters: body?.parameters ?? {},
      idempotencyKey: c.req.header("idempotency-key") || undefined,
      ttlHeader: c.req.header("svc-result-ttl-seconds"),
      pageRowsHeader: c.req.header("svc-result-page-rows"),
      correlationId: c.get("correlationId"),
      triggeredVia: (p.authMethod === "API_KEY" ? "REST" : "UI") as TriggeredVia,
    });
    const stream = eventStream(released(started.frames, started.release), {
      heartbeatMs,
      // No resumption exists (spec 2 §6): the grace only spares a run whose end is imminent.
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
      offset: z.coerce.number().int().min(0).optional(),
      limit: z.coerce.number().int().min(1).optional(),
    }),
  }, async (c, { query }) => {
    const offset = query.offset ?? 0;
    const limit = Math.min(
      query.limit ?? deps.config.paging.defaultLimit,
      deps.config.paging.maxLimit,
    );
    const { items, total } = await executions.list(
      caller(c),
      {
        workspaceId: workspaceId(c),
        pipelineId: query.pipeline_id,
        status: query.status,
        startedAfter: query.started_after,
        startedBefore: query.started_before,
      },
      offset,
      limit,
    );
    // The list never carries result links (spec 2 §4.5).
    const rows = items.map(({ result_expires_at: _, ...r }) => r);
    return paged(c, rows, { offset, limit, total });
  });

  router.add(
    {
      method: "get",
      path: "/api/v1/executions/:id",
      tag: "executions",
      summary: "One execution record with lineage",
      access: "content.read",
      params: id,
      errors: ["result.execution_not_found"],
    },
    async (c, { params }) =>
      ok(c, await executions.view(caller(c), workspaceId(c), params.id, deps.baseUrl())),
  );

  router.add({
    method: "get",
    path: "/api/v1/executions/:id/events",
    tag: "executions",
    summary: "Replay of the stored event stream (SSE, or JSON with Accept: application/json)",
    access: "content.read",
    params: id,
    errors: ["result.execution_not_found", "result.expired", "request.not_acceptable"],
  }, async (c, { params }) => {
    if (accepts(c, "application/json") && !accepts(c, SSE)) {
      const events = await executions.replayFrames(caller(c), workspaceId(c), params.id);
      return ok(c, { events });
    }
    // The replay's own format is the stream (DECISIONS.md "replay format"): a client that
    // states no preference, or takes anything, gets it.
    const accept = c.req.header("accept") ?? "";
    if (accept.trim() !== "" && !accepts(c, SSE) && !accepts(c, "*/*") && !accepts(c, "text/*")) {
      throw new AppError("request.not_acceptable", { produces: SSE });
    }
    const stop = new AbortController();
    const { frames } = await executions.replay(caller(c), workspaceId(c), params.id, stop.signal);
    const release = await executions.streamSlot(caller(c));
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
    params: id,
    errors: ["result.execution_not_found", "pipeline.execution.not_running"],
  }, async (c, { params }) => {
    await executions.cancel(caller(c), workspaceId(c), params.id);
    return c.body(null, 204);
  });

  router.add({
    method: "get",
    path: "/api/v1/executions/:id/result",
    tag: "executions",
    summary: "The result: JSON pages or the whole result as CSV",
    access: "results.read",
    params: id,
    query: z.object({
      offset: z.coerce.number().int().min(0).optional(),
      limit: z.coerce.number().int().min(1).optional(),
      format: z.string().optional(),
    }),
    errors: [
      "result.execution_not_found",
      "result.execution_incomplete",
      "result.execution_failed",
      "result.expired",
      "result.format_unsupported",
    ],
  }, async (c, { params, query }) => {
    const format = query.format ?? "json";
    if (format !== "json" && format !== "csv") {
      throw new AppError("result.format_unsupported", { format, supported: ["json", "csv"] });
    }
    if (format === "csv") {
      const body = await executions.csv(caller(c), workspaceId(c), params.id);
      return c.body(body, 200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${params.id}.csv"`,
      });
    }
    const limits = deps.config.result;
    const offset = query.offset ?? 0;
    const limit = Math.min(query.limit ?? limits.pageRows, limits.pageRowsMax);
    const { result, rows } = await executions.page(
      caller(c),
      workspaceId(c),
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
