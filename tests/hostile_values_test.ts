/**
 * Issue 22, finding 1: one author query took the instance down. `SELECT repeat('x', 400000000)`
 * as an inline node on tempdb, or through `sql_probe` on a DuckDB datasource, aborted V8; a
 * 50 MB cell stalled `/health`; 100,000 rows of 100 KB through a probe grew without bound. Each
 * query runs here on every path that hands values to JavaScript (staged reads, datasource reads,
 * DuckDB and SQLite, REST executions, published endpoints, MCP probes, previews and results) while
 * `/health` is polled: every run ends in its documented error or a truncated answer, `/health`
 * keeps answering, and the process is still here to check.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { EventFrame } from "../src/executions/event_order.ts";
import { adminScope, seedRoles, userKey } from "./support/access_fixtures.ts";
import { startTestServer, type TestServer } from "./support/harness.ts";
import { readSse } from "./support/sse_client.ts";
import { connect, type Json } from "./support/mcp_client.ts";
import { releasedPipeline } from "./support/pipeline_body.ts";

const HUGE = "SELECT repeat('x', 400000000) AS s";
const FIFTY_MB = "SELECT repeat('x', 50000000) AS s";
const WIDE_ROWS = "SELECT i, repeat('y', 100000) AS y FROM range(100000) t(i)";
/**
 * 1 GB of rows for a probe, whose page is cut by its character cap (20,000) long before: rows a
 * tenth as wide as WIDE_ROWS's, since DuckDB builds a whole vector of them (2,048 rows, 200 MB at
 * WIDE_ROWS's width) before the first is read, and on a loaded machine that alone outlasted the
 * probe's longest timeout (30 s).
 */
const WIDE_PAGE = "SELECT i, repeat('y', 10000) AS y FROM range(100000) t(i)";
/** SQLite has no repeat(): printf pads to the width asked (SQLite builds it before it checks). */
const SQLITE_HUGE = "SELECT printf('%.*c', 20000000, 'x') AS s";

/** Polls `/health` until stopped; every answer must be a 200. */
function healthPoller(s: TestServer) {
  const statuses: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const res = await s.fetch("/health");
      await res.body?.cancel();
      statuses.push(res.status);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      ok(statuses.length > 0, "/health was never answered");
      deepEqual([...new Set(statuses)], [200]);
    },
  };
}

async function world() {
  const dir = await Deno.makeTempDir();
  const duck = await DuckDBInstance.create(`${dir}/shop.duckdb`);
  (await duck.connect()).closeSync();
  duck.closeSync();
  new DatabaseSync(`${dir}/crm.db`).close();
  const s = await startTestServer({ env: { SERVICE_DEMO_ENABLED: "false" } });
  const f = await seedRoles(s.runtime);
  const acme = adminScope(f);
  const admin = f.users.ws_admin.principal;
  // A read-only DuckDB datasource stages through JavaScript; a writable one is copied natively.
  for (
    const [name, dialect, url, readonly] of [
      ["duck", "DUCKDB", `jdbc:duckdb:${dir}/shop.duckdb`, true],
      ["duckrw", "DUCKDB", `jdbc:duckdb:${dir}/shop.duckdb`, false],
      ["lite", "SQLITE", `jdbc:sqlite:${dir}/crm.db`, true],
    ] as const
  ) {
    await s.runtime.datasources.create(admin, acme, {
      name,
      dialect,
      jdbc_url: url,
      credential: { kind: "none" },
      readonly,
      workspace: "acme",
    } as never);
  }
  const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["author", "execute"]);
  const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
  let n = 0;
  /** Saves and releases a pipeline of `nodes`; answers its id. */
  const pipeline = (nodes: unknown[]) =>
    releasedPipeline(s.runtime, ctx, `bounds/p${++n}`, { nodes });
  return {
    s,
    key,
    pipeline,
    async close() {
      await s.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Runs a pipeline over REST and answers its last frame. */
async function lastFrame(s: TestServer, key: string, id: string): Promise<EventFrame> {
  const res = await s.fetch(`/api/v1/pipelines/${id}/execute`, {
    method: "POST",
    headers: {
      "SVC-API-Key": key,
      accept: "text/event-stream",
      "content-type": "application/json",
    },
    body: "{}",
  });
  equal(res.status, 200);
  let last: EventFrame | undefined;
  for await (const item of readSse(res.body!)) if ("frame" in item) last = item.frame;
  return last!;
}

function failedWith(frame: EventFrame, code: string) {
  equal(frame.event, "pipeline_failed", JSON.stringify(frame).slice(0, 400));
  equal((frame.data as Json).error?.code ?? (frame.data as Json).code, code);
}

Deno.test("issue 22 finding 1: no author query takes the instance down, on any path", async () => {
  const w = await world();
  const health = healthPoller(w.s);
  try {
    const inline = (sql: string) => [{ id: "r", type: "DQL", source: "tempdb", sql }];
    const fromDuck = (sql: string) => [{ id: "r", type: "DQL", source: "duck", sql }];
    const staged = (source: string) => (sql: string) => [
      { id: "a", type: "DQL", source, sql, output: { target: "tempdb", table: "a" } },
      { id: "r", type: "DQL", source: "tempdb", sql: "SELECT * FROM a", depends_on: ["a"] },
    ];
    for (const shape of [inline, fromDuck, staged("duck"), staged("duckrw")]) {
      for (const sql of [HUGE, FIFTY_MB]) {
        failedWith(
          await lastFrame(w.s, w.key, await w.pipeline(shape(sql))),
          "pipeline.node.value_too_large",
        );
      }
    }
    // 10 GB of rows: the read is cut into bounded batches and the result refused at its cap.
    failedWith(
      await lastFrame(w.s, w.key, await w.pipeline(inline(WIDE_ROWS))),
      "result.too_large",
    );
    failedWith(
      await lastFrame(
        w.s,
        w.key,
        await w.pipeline([{ id: "r", type: "DQL", source: "lite", sql: SQLITE_HUGE }]),
      ),
      "pipeline.node.value_too_large",
    );

    // A published endpoint runs the same executor: its failure is a 500 in the envelope.
    const served = await w.pipeline(inline(HUGE));
    const published = await w.s.fetch("/api/v1/endpoints", {
      method: "POST",
      headers: { "SVC-API-Key": w.key, "content-type": "application/json" },
      body: JSON.stringify({ path_pattern: "/bounds/huge", pipeline_id: served }),
    });
    equal(published.status, 201, await published.clone().text());
    await published.body?.cancel();
    const api = await w.s.fetch("/api/x/bounds/huge", { headers: { "SVC-API-Key": w.key } });
    equal(api.status, 500);
    equal((await api.json()).error.code, "pipeline.node.value_too_large");

    // Probes over /mcp: a refusal for one value too large, a truncated page for many wide rows.
    const mcp = await connect(w.s, "2025-11-25", { authorization: `Bearer ${w.key}` });
    try {
      // Not HUGE: the probe reads through the same DuckDB connector as the `fromDuck` run above,
      // which HUGE went through already, and building it alone takes DuckDB 6-8 s of a quiet
      // machine's CPU, too near the probe's longest timeout (30 s) on a loaded one.
      for (const [datasource, sql] of [["duck", FIFTY_MB], ["lite", SQLITE_HUGE]]) {
        const refusal = await mcp.refusal("sql_probe", { datasource, sql, timeout_ms: 30_000 });
        equal(refusal.code, "datasource.probe.value_too_large", `${datasource}: ${sql}`);
      }
      const wide = await mcp.call("sql_probe", {
        datasource: "duck",
        sql: WIDE_PAGE,
        timeout_ms: 30_000,
      });
      equal(wide.truncated, true);
      ok(wide.row_count >= 1);
      // The run's rows through MCP stay within the tool caps.
      const run = await mcp.call("pipelines_execute", { id: served });
      equal(run.status ?? run.execution?.status, "FAILED");
    } finally {
      await mcp.close();
    }
  } finally {
    await health.stop();
    await w.close();
  }
});
