/**
 * The tool endpoint's per-call cost (issue 15's benchmark): on the demo content, over loopback
 * HTTP with an API key, `tools/call` of `pipelines_list` and of `pipelines_execute`
 * (`demo/top_customers`) against the same REST call in the same run — `GET /api/v1/pipelines` and
 * `POST /api/v1/pipelines/{id}/execute` read to the end of its event stream. One client, calls in
 * sequence after a warm-up, the two sides interleaved in rounds so both see the same machine;
 * p50 and mean per call, and the ratio tool / REST (target: at most 1.5x). Tool calls are raw
 * JSON-RPC POSTs, each revision as its clients send it: 2026-07-28 with its headers, 2025-11-25
 * without a session (the server is stateless, so `initialize` is not per call). A third row per
 * group is the SDK's own floor: a bare `createMcpHandler` behind `Deno.serve` with one tool that
 * answers a constant, no credential, no audit, the same request shape — what any tool call costs
 * on the SDK before this service does anything. These requests are the shape the endpoint's fast
 * path serves (src/mcp/fast_path.ts); a fourth row sends the same 2026-07-28 call to a second
 * server over the same store with the fast path off, so the SDK path is measured in the same run.
 */
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { userKey } from "../tests/support/access_fixtures.ts";
import { startTestServer } from "../tests/support/harness.ts";
import { demoUsers } from "./demo_users.ts";

const LIST_CALLS = Number(Deno.env.get("BENCH_MCP_LIST_CALLS") ?? 400);
const EXECUTE_CALLS = Number(Deno.env.get("BENCH_MCP_EXECUTE_CALLS") ?? 60);
const ROUNDS = 4;

type Call = () => Promise<void>;

function stats(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    p50: sorted[Math.floor(sorted.length / 2)],
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

/** Times `calls` of each side, interleaved in rounds; answers each side's latencies. */
async function interleaved(sides: Record<string, Call>, calls: number) {
  const times: Record<string, number[]> = Object.fromEntries(
    Object.keys(sides).map((k) => [k, []]),
  );
  for (const call of Object.values(sides)) for (let i = 0; i < 10; i++) await call(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call] of Object.entries(sides)) {
      for (let i = 0; i < calls / ROUNDS; i++) {
        const t = performance.now();
        await call();
        times[name].push(performance.now() - t);
      }
    }
  }
  return times;
}

function report(title: string, times: Record<string, number[]>, baseline: string) {
  console.log(`\n${title}`);
  const base = stats(times[baseline]);
  for (const [name, ms] of Object.entries(times)) {
    const s = stats(ms);
    const ratio = name === baseline ? "" : `  ratio p50 ${(s.p50 / base.p50).toFixed(2)}x, ` +
      `mean ${(s.mean / base.mean).toFixed(2)}x (target <= 1.5x)`;
    console.log(
      `${name.padEnd(28)} p50 ${s.p50.toFixed(2).padStart(7)} ms  mean ${
        s.mean.toFixed(2).padStart(7)
      } ms${ratio}`,
    );
  }
}

/** The SDK alone: one constant tool behind Deno.serve (the floor of any tools/call). */
function bareSdk() {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "bare", version: "1" });
    server.registerTool("constant", {
      description: "answers a constant",
      inputSchema: z.object({}),
      outputSchema: z.object({ items: z.array(z.string()) }),
    }, () => {
      const out = { items: ["a", "b", "c", "d"] };
      return Promise.resolve({
        content: [{ type: "text", text: JSON.stringify(out) }],
        structuredContent: out,
      });
    });
    return server;
  }, { legacy: "stateless" });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req) => handler.fetch(req),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    close: async () => {
      await handler.close();
      await server.shutdown();
    },
  };
}

export async function mcpBench(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "svc_bench_mcp_" });
  const env = {
    SERVICE_LOG_LEVEL: "warn",
    // The budget is counted on every call (its cost is measured) but never binds.
    SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "1000000000",
    SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000000",
  };
  // One store for both servers, so the SDK-path server answers from the same content and keys.
  const storeUrl = () => `sqlite:${dir}/service.db`;
  // As in production: the tests' answer check parses each body again.
  const runtime = { checkResponses: false };
  const s = await startTestServer({
    storeUrl,
    env: { ...env, SERVICE_DEMO_ENABLED: "true" },
    runtime,
  });
  let sdkPath: Awaited<ReturnType<typeof startTestServer>> | undefined;
  try {
    const rt = s.runtime;
    const { user, demo } = await demoUsers(rt);
    const key = await userKey(rt, user, demo.id, ["execute"]);
    const { items } = await rt.pipelines.list(demo.id, { q: "top_customers" }, {
      offset: 0,
      limit: 10,
    });
    const pipeline = items.find((p) => p.name === "demo/top_customers")!;

    sdkPath = await startTestServer({
      storeUrl,
      env,
      runtime: { ...runtime, mcp: { fastPath: false } },
    });
    let id = 0;
    const bare = bareSdk();
    const tool = (
      era: "2025-11-25" | "2026-07-28",
      name: string,
      args: object,
      url = `${s.url}/mcp`,
    ): Call => {
      const modern = era === "2026-07-28";
      const meta = modern
        ? {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": era,
            "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        }
        : {};
      const headers = {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": era,
        ...(modern ? { "mcp-method": "tools/call", "mcp-name": name } : {}),
      };
      return async () => {
        const res = await fetch(url, {
          method: "POST",
          headers,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: ++id,
            method: "tools/call",
            params: { name, arguments: args, ...meta },
          }),
        });
        const text = await res.text();
        if (res.status !== 200 || text.includes('"isError":true') || !text.includes('"result"')) {
          throw new Error(`${name} (${era}): ${res.status} ${text.slice(0, 300)}`);
        }
      };
    };
    const rest =
      (method: string, path: string, accept: string, expect: string): Call => async () => {
        const res = await s.fetch(path, {
          method,
          headers: { "SVC-API-Key": key, accept, "content-type": "application/json" },
          body: method === "POST" ? "{}" : undefined,
        });
        const text = await res.text();
        if (res.status !== 200 || !text.includes(expect)) {
          throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
        }
      };

    console.log(`\ntool calls vs REST on the demo content (one client, sequential, loopback)`);
    report(
      `pipelines_list vs GET /api/v1/pipelines (${LIST_CALLS} calls each)`,
      await interleaved({
        "REST GET /api/v1/pipelines": rest("GET", "/api/v1/pipelines", "application/json", "items"),
        "tools/call 2026-07-28": tool("2026-07-28", "pipelines_list", {}),
        "tools/call 2025-11-25": tool("2025-11-25", "pipelines_list", {}),
        "SDK path, 2026-07-28": tool("2026-07-28", "pipelines_list", {}, `${sdkPath.url}/mcp`),
        "SDK floor, 2026-07-28": tool("2026-07-28", "constant", {}, bare.url),
      }, LIST_CALLS),
      "REST GET /api/v1/pipelines",
    );
    const params = {};
    report(
      `pipelines_execute vs POST .../execute, demo/top_customers (${EXECUTE_CALLS} calls each)`,
      await interleaved({
        "REST POST .../execute (SSE)": rest(
          "POST",
          `/api/v1/pipelines/${pipeline.id}/execute`,
          "text/event-stream",
          "event: data_ready",
        ),
        "tools/call 2026-07-28": tool("2026-07-28", "pipelines_execute", {
          id: pipeline.id,
          parameters: params,
        }),
        "tools/call 2025-11-25": tool("2025-11-25", "pipelines_execute", {
          id: pipeline.id,
          parameters: params,
        }),
      }, EXECUTE_CALLS),
      "REST POST .../execute (SSE)",
    );
    await bare.close();
  } finally {
    await sdkPath?.close();
    await s.close();
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  await mcpBench();
  Deno.exit(0);
}
