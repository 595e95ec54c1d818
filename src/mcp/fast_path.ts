/**
 * The fast path of `/mcp` (docs/mcp.md "The fast path, and what a call costs"): the one request
 * shape agents send most — a single JSON-RPC `tools/call` of a catalogued tool, no progress token,
 * no session — answered without building an SDK server for it. The SDK's per-request server,
 * transport and wire-schema parsing cost about as much as the whole REST call they front
 * (bench/mcp.ts), which no caching inside the SDK path removes.
 *
 * The rule: this path only ever *accepts* a request, never refuses one. `accept` answers the call
 * to run only when every check the SDK makes on that shape positively passes, each at least as
 * strictly as the SDK makes it (the SDK's own exported `classifyInboundRequest`,
 * `isJsonContentType` and spec schemas do the checks that are its to define); anything else —
 * a bad header, a version mismatch, an extra field, a batch, a notification — returns undefined
 * and goes to the SDK unchanged, which answers it. The call itself runs through `runTool`, the
 * runner the SDK path hands its calls to, so floors, validation, audit rows and refusals are the
 * same code. tests/mcp_fast_path_test.ts sends each variant both ways and compares the answers.
 *
 * Two SDK steps have nothing to do for this service's tools, and the fast path says so rather than
 * repeat them: `x-mcp-header` parameter checks (a tool declaring such parameters stays on the SDK
 * path) and scope challenges (no tool registers one: the floor check is ours, in `runTool`).
 */
import {
  classifyInboundRequest,
  isJsonContentType,
  isSpecType,
  SERVER_INFO_META_KEY,
} from "@modelcontextprotocol/server";
import type { ToolDef } from "./tool.ts";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

/** The envelope keys a 2026-07-28 request carries; any other `_meta` key goes to the SDK. */
const ENVELOPE_KEYS = new Set([
  "io.modelcontextprotocol/protocolVersion",
  "io.modelcontextprotocol/clientInfo",
  "io.modelcontextprotocol/clientCapabilities",
]);
const MESSAGE_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const PARAM_KEYS = new Set(["name", "arguments", "_meta"]);

/** A call the fast path serves. */
export interface FastCall {
  era: typeof MODERN | typeof LEGACY;
  id: string | number;
  tool: ToolDef;
  args: Record<string, unknown>;
}

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function onlyKeys(value: Plain, allowed: Set<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/**
 * Whether a tool's input declares `x-mcp-header` parameters, whose headers the SDK checks against
 * the arguments on every call. No catalogued tool does (docs/mcp.md, conformance); one that did
 * would simply stay on the SDK path.
 */
const paramHeaders = new WeakMap<ToolDef, boolean>();
function declaresParamHeaders(tool: ToolDef): boolean {
  let declares = paramHeaders.get(tool);
  if (declares === undefined) {
    const std = tool.input["~standard"] as unknown as {
      jsonSchema: { input: (o: { target: string }) => unknown };
    };
    declares = JSON.stringify(std.jsonSchema.input({ target: "draft-2020-12" }))
      .includes("x-mcp-header");
    paramHeaders.set(tool, declares);
  }
  return declares;
}

/**
 * The SDK's verdict on a 2026-07-28 `tools/call` of this path's shape, remembered per envelope.
 * Here, with the headers fixed to the version and method, `classifyInboundRequest` depends on the
 * body only through the envelope (`_meta`: validated with the SDK's zod schema, its claimed
 * version) and the JSON-RPC frame, which `accept` has already held to `jsonrpc` "2.0", a string
 * or integer id and `method` "tools/call"; `params.name` and `arguments` play no part in it. A
 * client sends the same envelope on every call, so the schema runs once per envelope, not per
 * call (it was a tenth of the fast path's cost).
 */
const envelopeVerdicts = new Map<string, boolean>();
const MAX_VERDICTS = 256;

function modernEnvelope(meta: Plain, body: Plain): boolean {
  const key = JSON.stringify(meta);
  let verdict = envelopeVerdicts.get(key);
  if (verdict === undefined) {
    const route = classifyInboundRequest({
      httpMethod: "POST",
      protocolVersionHeader: MODERN,
      mcpMethodHeader: "tools/call",
      mcpNameHeader: (body.params as Plain).name as string,
      body,
    });
    verdict = route.kind === "modern" && route.messageKind === "request" &&
      route.classification.revision === MODERN;
    // Bounded: envelopes differ per client, not per call; a flood of distinct ones starts over.
    if (envelopeVerdicts.size >= MAX_VERDICTS) envelopeVerdicts.clear();
    envelopeVerdicts.set(key, verdict);
  }
  return verdict;
}

/** The call, when `request` + `body` is the shape this path serves; undefined sends it to the SDK. */
export function accept(
  request: Request,
  body: unknown,
  byName: ReadonlyMap<string, ToolDef>,
): FastCall | undefined {
  if (request.method !== "POST" || !isJsonContentType(request.headers.get("content-type"))) return;
  if (!isPlain(body) || !onlyKeys(body, MESSAGE_KEYS)) return;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== "2.0" || method !== "tools/call") return;
  if (!(typeof id === "string" && id !== "") && !Number.isSafeInteger(id)) return;
  if (!isPlain(params) || !onlyKeys(params, PARAM_KEYS)) return;
  const { name, arguments: args, _meta } = params;
  if (typeof name !== "string") return;
  const tool = byName.get(name);
  if (!tool) return; // the SDK answers an unknown tool (-32602)
  if (args !== undefined && !isPlain(args)) return;
  if (declaresParamHeaders(tool)) return; // the SDK checks those headers against the arguments
  if (!isSpecType.CallToolRequest({ method, params })) return;
  const headers = request.headers;
  const version = headers.get("mcp-protocol-version");
  if (headers.has("mcp-session-id")) return;
  if (version === MODERN) {
    // The envelope, the header/body cross-checks and the standard headers, as the SDK rules them.
    if (!isPlain(_meta) || !onlyKeys(_meta, ENVELOPE_KEYS)) return;
    if (headers.get("mcp-method") !== method || headers.get("mcp-name") !== name) return;
    if (!modernEnvelope(_meta, body)) return;
  } else if (version === LEGACY) {
    // The stateless legacy leg: the transport's Accept check, no envelope, no modern headers.
    if (_meta !== undefined || headers.has("mcp-method") || headers.has("mcp-name")) return;
    const accepts = headers.get("accept");
    if (!accepts?.includes("application/json") || !accepts.includes("text/event-stream")) return;
    const route = classifyInboundRequest({
      httpMethod: "POST",
      protocolVersionHeader: version,
      body,
    });
    if (route.kind !== "legacy" || route.reason !== "no-claim") return;
  } else return;
  return { era: version, id: id as string | number, tool, args: (args ?? {}) as Plain };
}

/**
 * Serves `call` as the SDK would: on 2026-07-28 (the SDK's per-request transport in its default
 * mode) one JSON body once the tool is done, its result carrying `resultType` and the server's
 * identity, and for a tool that `waits` the request's signal (a client that abandons the call is
 * heard; the other tools never look); on 2025-11-25 (the SDK's stateless leg) an SSE answer, see
 * `LegacyAnswers`.
 */
export function serve(
  call: FastCall,
  run: (signal: AbortSignal) => Promise<object>,
  server: { name: string; version: string },
  request: Request,
  legacy: LegacyAnswers,
): Promise<Response> {
  if (call.era === LEGACY) return legacy.answer(call, run);
  // Read now or never: Deno makes the signal on first read (and aborts it with a fresh
  // DOMException once answered, a cost every call would pay), and one made after the client left
  // is never aborted. So only a tool that waits gets it, read before the tool starts.
  return run(call.tool.waits ? request.signal : NEVER).then((result) => {
    const message = {
      result: { ...result, resultType: "complete", _meta: { [SERVER_INFO_META_KEY]: server } },
      jsonrpc: "2.0",
      id: call.id,
    };
    return new Response(JSON.stringify(message), {
      status: 200,
      headers: { "Content-Type": "application/json" },
    });
  });
}

const SSE_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache, no-transform",
  Connection: "keep-alive",
  "X-Accel-Buffering": "no",
};

/** The SDK's SSE keep-alive interval (`DEFAULT_SSE_KEEP_ALIVE_MS`). */
const KEEP_ALIVE_MS = 15_000;
/** How long a 2025-11-25 call may run before its answer's stream opens (at most twice this). */
const STREAM_AFTER_MS = 25;
/** The signal of a tool that does not wait: nothing reads it. */
const NEVER = new AbortController().signal;

/**
 * The 2025-11-25 answers. The SDK's leg opens an SSE stream at once, sends a keep-alive comment
 * every 15 s while the tool runs, then one `message` event, and the client cancelling the stream
 * aborts the tool's signal. A stream costs a short call more than the rest of it (it took the
 * fast path back to the SDK path's figure), and nothing tells a stream opened at once from one
 * opened a few milliseconds later, well inside the first keep-alive: so a call done within
 * `STREAM_AFTER_MS` is answered with the same bytes in one body, and a longer one gets the stream
 * then. One ticker per endpoint (not a timer per call, which cost as much again) finds them.
 */
export class LegacyAnswers {
  #pending = new Set<{ since: number; open(): void }>();
  #ticker: ReturnType<typeof setInterval> | undefined;

  answer(call: FastCall, run: (signal: AbortSignal) => Promise<object>): Promise<Response> {
    const gone = new AbortController();
    const done = run(gone.signal);
    return new Promise((resolve) => {
      const entry = {
        since: performance.now(),
        open: () => resolve(stream(call, done, gone)),
      };
      this.#pending.add(entry);
      this.#watch();
      done.then((result) => {
        if (this.#pending.delete(entry)) {
          resolve(new Response(frame(call, result), { status: 200, headers: SSE_HEADERS }));
        }
      });
    });
  }

  /** Opens the streams of calls still running; every pending call is opened at once. */
  close(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
    for (const entry of this.#pending) entry.open();
    this.#pending.clear();
  }

  #watch(): void {
    if (this.#ticker !== undefined) return;
    const ticker = setInterval(() => {
      const now = performance.now();
      for (const entry of this.#pending) {
        if (now - entry.since < STREAM_AFTER_MS) continue;
        this.#pending.delete(entry);
        entry.open();
      }
    }, STREAM_AFTER_MS);
    // Never what keeps the process up.
    Deno.unrefTimer(ticker);
    this.#ticker = ticker;
  }
}

function frame(call: FastCall, result: object): string {
  return `event: message\ndata: ${JSON.stringify({ result, jsonrpc: "2.0", id: call.id })}\n\n`;
}

/** The answer's SSE stream for a call still running. */
function stream(call: FastCall, done: Promise<object>, gone: AbortController): Response {
  const encoder = new TextEncoder();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          // The client went away; the tool's work goes on regardless.
        }
      };
      keepAlive = setInterval(() => write(": keepalive\n\n"), KEEP_ALIVE_MS);
      done.then((result) => {
        clearInterval(keepAlive);
        write(frame(call, result));
        try {
          controller.close();
        } catch {
          // already cancelled
        }
      });
    },
    cancel() {
      // The SDK's leg tears the exchange down when the client cancels, aborting the signal.
      clearInterval(keepAlive);
      gone.abort();
    },
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
