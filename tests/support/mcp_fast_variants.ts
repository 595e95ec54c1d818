/**
 * The requests tests/mcp_fast_path_test.ts sends to both paths of `/mcp`: the shapes the fast
 * path serves and every variant of them the SDK refuses or serves differently, with helpers to
 * send one and read its answer.
 */
import type { Json } from "./mcp_client.ts";

export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";

export const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

export interface Variant {
  name: string;
  /** Whether the fast path takes it. */
  fast: boolean;
  headers: Record<string, string | undefined>;
  body: unknown;
  /** Sent as is rather than JSON-encoded. */
  raw?: string;
}

export function call(
  id: unknown,
  tool: unknown,
  args: unknown,
  meta?: unknown,
  extra: Json = {},
): Json {
  const params: Json = { name: tool };
  if (args !== undefined) params.arguments = args;
  if (meta !== undefined) params._meta = meta;
  return { jsonrpc: "2.0", id, method: "tools/call", params, ...extra };
}

export const modernHeaders = (name: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/call",
  "mcp-name": name,
});
export const legacyHeaders = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": LEGACY,
};

/** A legacy list call that differs from the fast path's shape only in its headers. */
const legacyHeaderVariant = (id: number, name: string, headers: Variant["headers"]): Variant => ({
  name: `legacy, ${name}`,
  fast: false,
  headers: { ...legacyHeaders, ...headers },
  body: call(id, "pipelines_list", {}),
});

export function variants(pipelineId: string): Variant[] {
  const m = modernHeaders("pipelines_list");
  const good = call(1, "pipelines_list", {}, envelope);
  /** The fast path's modern call with other headers. */
  const modernHeaderVariant = (name: string, headers: Variant["headers"]): Variant => ({
    name: `modern, ${name}`,
    fast: false,
    headers: { ...m, ...headers },
    body: good,
  });
  return [
    // 2026-07-28, served by the fast path
    { name: "modern list", fast: true, headers: m, body: good },
    { name: "modern, string id", fast: true, headers: m, body: { ...good, id: "a-1" } },
    {
      name: "modern, no arguments",
      fast: true,
      headers: m,
      body: call(2, "pipelines_list", undefined, envelope),
    },
    {
      name: "modern get",
      fast: true,
      headers: modernHeaders("pipelines_get"),
      body: call(3, "pipelines_get", { id: pipelineId }, envelope),
    },
    {
      name: "modern, refused: not found",
      fast: true,
      headers: modernHeaders("pipelines_get"),
      body: call(4, "pipelines_get", { id: crypto.randomUUID() }, envelope),
    },
    {
      name: "modern, refused: bad argument",
      fast: true,
      headers: m,
      body: call(5, "pipelines_list", { limit: "many" }, envelope),
    },
    {
      name: "modern, refused: floor",
      fast: true,
      headers: modernHeaders("pipelines_create"),
      body: call(6, "pipelines_create", { name: "x/y", nodes: [] }, envelope),
    },
    // 2026-07-28 variants the SDK answers
    {
      name: "modern, unknown tool",
      fast: false,
      headers: modernHeaders("nope"),
      body: call(7, "nope", {}, envelope),
    },
    modernHeaderVariant("no Mcp-Method", { "mcp-method": undefined }),
    modernHeaderVariant("Mcp-Method mismatch", { "mcp-method": "tools/list" }),
    modernHeaderVariant("no Mcp-Name", { "mcp-name": undefined }),
    modernHeaderVariant("Mcp-Name mismatch", { "mcp-name": "pipelines_get" }),
    modernHeaderVariant("Mcp-Name Base64 sentinel", {
      "mcp-name": `=?base64?${btoa("pipelines_list")}?=`,
    }),
    modernHeaderVariant("no MCP-Protocol-Version", { "mcp-protocol-version": undefined }),
    {
      name: "modern, unsupported version",
      fast: false,
      headers: { ...m, "mcp-protocol-version": "2099-01-01" },
      body: call(8, "pipelines_list", {}, {
        ...envelope,
        "io.modelcontextprotocol/protocolVersion": "2099-01-01",
      }),
    },
    {
      name: "modern envelope, legacy header",
      fast: false,
      headers: { ...m, "mcp-protocol-version": LEGACY },
      body: good,
    },
    {
      name: "modern header, no envelope",
      fast: false,
      headers: m,
      body: call(9, "pipelines_list", {}),
    },
    {
      // clientInfo is optional in the envelope: the SDK serves this, and so does the fast path.
      name: "modern, envelope without clientInfo",
      fast: true,
      headers: m,
      body: call(10, "pipelines_list", {}, {
        ...envelope,
        "io.modelcontextprotocol/clientInfo": undefined,
      }),
    },
    {
      name: "modern, envelope clientInfo not an object",
      fast: false,
      headers: m,
      body: call(11, "pipelines_list", {}, {
        ...envelope,
        "io.modelcontextprotocol/clientInfo": "raw",
      }),
    },
    {
      name: "modern, progress token",
      fast: false,
      headers: m,
      body: call(12, "pipelines_list", {}, { ...envelope, progressToken: "p" }),
    },
    {
      name: "modern, arguments an array",
      fast: false,
      headers: m,
      body: call(13, "pipelines_list", [], envelope),
    },
    {
      name: "modern, name not a string",
      fast: false,
      headers: m,
      body: call(14, 42, {}, envelope),
    },
    { name: "modern, id null", fast: false, headers: m, body: { ...good, id: null } },
    { name: "modern, id a fraction", fast: false, headers: m, body: { ...good, id: 1.5 } },
    {
      name: "modern, no id (a notification)",
      fast: false,
      headers: m,
      body: { jsonrpc: "2.0", method: "tools/call", params: good.params },
    },
    { name: "modern, jsonrpc 1.0", fast: false, headers: m, body: { ...good, jsonrpc: "1.0" } },
    { name: "modern, extra member", fast: false, headers: m, body: { ...good, extra: 1 } },
    modernHeaderVariant("text/plain", { "content-type": "text/plain" }),
    { name: "modern, batch", fast: false, headers: m, body: [good] },
    { name: "modern, not JSON", fast: false, headers: m, body: undefined, raw: "{not json" },
    // 2025-11-25 without a session, served by the fast path
    {
      name: "legacy list",
      fast: true,
      headers: legacyHeaders,
      body: call(20, "pipelines_list", {}),
    },
    {
      name: "legacy, refused: bad argument",
      fast: true,
      headers: legacyHeaders,
      body: call(21, "pipelines_list", { offset: -1 }),
    },
    // 2025-11-25 variants the SDK answers
    legacyHeaderVariant(22, "Accept JSON only", { accept: "application/json" }),
    legacyHeaderVariant(23, "Accept SSE only", { accept: "text/event-stream" }),
    legacyHeaderVariant(24, "no Accept", { accept: undefined }),
    legacyHeaderVariant(25, "no version header", { "mcp-protocol-version": undefined }),
    legacyHeaderVariant(26, "older version", { "mcp-protocol-version": "2025-06-18" }),
    legacyHeaderVariant(27, "unsupported version", { "mcp-protocol-version": "1999-01-01" }),
    legacyHeaderVariant(28, "a session id", { "mcp-session-id": "abc" }),
    {
      name: "legacy, progress token",
      fast: false,
      headers: legacyHeaders,
      body: call(29, "pipelines_list", {}, { progressToken: 7 }),
    },
    {
      name: "legacy, unknown tool",
      fast: false,
      headers: legacyHeaders,
      body: call(30, "nope", {}),
    },
    {
      name: "legacy, initialize",
      fast: false,
      headers: legacyHeaders,
      body: {
        jsonrpc: "2.0",
        id: 31,
        method: "initialize",
        params: {
          protocolVersion: LEGACY,
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      },
    },
  ];
}

export function requestOf(base: string, key: string, v: Variant): Request {
  const headers = new Headers({ authorization: `Bearer ${key}` });
  for (const [k, value] of Object.entries(v.headers)) {
    if (value !== undefined) headers.set(k, value);
  }
  return new Request(`${base}/mcp`, {
    method: "POST",
    headers,
    body: v.raw ?? JSON.stringify(v.body),
  });
}

/** Status, media type and the JSON-RPC messages of an answer (SSE read to its data lines). */
export async function answerOf(res: Response) {
  const text = await res.text();
  const type = (res.headers.get("content-type") ?? "").split(";")[0];
  const messages = type === "text/event-stream"
    ? [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]))
    : text
    ? [JSON.parse(text)]
    : [];
  return { status: res.status, type, messages };
}
