/**
 * Spike for the tool endpoint (issue 15): the official MCP TypeScript SDK v2 under Deno, with a
 * Streamable HTTP server on web-standard Request/Response inside a Hono app, answering both the
 * 2025-11-25 revision (initialize) and 2026-07-28 (stateless, server/discover) to the official
 * client. Not production code: it pins what `src/mcp/` will build on.
 *
 * What it settles: `createMcpHandler(factory)` (one McpServer per request, both eras),
 * `McpServer.registerTool` with zod v4 input and output schemas, `handler.fetch(request,
 * {authInfo})` as the Hono handler with our own credential check in front, progress
 * notifications on both eras, a call held open across a round trip, a call the client abandons
 * aborting the handler's `ctx.mcpReq.signal`, and the transport's own answers (405 for GET and
 * DELETE, 400 for an unsupported `MCP-Protocol-Version` or headers disagreeing with the body).
 */
import { deepEqual, equal, fail, ok } from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import { z } from "zod";

const KEY = "svc_test_key";

/** Lets a test hold the `wait` tool mid-call and see what its request signal does. */
interface Gate {
  open: PromiseWithResolvers<void>;
  aborted: PromiseWithResolvers<void>;
  /** Settles when the tool returns, with whether its signal was aborted by then. */
  finished: PromiseWithResolvers<boolean>;
}
const newGate = (): Gate => ({
  open: Promise.withResolvers(),
  aborted: Promise.withResolvers(),
  finished: Promise.withResolvers(),
});
let gate: Gate | undefined;

function buildServer(): McpServer {
  const server = new McpServer({ name: "pipeline-service", version: "0.0.0-spike" });
  server.registerTool(
    "wait",
    {
      description: "Reports progress, then waits until the test opens the gate.",
      inputSchema: z.object({}),
      outputSchema: z.object({ signal_aborted: z.boolean() }),
    },
    async (_args, ctx: ServerContext) => {
      const g = gate!;
      ctx.mcpReq.signal.addEventListener("abort", () => g.aborted.resolve(), { once: true });
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: 1 },
        });
      }
      await g.open.promise;
      const output = { signal_aborted: ctx.mcpReq.signal.aborted };
      g.finished.resolve(output.signal_aborted);
      return {
        content: [{ type: "text", text: JSON.stringify(output) }],
        structuredContent: output,
      };
    },
  );
  server.registerTool(
    "echo",
    {
      description: "Echoes a text, with the caller the credential check named.",
      inputSchema: z.object({
        text: z.string().max(100),
        steps: z.number().int().min(0).default(0),
      }),
      outputSchema: z.object({ echoed: z.string(), caller: z.string() }),
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async ({ text, steps }, ctx: ServerContext) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps && token !== undefined; i++) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
        });
      }
      const output = { echoed: text, caller: ctx.http?.authInfo?.clientId ?? "(none)" };
      return {
        content: [{ type: "text", text: JSON.stringify(output) }],
        structuredContent: output,
      };
    },
  );
  return server;
}

async function withServer(fn: (url: URL, errors: Error[]) => Promise<void>): Promise<void> {
  const errors: Error[] = [];
  const handler = createMcpHandler(() => buildServer(), { onerror: (e) => errors.push(e) });
  const app = new Hono();
  app.all("/mcp", async (c) => {
    // Our credential check runs first; the SDK only passes authInfo through to the handlers.
    const auth = c.req.header("authorization");
    if (auth !== `Bearer ${KEY}`) return c.json({ error: { code: "auth.required" } }, 401);
    return await handler.fetch(c.req.raw, {
      authInfo: { token: KEY, clientId: "key-owner-1", scopes: ["read"] },
    });
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
  try {
    await fn(new URL(`http://127.0.0.1:${server.addr.port}/mcp`), errors);
  } finally {
    await handler.close();
    await server.shutdown();
  }
}

function transport(url: URL): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${KEY}` } },
  });
}

async function callEcho(client: Client) {
  const progress: number[] = [];
  const result = await client.callTool(
    { name: "echo", arguments: { text: "hi", steps: 2 } },
    { onprogress: (p) => progress.push(p.progress) },
  );
  return { result, progress };
}

Deno.test("MCP SDK v2: the 2025-11-25 revision (initialize) over Streamable HTTP in Hono", async () => {
  await withServer(async (url) => {
    const client = new Client({ name: "spike-client", version: "1.0.0" });
    await client.connect(transport(url));
    try {
      equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
      const tools = await client.listTools();
      deepEqual(tools.tools.map((t) => t.name), ["wait", "echo"]);
      const echo = tools.tools[1];
      deepEqual(Object.keys(echo.inputSchema.properties ?? {}), ["text", "steps"]);
      deepEqual(echo.outputSchema?.required, ["echoed", "caller"]);
      deepEqual(echo.annotations, { readOnlyHint: true, idempotentHint: true });
      const { result, progress } = await callEcho(client);
      deepEqual(result.structuredContent, { echoed: "hi", caller: "key-owner-1" });
      deepEqual(
        JSON.parse((result.content as { text: string }[])[0].text),
        result.structuredContent,
      );
      deepEqual(progress, [1, 2]);
      // An argument the input schema refuses is a tool error, not a protocol error.
      const bad = await client.callTool({ name: "echo", arguments: { text: 5 } });
      equal(bad.isError, true);
    } finally {
      await client.close();
    }
  });
});

Deno.test("MCP SDK v2: the 2026-07-28 revision (stateless, server/discover) in the same handler", async () => {
  await withServer(async (url) => {
    const client = new Client(
      { name: "spike-client", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(transport(url));
    try {
      equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      equal(client.getServerVersion()?.name, "pipeline-service");
      deepEqual((await client.listTools()).tools.map((t) => t.name), ["wait", "echo"]);
      const { result, progress } = await callEcho(client);
      deepEqual(result.structuredContent, { echoed: "hi", caller: "key-owner-1" });
      deepEqual(progress, [1, 2]);
    } finally {
      await client.close();
    }
  });
});

const ERAS = [
  ["2025-11-25", undefined],
  ["2026-07-28", { versionNegotiation: { mode: { pin: "2026-07-28" } } }],
] as const;

for (const [era, options] of ERAS) {
  Deno.test(`MCP SDK v2 (${era}): a call held open across a round trip; what abandoning it does`, async () => {
    await withServer(async (url) => {
      const client = new Client({ name: "spike-client", version: "1.0.0" }, options);
      await client.connect(transport(url));
      try {
        // Held open: the stream stays up while the tool waits on the test, which opens the gate
        // only once the first progress notification has arrived over it.
        gate = newGate();
        const held = gate;
        const result = await client.callTool({ name: "wait", arguments: {} }, {
          onprogress: () => held.open.resolve(),
        });
        deepEqual(result.structuredContent, { signal_aborted: false });

        // Abandoned: the client aborts its request after the first progress. On 2026-07-28 that
        // aborts the handler's signal; on 2025-11-25 the stateless legacy leg serves the client's
        // notifications/cancelled with a fresh instance, so the running handler never hears of
        // it. Either way a tool that must outlive its caller simply ignores the signal.
        gate = newGate();
        const left = gate;
        const abandon = new AbortController();
        const call = client.callTool({ name: "wait", arguments: {} }, {
          signal: abandon.signal,
          onprogress: () => abandon.abort(),
        });
        await call.then(() => fail("the abandoned call resolved"), () => {});
        if (era === "2026-07-28") {
          let timer: ReturnType<typeof setTimeout> | undefined;
          await Promise.race([
            left.aborted.promise,
            new Promise((_, reject) =>
              timer = setTimeout(() => reject(new Error("no abort")), 5000)
            ),
          ]).finally(() => clearTimeout(timer));
        }
        left.open.resolve();
        equal(await left.finished.promise, era === "2026-07-28");
      } finally {
        await client.close();
      }
    });
  });
}

Deno.test("MCP SDK v2: the transport's own answers, and our credential check in front", async () => {
  await withServer(async (url) => {
    const h = { authorization: `Bearer ${KEY}` };
    const noKey = await fetch(url, { method: "POST", body: "{}" });
    equal(noKey.status, 401);
    await noKey.body?.cancel();

    const get = await fetch(url, { headers: { ...h, accept: "text/event-stream" } });
    equal(get.status, 405);
    await get.body?.cancel();

    const unsupported = await fetch(url, {
      method: "POST",
      headers: {
        ...h,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "1999-01-01",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    equal(unsupported.status, 400);
    const body = await unsupported.json();
    ok(body.error, JSON.stringify(body));

    // 2026-07-28: the Mcp-Method / Mcp-Name headers are checked against the body by the SDK.
    const modern = {
      ...h,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
    };
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const call = (name: string, id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: { text: "a" }, _meta: meta },
    });
    // A name header that disagrees with the call, then a tool nobody declared.
    for (
      const [header, tool, id, status, code] of [
        ["other", "echo", 2, 400, -32020],
        ["nope", "nope", 3, 200, -32602],
      ] as const
    ) {
      const answer = await fetch(url, {
        method: "POST",
        headers: { ...modern, "mcp-method": "tools/call", "mcp-name": header },
        body: JSON.stringify(call(tool, id)),
      });
      equal(answer.status, status, header);
      equal((await answer.json()).error.code, code, header);
    }
    const del = await fetch(url, { method: "DELETE", headers: modern });
    equal(del.status, 405);
    await del.body?.cancel();
  });
});
