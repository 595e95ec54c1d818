/**
 * `GET /metrics` (docs/operations.md "Metrics and traces") on both stores: scraped over HTTP and
 * read with an independent Prometheus text-format parser (tests/support/prometheus.ts). The named
 * metrics move after a request, a run on a real SQLite datasource, an endpoint serve and a tool
 * call; the route label is the matched pattern, never the path; the bearer token is required, and
 * with metrics off the path is unknown.
 */
import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { readSources, StartupError } from "../src/config/mod.ts";
import { resolveConfig } from "../src/config/resolve.ts";
import { sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, type TestServer, withTestServer } from "./support/harness.ts";
import { frames } from "./support/executions_fixtures.ts";
import { sqliteFile, sqliteSource } from "./support/pipeline_client.ts";
import { connect, keyHeaders } from "./support/mcp_client.ts";
import { type Exposition, readExposition } from "./support/prometheus.ts";
import { dql, releasedPipeline } from "./support/pipeline_body.ts";
import { forEachServer } from "./support/servers.ts";

const TOKEN = "metrics-" + crypto.randomUUID() + crypto.randomUUID();
const METRICS_ON = { SERVICE_METRICS_ENABLED: "true", SERVICE_METRICS_TOKEN: TOKEN };

async function scrape(s: TestServer): Promise<Exposition> {
  const res = await s.fetch("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  equal(res.status, 200);
  ok(res.headers.get("content-type")?.startsWith("text/plain; version=0.0.4"));
  return readExposition(await res.text());
}

forEachServer(
  "/metrics moves after a request, a run, an endpoint serve and a tool call",
  async (s, f) => {
    const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
    const author = await sessionHeaders(s.runtime, f.users.author, "acme");
    const file = await sqliteFile(); // orders: amounts 10 and 32
    const ds = await call(s, "POST", "/api/v1/datasources", admin, sqliteSource("wh", file));
    equal(ds.status, 201, JSON.stringify(ds.body));
    const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
    const pipelineId = await releasedPipeline(s.runtime, ctx, "api/orders", {
      parameters: { min: { type: "integer", default: 0 } },
      nodes: [dql("read", {
        source: "wh",
        sql: "SELECT id, amount FROM orders WHERE amount >= :min",
      })],
    });
    const published = await call(s, "POST", "/api/v1/endpoints", author, {
      path_pattern: "/orders",
      pipeline_id: pipelineId,
    });
    equal(published.status, 201, JSON.stringify(published.body));
    const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["author"]);

    const before = await scrape(s);

    // A request.
    equal((await call(s, "GET", "/health", {})).status, 200);
    // A run, streamed to its end.
    const run = await s.fetch(`/api/v1/pipelines/${pipelineId}/execute`, {
      method: "POST",
      headers: { ...author, accept: "text/event-stream", "content-type": "application/json" },
      body: "{}",
    });
    equal(run.status, 200);
    equal((await frames(run).rest()).at(-1)?.event, "data_ready");
    // An endpoint serve.
    const served = await s.fetch("/api/x/orders?min=20", { headers: { "SVC-API-Key": key } });
    equal(served.status, 200);
    equal((await served.json()).row_count, 1);
    // A tool call.
    const tools = await connect(s, "2025-11-25", keyHeaders(key, "bearer"));
    try {
      await tools.call("calculators_list", {});
    } finally {
      await tools.close();
    }

    const after = await scrape(s);
    const moved = (name: string, labels: Record<string, string> = {}) =>
      after.value(name, labels) - before.value(name, labels);

    equal(after.type("svc_http_requests_total"), "COUNTER");
    equal(after.type("svc_http_request_duration_seconds"), "HISTOGRAM");
    equal(
      moved("svc_http_requests_total", { method: "GET", route: "/health", status: "200" }),
      1,
    );
    const execute = { method: "POST", route: "/api/v1/pipelines/:id/execute", status: "200" };
    equal(moved("svc_http_requests_total", execute), 1);
    equal(moved("svc_http_request_duration_seconds_count", execute), 1);
    // The route is the pattern: no label names the pipeline's id or the served path's query.
    for (const labels of after.labels("svc_http_requests_total")) {
      ok(!labels.route.includes(pipelineId), labels.route);
    }
    equal(moved("svc_http_requests_total", { route: "/api/x/*", status: "200" }), 1);

    equal(moved("svc_executions_started_total", { trigger: "UI" }), 1);
    equal(moved("svc_executions_total", { status: "SUCCESS", trigger: "UI" }), 1);
    equal(moved("svc_executions_total", { status: "SUCCESS", trigger: "ENDPOINT" }), 1);
    equal(after.value("svc_executions_running"), 0);
    equal(moved("svc_execution_duration_seconds_count", { trigger: "ENDPOINT" }), 1);
    equal(moved("svc_node_duration_seconds_count", { type: "DQL", status: "SUCCESS" }), 2);
    equal(moved("svc_result_store_result_bytes_count"), 2);
    ok(moved("svc_result_store_result_bytes_sum") > 0);

    equal(moved("svc_endpoint_serves_total", { endpoint: "/orders", status: "200" }), 1);
    equal(moved("svc_endpoint_serve_duration_seconds_count", { endpoint: "/orders" }), 1);
    equal(moved("svc_mcp_tool_calls_total", { tool: "calculators_list", outcome: "ok" }), 1);
    equal(moved("svc_mcp_tool_call_duration_seconds_count", { tool: "calculators_list" }), 1);

    // Every run's frames went through the store's group commit.
    ok(moved("svc_group_commit_batch_size_count") > 0);
    ok(moved("svc_group_commit_batch_size_sum") >= moved("svc_group_commit_batch_size_count"));
    // The datasource's pool, opened by the runs, by state; nothing leased once they ended.
    equal(after.type("svc_datasource_pool_connections"), "GAUGE");
    equal(
      after.value("svc_datasource_pool_connections", { datasource: "wh", state: "leased" }),
      0,
    );
    ok(after.value("svc_datasource_pool_connections", { datasource: "wh", state: "idle" }) >= 1);
    ok(after.value("svc_datasource_pool_max", { datasource: "wh" }) >= 1);
    // The shared store's health (and the other components'), and the event loop's lag.
    for (const component of ["database", "shared_store", "staging_engine"]) {
      equal(after.value("svc_component_up", { component }), 1, component);
    }
    equal(after.type("nodejs_eventloop_lag_p99_seconds"), "GAUGE");
    equal(after.labels("svc_build_info")[0].version, s.runtime.buildInfo.version);

    // Every metric the operator's page and the dashboard name is one this instance exposes.
    for (const page of ["operations.md", "grafana_dashboard.json"]) {
      const whole = await Deno.readTextFile(new URL(`../docs/${page}`, import.meta.url));
      if (page.endsWith(".json")) equal(JSON.parse(whole).uid, "pipeline-service");
      // The page's other sections name other things (a database called svc_restored).
      const text = page.endsWith(".md") ? section(whole, "## Metrics and traces") : whole;
      const named = new Set(text.match(/\b(?:svc|nodejs|process)_[a-z0-9_]+/g));
      ok(named.size > 10, page);
      for (const name of named) {
        const base = name.replace(/_(bucket|sum|count)$/, "");
        ok(after.type(name) ?? after.type(base), `${page} names ${name}, which is not exposed`);
      }
    }
  },
  { env: METRICS_ON },
);

Deno.test("/metrics refuses a missing or wrong bearer token with 401 in the envelope", async () => {
  await withTestServer({ env: METRICS_ON }, async (s) => {
    for (
      const [authorization, reason] of [
        [undefined, "missing"],
        [`Bearer ${TOKEN}x`, "wrong"],
        [`Basic ${btoa(`metrics:${TOKEN}`)}`, "missing"],
        ["Bearer", "missing"],
      ] as const
    ) {
      const res = await call(s, "GET", "/metrics", authorization ? { authorization } : {});
      equal(res.status, 401, String(authorization));
      equal(res.body.error.code, "auth.metrics.token_invalid");
      equal(res.body.error.details.reason, reason);
      ok(res.body.correlation_id);
      ok(!JSON.stringify(res.body).includes(TOKEN), "the token is never echoed");
    }
    const refusal = await s.fetch("/metrics");
    await refusal.body?.cancel();
    equal(refusal.headers.get("www-authenticate"), 'Bearer realm="metrics"');
    // Refusals are counted too, under their route.
    const exposition = await scrape(s);
    equal(exposition.value("svc_http_requests_total", { route: "/metrics", status: "401" }), 5);
    ok(!s.logs.some((line) => line.includes(TOKEN)), "the token is never logged");
  });
});

Deno.test("/metrics is off by default: the path answers 404 like any unknown one", async () => {
  await withTestServer({}, async (s) => {
    const res = await call(s, "GET", "/metrics", { authorization: `Bearer ${TOKEN}` });
    deepEqual([res.status, res.body.error.code], [404, "request.not_found"]);
    equal(s.runtime.metrics, undefined);
  });
});

Deno.test("metrics on without a token, or with a short one, refuses to start", () => {
  const resolve = (env: Record<string, string>) => resolveConfig(readSources(env), env);
  throws(
    () => resolve({ SERVICE_METRICS_ENABLED: "true" }),
    (e: Error) => e instanceof StartupError && /service\.metrics\.token: required/.test(e.message),
  );
  throws(
    () => resolve({ SERVICE_METRICS_ENABLED: "true", SERVICE_METRICS_TOKEN: "short" }),
    (e: Error) =>
      e instanceof StartupError && /service\.metrics\.token/.test(e.message) &&
      !e.message.includes("short"),
  );
});

/** A Markdown page's section under `heading`, up to the next heading of its level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n${heading}\n`);
  ok(start >= 0, `no ${heading}`);
  const end = text.indexOf("\n## ", start + heading.length + 2);
  return text.slice(start, end < 0 ? undefined : end);
}
