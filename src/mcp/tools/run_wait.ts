/**
 * Starting a run from a tool and waiting for it (docs/decisions.md#pipelines_execute-waits): the
 * run is started by the executions service as `triggered_via` = `MCP`, followed until its stored
 * end or the wait runs out, with a progress notification per node event when the client asked for
 * them.
 * The run is never tied to the request: a client that goes away (or a wait that runs out) stops
 * only the following; the run goes on and `executions_cancel` is the one way to stop it.
 */
import type { Services } from "../../services.ts";
import { storedRows } from "../rows.ts";
import type { ToolContext } from "../tool.ts";

export interface RunRequest {
  pipelineId: string;
  version?: number;
  parameters: Record<string, unknown>;
  node?: string;
  /** How long to wait for the end before answering RUNNING. */
  waitSeconds: number;
  /** The result's lifetime asked for (clamped as the REST header is). */
  resultTtlSeconds?: number;
  /** Rows per page of the answer and of the cursors after it. */
  pageRows?: number;
}

const NODE_EVENTS: Record<string, string> = {
  node_started: "started",
  node_completed: "completed",
  node_failed: "failed",
};

/** Runs, waits, and answers the execution record with the result's first page (or null). */
export async function runAndWait(services: Services, ctx: ToolContext, req: RunRequest) {
  const caller = { userId: ctx.actor.userId, isSuperAdmin: ctx.actor.isSuperAdmin };
  const started = await services.runs.executions.execute({
    caller,
    workspaceId: ctx.workspace.id,
    pipelineId: req.pipelineId,
    version: req.version,
    parameters: req.parameters,
    correlationId: ctx.correlationId,
    triggeredVia: "MCP",
    // The REST headers' values, clamped by the same settings (docs/mcp.md#results).
    ttlHeader: req.resultTtlSeconds === undefined ? null : String(req.resultTtlSeconds),
    pageRowsHeader: req.pageRows === undefined ? null : String(req.pageRows),
    ...(req.node === undefined ? {} : { node: req.node }),
  });
  const frames = started.frames[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The wait ends at the timeout, or when the client abandons the call: either way only the
  // following stops.
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), req.waitSeconds * 1000);
    if (ctx.signal.aborted) resolve("timeout");
    ctx.signal.addEventListener("abort", () => resolve("timeout"), { once: true });
  });
  let ended = false;
  let step = 0;
  try {
    for (;;) {
      const next = await Promise.race([frames.next(), timedOut]);
      if (next === "timeout") break;
      if (next.done) {
        ended = true;
        break;
      }
      const verb = NODE_EVENTS[next.value.event];
      if (verb) await ctx.progress(++step, undefined, `node ${next.value.data.node_id} ${verb}`);
    }
  } finally {
    clearTimeout(timer);
    // Stops following only; the run itself is not the request's to end.
    frames.return?.(undefined).catch(() => {});
    await started.release();
  }
  const execution = await services.runs.executions.view(
    caller,
    ctx.workspace.id,
    started.executionId,
    services.platform.origin(),
  );
  const readable = ended && execution.status === "SUCCESS" && "result_url" in execution;
  const result = readable
    ? await storedRows(services, ctx, { execution_id: started.executionId, limit: req.pageRows })
    : null;
  return { execution, result };
}
