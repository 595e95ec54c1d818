/**
 * The fast path of `/mcp` (src/mcp/fast_path.ts) against the SDK path: two servers over the one
 * store, one with the fast path (the default) and one without, get the same requests — the shapes
 * the fast path serves and every variant of them the SDK refuses or serves differently — and must
 * answer alike: status, media type and JSON-RPC body. `accept` is asked directly which variants it
 * takes, so the good ones are known to have run on the fast path and the bad ones on the SDK.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { seedRoles, userKey } from "./access_fixtures.ts";
import { startTestServer, type TestServer } from "./harness.ts";
import { type Json, NODES, SLOW } from "./support/mcp_client.ts";
import { eventually } from "./wait.ts";
import { z } from "zod";
import { CATALOGUE, defineTool } from "../src/mcp/mod.ts";
import { accept } from "../src/mcp/fast_path.ts";
import { queryAudit } from "../src/audit/mod.ts";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";
const byName = new Map(CATALOGUE.map((t) => [t.name, t]));

const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Variant {
  name: string;
  /** Whether the fast path takes it. */
  fast: boolean;
  headers: Record<string, string | undefined>;
  body: unknown;
  /** Sent as is rather than JSON-encoded. */
  raw?: string;
}

function call(
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

const modernHeaders = (name: string) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/call",
  "mcp-name": name,
});
const legacyHeaders = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": LEGACY,
};

function variants(pipelineId: string): Variant[] {
  const m = modernHeaders("pipelines_list");
  const good = call(1, "pipelines_list", {}, envelope);
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
    {
      name: "modern, no Mcp-Method",
      fast: false,
      headers: { ...m, "mcp-method": undefined },
      body: good,
    },
    {
      name: "modern, Mcp-Method mismatch",
      fast: false,
      headers: { ...m, "mcp-method": "tools/list" },
      body: good,
    },
    {
      name: "modern, no Mcp-Name",
      fast: false,
      headers: { ...m, "mcp-name": undefined },
      body: good,
    },
    {
      name: "modern, Mcp-Name mismatch",
      fast: false,
      headers: { ...m, "mcp-name": "pipelines_get" },
      body: good,
    },
    {
      name: "modern, Mcp-Name Base64 sentinel",
      fast: false,
      headers: { ...m, "mcp-name": `=?base64?${btoa("pipelines_list")}?=` },
      body: good,
    },
    {
      name: "modern, no MCP-Protocol-Version",
      fast: false,
      headers: { ...m, "mcp-protocol-version": undefined },
      body: good,
    },
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
    {
      name: "modern, text/plain",
      fast: false,
      headers: { ...m, "content-type": "text/plain" },
      body: good,
    },
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
    {
      name: "legacy, Accept JSON only",
      fast: false,
      headers: { ...legacyHeaders, accept: "application/json" },
      body: call(22, "pipelines_list", {}),
    },
    {
      name: "legacy, Accept SSE only",
      fast: false,
      headers: { ...legacyHeaders, accept: "text/event-stream" },
      body: call(23, "pipelines_list", {}),
    },
    {
      name: "legacy, no Accept",
      fast: false,
      headers: { ...legacyHeaders, accept: undefined },
      body: call(24, "pipelines_list", {}),
    },
    {
      name: "legacy, no version header",
      fast: false,
      headers: { ...legacyHeaders, "mcp-protocol-version": undefined },
      body: call(25, "pipelines_list", {}),
    },
    {
      name: "legacy, older version",
      fast: false,
      headers: { ...legacyHeaders, "mcp-protocol-version": "2025-06-18" },
      body: call(26, "pipelines_list", {}),
    },
    {
      name: "legacy, unsupported version",
      fast: false,
      headers: { ...legacyHeaders, "mcp-protocol-version": "1999-01-01" },
      body: call(27, "pipelines_list", {}),
    },
    {
      name: "legacy, a session id",
      fast: false,
      headers: { ...legacyHeaders, "mcp-session-id": "abc" },
      body: call(28, "pipelines_list", {}),
    },
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

function requestOf(base: string, key: string, v: Variant): Request {
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
async function answerOf(res: Response) {
  const text = await res.text();
  const type = (res.headers.get("content-type") ?? "").split(";")[0];
  const messages = type === "text/event-stream"
    ? [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]))
    : text
    ? [JSON.parse(text)]
    : [];
  return { status: res.status, type, messages };
}

Deno.test("the fast path answers every variant as the SDK path does", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc_fast_" });
  const storeUrl = () => `sqlite:${dir}/shared.db`;
  const fast = await startTestServer({ storeUrl });
  let sdk: TestServer | undefined;
  try {
    const rt = fast.runtime;
    const f = await seedRoles(rt);
    const key = await userKey(rt, f.users.viewer, f.workspace.id, ["execute"]);
    const created = await rt.pipelines.create(
      { actor: f.users.author.principal, workspaceId: f.workspace.id },
      { name: "fast/one", schema_version: 1, nodes: NODES },
    );
    sdk = await startTestServer({ storeUrl, runtime: { mcp: { fastPath: false } } });
    const audited = async () =>
      (await queryAudit(rt.db, { event: "mcp.tool.called", offset: 0, limit: 1 })).total;

    for (const v of variants(String(created.id))) {
      const probe = requestOf(fast.url, key, v);
      const taken = v.raw === undefined
        ? accept(probe, JSON.parse(JSON.stringify(v.body ?? null)), byName)
        : undefined;
      equal(taken !== undefined, v.fast, `${v.name}: fast path ${v.fast ? "skipped" : "taken"}`);

      const before = await audited();
      const a = await answerOf(await fetch(requestOf(fast.url, key, v)));
      const middle = await audited();
      const b = await answerOf(await fetch(requestOf(sdk.url, key, v)));
      const after = await audited();
      deepEqual(a, b, `${v.name}: the two paths answer differently`);
      // Both paths audit a call that ran, and neither one that did not.
      equal(middle - before, after - middle, `${v.name}: audit rows differ`);
      if (v.fast) {
        equal(middle - before, 1, `${v.name}: one mcp.tool.called row`);
        equal(a.status, 200, v.name);
        ok(a.messages[0]?.result, `${v.name}: a result`);
      }
    }
  } finally {
    await sdk?.close();
    await fast.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tool declaring x-mcp-header parameters stays on the SDK path", () => {
  const plain = defineTool({
    ...byName.get("pipelines_list")!,
    name: "plain",
    input: z.object({ region: z.string() }),
  });
  const headed = defineTool({
    ...plain,
    name: "headed",
    input: z.object({ region: z.string().meta({ "x-mcp-header": "Region" }) }),
  });
  const tools = new Map([[plain.name, plain], [headed.name, headed]]);
  const ask = (name: string) =>
    accept(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: { ...modernHeaders(name), "mcp-param-region": "eu" },
      }),
      call(1, name, { region: "eu" }, envelope),
      tools,
    );
  ok(ask("plain"), "a plain tool takes the fast path");
  equal(ask("headed"), undefined);
});

Deno.test("a pipelines_execute call abandoned mid-wait behaves alike on both paths", async () => {
  // 2025-11-25: the answer's stream opens at once, and the client cancelling it ends the wait (the
  // run goes on). 2026-07-28: both paths hand the tool the request's signal; whether the client's
  // going away reaches it before the answer is the HTTP stack's to say, the same on both.
  const dir = await Deno.makeTempDir({ prefix: "svc_fast_" });
  const storeUrl = () => `sqlite:${dir}/shared.db`;
  // The polls below would otherwise spend the per-user budget.
  const env = {
    SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "100000",
    SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000",
  };
  const fast = await startTestServer({ storeUrl, env });
  let sdk: TestServer | undefined;
  try {
    const rt = fast.runtime;
    const f = await seedRoles(rt);
    const key = await userKey(rt, f.users.author, f.workspace.id, ["author"]);
    const slow = await rt.pipelines.create(
      { actor: f.users.author.principal, workspaceId: f.workspace.id },
      { name: "fast/slow", schema_version: 1, nodes: SLOW },
    );
    sdk = await startTestServer({ storeUrl, env, runtime: { mcp: { fastPath: false } } });
    const executeRows = async () =>
      (await queryAudit(rt.db, { event: "mcp.tool.called", offset: 0, limit: 500 })).items
        .filter((r) => r.details.tool === "pipelines_execute");
    const tool = async (base: string, name: string, args: Json) => {
      const v = {
        name,
        fast: true,
        headers: modernHeaders(name),
        body: call(1, name, args, envelope),
      };
      const answer = await answerOf(await fetch(requestOf(base, key, v)));
      ok(answer.messages[0]?.result, JSON.stringify(answer));
      return answer.messages[0].result.structuredContent;
    };
    const WAIT = 3;
    // Whether the wait ended when the client left, per revision and path: the paths must agree.
    const endedEarly: Record<string, boolean[]> = { [MODERN]: [], [LEGACY]: [] };
    for (const server of [fast, sdk]) {
      for (const era of [MODERN, LEGACY]) {
        const label = `${server === fast ? "fast path" : "SDK path"} ${era}`;
        const args = { id: slow.id, timeout_seconds: WAIT };
        const v: Variant = era === MODERN
          ? {
            name: label,
            fast: true,
            headers: modernHeaders("pipelines_execute"),
            body: call(2, "pipelines_execute", args, envelope),
          }
          : {
            name: label,
            fast: true,
            headers: legacyHeaders,
            body: call(2, "pipelines_execute", args),
          };
        const before = (await executeRows()).length;
        const running = async () =>
          (await tool(server.url, "executions_list", { pipeline_id: slow.id })).items
            .filter((e: Json) => e.status === "RUNNING");
        const abandon = new AbortController();
        const pending = fetch(requestOf(server.url, key, v), { signal: abandon.signal });
        if (era === LEGACY) {
          // The stream is open before the wait is over: nothing audited yet.
          const res = await pending;
          equal(res.headers.get("content-type"), "text/event-stream", label);
          equal((await executeRows()).length, before, `${label}: answered before the wait ended`);
        }
        await eventually(async () => (await running()).length > 0, 20_000);
        abandon.abort();
        await pending.then((r) => r.body?.cancel()).catch(() => {});
        await eventually(async () => (await executeRows()).length > before, 20_000);
        const row = (await executeRows())[0];
        const elapsed = row.details.elapsed_ms as number;
        endedEarly[era].push(elapsed < WAIT * 1000);
        for (const e of await running()) {
          await tool(server.url, "executions_cancel", { id: e.execution_id });
        }
        await eventually(async () => (await running()).length === 0, 20_000);
      }
    }
    // On 2025-11-25 the client cancels the open stream, which both paths hear: the wait ends.
    deepEqual(endedEarly[LEGACY], [true, true]);
    // On 2026-07-28 nothing is written before the answer; both paths hand the tool the request's
    // signal and must agree on what it heard.
    equal(endedEarly[MODERN][0], endedEarly[MODERN][1], "2026-07-28: the paths differ");
  } finally {
    await sdk?.close();
    await fast.close();
    await Deno.remove(dir, { recursive: true });
  }
});
