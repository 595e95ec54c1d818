/**
 * Running a pipeline: through the executions service, reading its stream to the end, or over
 * HTTP as a client does.
 */
import { equal } from "node:assert/strict";
import { checkEventOrder, type EventFrame } from "../../src/executions/event_order.ts";
import type { ExecuteInput, ExecutionService } from "../../src/executions/service.ts";
import { frames } from "./executions_fixtures.ts";

type Defaulted = "parameters" | "correlationId" | "triggeredVia";

/**
 * Executes `input` (no parameters, a fresh correlation id and `REST` unless given) and collects
 * every frame until the stream ends; the stream is released.
 */
export async function runToEnd(
  executions: Pick<ExecutionService, "execute">,
  input: Omit<ExecuteInput, Defaulted> & Partial<Pick<ExecuteInput, Defaulted>>,
): Promise<{ id: string; frames: EventFrame[] }> {
  const started = await executions.execute({
    parameters: {},
    correlationId: crypto.randomUUID(),
    triggeredVia: "REST",
    ...input,
  });
  const frames: EventFrame[] = [];
  for await (const f of started.frames) frames.push(f);
  await started.release();
  return { id: started.executionId, frames };
}

/**
 * `POST /api/v1/pipelines/{id}/execute` as `headers`, asking for the event stream, with `body`
 * (by default `{}`: the working version, no parameters) as the JSON request body.
 */
export function executeOverHttp(
  server: { fetch(path: string, init?: RequestInit): Promise<Response> },
  headers: Record<string, string>,
  id: string,
  body: unknown = {},
): Promise<Response> {
  return server.fetch(`/api/v1/pipelines/${id}/execute`, {
    method: "POST",
    headers: { ...headers, accept: "text/event-stream", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/**
 * A run over HTTP that must stream to its data_ready: its execution id, every frame (their order
 * checked), the frames by type and the data_ready payload.
 */
export async function readyOverHttp(
  server: { fetch(path: string, init?: RequestInit): Promise<Response> },
  headers: Record<string, string>,
  id: string,
  body: unknown = {},
) {
  const res = await executeOverHttp(server, headers, id, body);
  equal(res.status, 200, res.status === 200 ? "" : await res.text());
  const executionId = res.headers.get("SVC-Execution-Id")!;
  const all = await frames(res).rest();
  const byType = checkEventOrder(all, { expectDataReady: true });
  return { executionId, frames: all, byType, ready: byType.get("data_ready")![0].data };
}
