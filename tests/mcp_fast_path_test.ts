/**
 * The fast path of `/mcp` (src/mcp/fast_path.ts) against the SDK path: two servers over the one
 * store, one with the fast path (the default) and one without, get the same requests — the shapes
 * the fast path serves and every variant of them the SDK refuses or serves differently — and must
 * answer alike: status, media type and JSON-RPC body. `accept` is asked directly which variants it
 * takes, so the good ones are known to have run on the fast path and the bad ones on the SDK.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { type AccessFixture, seedRoles, userKey } from "./support/access_fixtures.ts";
import { startTestServer, type TestServer } from "./support/harness.ts";
import { type Json, NODES, SLOW } from "./support/mcp_client.ts";
import { eventually } from "./support/wait.ts";
import { z } from "zod";
import { CATALOGUE, defineTool } from "../src/mcp/mod.ts";
import { accept } from "../src/mcp/fast_path.ts";
import { queryAudit } from "../src/audit/mod.ts";

import {
  answerOf,
  call,
  envelope,
  LEGACY,
  legacyHeaders,
  MODERN,
  modernHeaders,
  requestOf,
  type Variant,
  variants,
} from "./support/mcp_fast_variants.ts";

const byName = new Map(CATALOGUE.map((t) => [t.name, t]));

interface Twins {
  fast: TestServer;
  sdk: TestServer;
  f: AccessFixture;
  created: Awaited<ReturnType<TestServer["runtime"]["pipelines"]["create"]>>;
}

/**
 * Two servers on one SQLite store, the fast path on and off, with the roles seeded and the
 * author's pipeline `name` created with `nodes`; both closed and the store removed after `fn`.
 */
async function withTwins(
  env: Record<string, string>,
  name: string,
  nodes: unknown[],
  fn: (t: Twins) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "svc_fast_" });
  const storeUrl = () => `sqlite:${dir}/shared.db`;
  const fast = await startTestServer({ storeUrl, env });
  let sdk: TestServer | undefined;
  try {
    const f = await seedRoles(fast.runtime);
    const created = await fast.runtime.pipelines.create(
      { actor: f.users.author.principal, workspaceId: f.workspace.id },
      { name, schema_version: 1, nodes },
    );
    sdk = await startTestServer({ storeUrl, env, runtime: { mcp: { fastPath: false } } });
    await fn({ fast, sdk, f, created });
  } finally {
    await sdk?.close();
    await fast.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the fast path answers every variant as the SDK path does", () =>
  withTwins({}, "fast/one", NODES, async ({ fast, sdk, f, created }) => {
    const rt = fast.runtime;
    const key = await userKey(rt, f.users.viewer, f.workspace.id, ["execute"]);
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
  }));

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
  // The polls below would otherwise spend the per-user budget.
  const env = {
    SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "100000",
    SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000",
  };
  await withTwins(env, "fast/slow", SLOW, async ({ fast, sdk, f, created: slow }) => {
    const rt = fast.runtime;
    const key = await userKey(rt, f.users.author, f.workspace.id, ["author"]);
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
          await tool(server.url, "executions_cancel", { execution_id: e.execution_id });
        }
        await eventually(async () => (await running()).length === 0, 20_000);
      }
    }
    // On 2025-11-25 the client cancels the open stream, which both paths hear: the wait ends.
    deepEqual(endedEarly[LEGACY], [true, true]);
    // On 2026-07-28 nothing is written before the answer; both paths hand the tool the request's
    // signal and must agree on what it heard.
    equal(endedEarly[MODERN][0], endedEarly[MODERN][1], "2026-07-28: the paths differ");
  });
});
