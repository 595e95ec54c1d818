/**
 * The steady mixed load through the proxy: executions read to their terminal frame, a page of
 * their result, `/api/x` serves, `/mcp` tool calls, and key and pipeline writes. Every call has a
 * client timeout, so a hang is counted, not waited for; every acknowledged write is kept for the
 * read-back at the end.
 */
import type { Content } from "./cluster.ts";
import type { PhaseStats, Recorder } from "./record.ts";

/**
 * A plain call's budget: far above any healthy answer (and any answer on a 2-core machine
 * shared with other suites, where a healthy p99 reached 10 s), so only a hang reaches it.
 */
export const CALL_TIMEOUT_MS = 30_000;
/** A run's stream: the fast pipeline ends in well under a second when healthy. */
export const STREAM_TIMEOUT_MS = 60_000;

const TERMINAL = /^event: (pipeline_completed|pipeline_failed|execution_aborted)$/m;

/** A documented "not now" (rate limit, no upstream, store or shared store unavailable). */
export const refusedForNow = (status: number | undefined) =>
  status === 429 || status === 502 || status === 503;

/**
 * After a 429, 502 or 503 a client waits as a well-behaved one does: `Retry-After` (at most 1 s),
 * else 200 ms. Without it, the clients of a fast machine spent the whole request bound on the
 * balancer's instant 502s while Redis was down, and the phases after it ran with no load.
 */
async function backOff(res: Response): Promise<void> {
  if (!refusedForNow(res.status)) return;
  const after = Number(res.headers.get("retry-after"));
  const ms = Number.isFinite(after) && after > 0 ? Math.min(1_000, after * 1_000) : 200;
  await new Promise((r) => setTimeout(r, ms));
}

export interface Target {
  base: () => string;
  content: Content;
  recorder: Recorder;
}

/** Runs one execution through its stream; answers the id and the terminal event seen, if any. */
export async function execute(
  t: Target,
  pipelineId: string,
  onStarted?: (id: string, upstream: string | null) => void,
): Promise<{ id?: string; terminal?: string; status?: number; text: string }> {
  const { recorder: rec } = t;
  const phase = rec.current;
  const t0 = performance.now();
  let res: Response;
  try {
    res = await fetch(`${t.base()}/api/v1/pipelines/${pipelineId}/execute`, {
      method: "POST",
      headers: {
        "SVC-API-Key": t.content.key,
        accept: "text/event-stream",
        "content-type": "application/json",
        "Idempotency-Key": crypto.randomUUID(),
        "SVC-Result-Page-Rows": "5",
      },
      body: "{}",
      signal: AbortSignal.timeout(STREAM_TIMEOUT_MS),
    });
  } catch (e) {
    rec.failed("execute", e, performance.now() - t0);
    return { text: `no answer: ${(e as Error).message}` };
  }
  await rec.answer("execute", res, performance.now() - t0);
  await backOff(res);
  const id = res.headers.get("SVC-Execution-Id") ?? undefined;
  if (!res.ok || !id) return { status: res.status, text: `answered ${res.status} without a run` };
  phase.started.add(id);
  rec.acknowledged("execution", id);
  onStarted?.(id, res.headers.get("x-soak-upstream"));
  let text = "";
  try {
    for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) text += chunk;
  } catch (e) {
    // The stream broke before its end: a SIGKILLed replica may do that, nothing else may.
    if ((e as Error).name === "TimeoutError" || !rec.allowDrops) {
      rec.violation(`execute ${id}: stream broke (${(e as Error).message.slice(0, 100)})`);
    }
  }
  const terminal = TERMINAL.exec(text)?.[1];
  if (terminal) phase.endedOnStream.add(id);
  else if (!rec.allowDrops) rec.violation(`execute ${id}: stream ended without a terminal frame`);
  return { id, terminal, status: res.status, text };
}

async function call(
  t: Target,
  op: string,
  path: string,
  init: RequestInit = {},
): Promise<{ res?: Response; body?: Record<string, unknown> }> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${t.base()}${path}`, {
      ...init,
      signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    });
    const ms = performance.now() - t0;
    if (!res.ok) {
      await t.recorder.answer(op, res, ms);
      await backOff(res);
      return { res };
    }
    const text = await res.text();
    await t.recorder.answer(op, res, performance.now() - t0);
    try {
      return { res, body: JSON.parse(text) };
    } catch {
      return { res, body: { text } };
    }
  } catch (e) {
    t.recorder.failed(op, e, performance.now() - t0);
    return {};
  }
}

const json = { "content-type": "application/json", accept: "application/json" };

async function pageResult(t: Target, id: string): Promise<void> {
  await call(t, "result page", `/api/v1/executions/${id}/result?offset=5&limit=5`, {
    headers: { "SVC-API-Key": t.content.key, accept: "application/json" },
  });
}

async function serveEndpoint(t: Target): Promise<void> {
  await call(t, "/api/x", t.content.endpointPath, {
    headers: { "SVC-API-Key": t.content.key },
  });
}

let rpc = 0;
/** A tool call at `/mcp` (2026-07-28, stateless); a refusal inside the answer counts by code. */
export async function mcpCall(t: Target, name: string, args: object): Promise<void> {
  const { body } = await call(t, "/mcp", "/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${t.content.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++rpc,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "soak", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const text = body ? JSON.stringify(body) : "";
  if (text.includes('"isError":true')) {
    const code = /\\?"code\\?":\s*\\?"([a-z_.]+)/.exec(text)?.[1] ?? "unknown";
    const p = t.recorder.current;
    p.errors.set(`mcp ${code}`, (p.errors.get(`mcp ${code}`) ?? 0) + 1);
    // A tool's own failure is data; an unexpected exception behind it is the tool's 500.
    if (code.startsWith("internal.")) t.recorder.violation(`/mcp: tool answered ${code}`);
  }
}

export async function writeKey(t: Target, n: number): Promise<void> {
  const { res, body } = await call(t, "key write", "/api/v1/auth/api-keys", {
    method: "POST",
    headers: { ...t.content.session, ...json },
    body: JSON.stringify({ name: `soak ${n}`, scopes: ["read"] }),
  });
  const id = (body?.data as { id?: string } | undefined)?.id;
  if (res?.status === 201 && id) t.recorder.acknowledged("api_key", id);
}

export async function writePipeline(t: Target, n: number): Promise<void> {
  const { res, body } = await call(t, "pipeline write", "/api/v1/pipelines", {
    method: "POST",
    headers: { ...t.content.session, ...json },
    body: JSON.stringify({
      name: `soak/written_${n}_${crypto.randomUUID().slice(0, 8)}`,
      nodes: [{ id: "a", type: "DQL", source: "tempdb", sql: `SELECT ${n} AS n` }],
    }),
  });
  const id = (body?.data as { id?: string } | undefined)?.id;
  if (res?.status === 201 && id) t.recorder.acknowledged("pipeline", id);
}

/**
 * `workers` clients, each cycling through the mix until `stop()`; the total is bounded by
 * `maxRequests` so a fast machine cannot run away.
 */
export function startLoad(t: Target, workers: number, maxRequests: number) {
  let stopped = false;
  let issued = 0;
  const worker = async (w: number) => {
    for (let i = w; !stopped && issued < maxRequests; i++) {
      issued++;
      switch (i % 6) {
        case 0: {
          const run = await execute(t, t.content.fastPipeline);
          if (run.terminal === "pipeline_completed") await pageResult(t, run.id!);
          break;
        }
        case 1:
        case 4:
          await serveEndpoint(t);
          break;
        case 2:
          await mcpCall(t, "pipelines_execute", { id: t.content.fastPipeline, parameters: {} });
          break;
        case 3:
          await writeKey(t, issued);
          break;
        case 5:
          await writePipeline(t, issued);
          break;
      }
    }
  };
  const done = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  return {
    get issued() {
      return issued;
    },
    async stop(): Promise<void> {
      stopped = true;
      await done;
    },
  };
}

/** The phase a set of ids was started in, for per-phase figures at the end. */
export function phaseOf(phases: PhaseStats[], id: string): PhaseStats | undefined {
  return phases.find((p) => p.started.has(id));
}
