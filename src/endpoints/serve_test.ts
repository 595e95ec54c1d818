/**
 * Serving through the domain (no HTTP): real pipelines over real connectors, a real executions
 * service and real API keys, on both stores. Every status the domain decides, the binding walk,
 * and the `endpoint.served` row.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { pgJdbcUrl } from "../../tests/support/datasources.ts";
import { skipUnless } from "../../tests/support/services.ts";
import { forEachStore, freshPostgresDatabase, storeTestIn } from "../../tests/support/stores.ts";
import { connectorConfig, openConnector } from "../datasources/mod.ts";
import { addDatasource } from "../executions/executor_fixtures.ts";
import { payloadJson } from "../executions/mod.ts";
import type { Principal } from "../identity/mod.ts";
import { addWorkspace } from "../versions/test_fixtures.ts";
import type { AppError } from "../errors/mod.ts";
import { WorkspaceService } from "../workspaces/mod.ts";
import { eventually } from "../../tests/support/wait.ts";
import { REDIS_URL } from "../../tests/support/services.ts";
import { startTcpProxy } from "../../tests/support/tcp_proxy.ts";
import { RedisStore } from "../shared/mod.ts";
import { ResultStore } from "../executions/mod.ts";
import { keyStartedExecution } from "./repo.ts";
import { bindParameters, type ServeRequest } from "./serve.ts";
import {
  PEOPLE_BY_TEAM,
  peopleAt,
  peopleNodes,
  publishPeople,
  withEndpointWorld,
} from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

/** Each test runs in a fresh endpoint world (with the SQLite datasource `lite`). */
const endpointTest = storeTestIn(withEndpointWorld);

function get(principal: Principal, path: string, query: [string, string][] = []): ServeRequest {
  return { principal, path, query, correlationId: crypto.randomUUID() };
}

endpointTest(
  "a GET answers the data_ready payload of an ENDPOINT run, audited",
  async (e) => {
    const { id, key } = await publishPeople(e);
    const r = await e.server.serve(get(key, "/people/blue"));
    equal(r.status, 200);
    if (r.status !== 200) return;
    equal(r.body.execution_id, r.executionId);
    equal(r.body.pipeline_id, id);
    ok(r.timings.queue_ms > 0 && r.timings.execute_ms > 0);
    equal(r.body.row_count, 1);
    equal(r.body.has_more, false);
    deepEqual((r.body.schema as { name: string }[]).map((c) => c.name), ["id", "name"]);
    equal(JSON.stringify(r.body.rows).includes("Bo"), true);
    // The route answers the text the journal stored: the payload's JSON verbatim (in the run's
    // frames row) but for the run's ids, cut there and put back by every reader.
    const batches = await e.db.query<{ data: string }>(
      `SELECT data FROM execution_events WHERE execution_id = $1 AND event_type = 'frames'`,
      [r.executionId],
    );
    const text = payloadJson(r.body);
    const cut = text.replace(`"execution_id":"${r.executionId}",`, "")
      .replace(`"pipeline_id":"${id}",`, "")
      .replace(`,"correlation_id":"${r.body.correlation_id}"}`, "}");
    ok(cut.length < text.length - 100);
    ok(batches.some((b) => b.data.includes(`,"data_ready",${cut},`)));
    equal(text, JSON.stringify(r.body));
    const replayed = await e.executions.repo.events(r.executionId);
    equal(JSON.stringify(replayed.find((f) => f.event === "data_ready")?.data), text);
    const stored = await e.executions.repo.get(r.executionId);
    equal(stored?.record.triggered_via, "ENDPOINT");
    equal(stored?.record.triggered_by, key.userId);
    equal(stored?.record.pipeline_version, 1);
    deepEqual(stored?.record.parameters, { team: "blue" });
    const [row] = await audits(e.db, "endpoint.served");
    deepEqual(row.details, {
      key_id: key.keyId,
      endpoint: "/people/{team}",
      execution_id: r.executionId,
      outcome: "ok",
    });
    // The row is what lets an endpoint key read this execution, and no other key.
    ok(await keyStartedExecution(e.db, key.keyId!, r.executionId));
    ok(!(await keyStartedExecution(e.db, key.keyId!, crypto.randomUUID())));
    const other = await e.key({ name: "other", scopes: ["execute"] });
    ok(!(await keyStartedExecution(e.db, other.keyId!, r.executionId)));
    // The default fills an absent query parameter; a literal path needs no variable.
    await e.service.publish(e.ctx, { path_pattern: "/people", pipeline_id: id });
    const d = await e.server.serve(get(key, "/people", [["limit", "5"]]));
    equal(d.status === 200 && d.body.row_count, 2);
  },
);

endpointTest(
  "parameter defects are reported all at once in one endpoint.request.invalid",
  async (e) => {
    const id = await e.released(peopleNodes("lite"), {
      parameters: {
        team: { type: "string" },
        limit: { type: "integer" },
        since: { type: "date", required: true },
      },
    });
    await e.service.publish(e.ctx, { path_pattern: "/people/{team}", pipeline_id: id });
    const key = await e.key({ name: "app", scopes: ["execute"] });
    const err = await refuses(
      () =>
        e.server.serve(get(key, "/people/red", [
          ["team", "blue"],
          ["nope", "1"],
          ["limit", "ten"],
        ])),
      "endpoint.request.invalid",
      400,
    );
    deepEqual(
      (err.details.errors as { parameter: string; code: string }[]).map((d) => [
        d.parameter,
        d.code,
      ]),
      [
        ["team", "endpoint.request.parameter_repeated"],
        ["nope", "endpoint.request.parameter_unknown"],
        ["limit", "pipeline.execution.invalid_parameter_type"],
        ["since", "pipeline.execution.parameter_required"],
      ],
    );
    const big = await refuses(
      () =>
        e.server.serve(get(key, "/people/red", [
          ["since", "2".repeat(4097)],
          ["limit", "1"],
          ["limit", "2"],
          ["limit", "3"],
        ])),
      "endpoint.request.invalid",
      400,
    );
    // Each parameter once: an oversized required value is not also reported missing.
    deepEqual(
      (big.details.errors as { parameter: string; code: string }[]).map((d) => [
        d.parameter,
        d.code,
      ]),
      [
        ["since", "endpoint.request.value_too_large"],
        ["limit", "endpoint.request.parameter_repeated"],
      ],
    );
    const path = await refuses(
      () => e.server.serve(get(key, "/people/" + "r".repeat(4097), [["since", "2026-01-01"]])),
      "endpoint.request.invalid",
      400,
    );
    deepEqual((path.details.errors as { code: string }[]).map((d) => d.code), [
      "endpoint.request.value_too_large",
    ]);
    const [row] = await audits(e.db, "endpoint.served");
    equal(row.details.outcome, "endpoint.request.invalid");
    equal(row.details.execution_id, null);
  },
);

endpointTest(
  "the binding walk: the deepest bound node decides, for every key kind",
  async (e) => {
    await peopleAt(e, "/sales/{team}", "/sales/eu/{team}");
    const user = await e.key({ name: "user", scopes: ["execute"] });
    const reader = await e.key({ name: "reader", scopes: ["read"] });
    const k1 = await e.key({ name: "k1", kind: "endpoint" });
    const k2 = await e.key({ name: "k2", kind: "endpoint" });
    const ok200 = async (p: Principal, path: string) =>
      equal((await e.server.serve(get(p, path))).status, 200, `${p.keyId} on ${path}`);

    // Unbound: user keys of the workspace with execute; never endpoint keys.
    await ok200(user, "/sales/red");
    await refuses(() => e.server.serve(get(k1, "/sales/red")), "endpoint.key_kind_refused", 403);
    await refuses(
      () => e.server.serve(get(reader, "/sales/red")),
      "auth.scope.insufficient",
      403,
    );

    // A bound ancestor decides for every kind, user keys included.
    await e.service.bind(e.ctx, { path: "/sales", key_name: "k1" });
    await ok200(k1, "/sales/red");
    await ok200(k1, "/sales/eu/red");
    await refuses(() => e.server.serve(get(k2, "/sales/red")), "endpoint.key_not_bound", 403, {
      node: "/sales",
    });
    await refuses(() => e.server.serve(get(user, "/sales/red")), "endpoint.key_not_bound", 403);

    // A deeper binding replaces the inherited one below it, and only there.
    await e.service.bind(e.ctx, { path: "/sales/eu", key_name: "k2" });
    await ok200(k2, "/sales/eu/red");
    await refuses(() => e.server.serve(get(k1, "/sales/eu/red")), "endpoint.key_not_bound", 403, {
      node: "/sales/eu",
    });
    await ok200(k1, "/sales/red");
    // A binding on a variable node names the endpoint itself.
    await e.service.bind(e.ctx, { path: "/sales/{x}", key_name: "k2" });
    await ok200(k2, "/sales/red");
    await refuses(() => e.server.serve(get(k1, "/sales/red")), "endpoint.key_not_bound", 403);

    // Unbinding restores the inheritance.
    await e.service.unbind(e.ctx, { path: "/sales/{team}", key_name: "k2" });
    await ok200(k1, "/sales/red");

    // Keys of another workspace, and sessions.
    const other = await e.key({ name: "far", scopes: ["execute"] }, {
      userId: e.ctx.actor.userId,
      workspaceId: await addWorkspace(e.db, "far-ws"),
    });
    await e.service.unbind(e.ctx, { path: "/sales", key_name: "k1" });
    await e.service.unbind(e.ctx, { path: "/sales/eu", key_name: "k2" });
    await refuses(() => e.server.serve(get(other, "/sales/red")), "endpoint.key_not_bound", 403, {
      reason: "other_workspace",
    });
    await refuses(
      () => e.server.serve(get({ ...e.ctx.actor, authMethod: "OIDC" }, "/sales/red")),
      "auth.api_key.missing",
      401,
    );
  },
);

endpointTest(
  "unknown, disabled and deactivated-workspace paths answer one 404",
  async (e) => {
    const { key } = await publishPeople(e);
    const bodies: string[] = [];
    const notFound = async (path: string) => {
      const err = await refuses(() => e.server.serve(get(key, path)), "endpoint.not_found", 404);
      bodies.push(err.message);
    };
    await notFound("/people/red/x");
    await notFound("/people/");
    await notFound("/nothing");
    await e.service.setEnabled(e.ctx, "/people/{team}", { enabled: false });
    await notFound("/people/red");
    await e.service.setEnabled(e.ctx, "/people/{team}", { enabled: true });
    equal((await e.server.serve(get(key, "/people/red"))).status, 200);
    // Through the workspaces service, wired to serving as services.ts wires it.
    const workspaces = new WorkspaceService({ db: e.db, allowlistDomains: [] });
    workspaces.onStateChange(() => e.live.changed());
    const ws = await e.db.first<{ name: string }>("SELECT name FROM workspaces WHERE id = $1", [
      e.ctx.workspaceId,
    ]);
    await workspaces.deactivate(e.ctx.actor, ws!.name);
    await notFound("/people/red");
    equal(bodies.at(-1), bodies.at(-2)?.replace("/people/red/x", "/people/red"));
    await workspaces.reactivate(e.ctx.actor, ws!.name);
    equal((await e.server.serve(get(key, "/people/red"))).status, 200);
  },
);

endpointTest(
  "503 when the latest release is gone or no longer side-effect-free",
  async (e) => {
    const { id, key } = await publishPeople(e);
    // A later release that writes: the URL now runs it, so it must refuse.
    const view = await e.w.pipelines.view(e.w.workspaceId, id);
    const saved = await e.w.pipelines.update(e.w.ctx, id, view.working!.body_hash, {
      body: {
        name: view.entity.name,
        schema_version: 1,
        ...PEOPLE_BY_TEAM,
        nodes: [...peopleNodes("lite"), {
          id: "purge",
          type: "DML",
          source: "lite",
          sql: "DELETE FROM people",
        }],
      },
      attrs: {},
    });
    await e.w.pipelines.release(e.w.ctx, id, saved.version.body_hash);
    await refuses(() => e.server.serve(get(key, "/people/red")), "endpoint.unavailable", 503, {
      node_id: "purge",
      pipeline_version: 2,
    });
    // Every release discarded: nothing to serve.
    await e.w.pipelines.discard(e.w.ctx, id, 2);
    equal((await e.server.serve(get(key, "/people/red"))).status, 200);
    await e.w.pipelines.discard(e.w.ctx, id, 1);
    const err = await refuses(
      () => e.server.serve(get(key, "/people/red")),
      "endpoint.unavailable",
      503,
    );
    equal(err.details.reason, "the pipeline has no released version");
  },
);

endpointTest(
  "pipeline failures: 502 for an unreachable datasource, 500 for the rest",
  async (e) => {
    addDatasource(
      e.w,
      "gone",
      openConnector(connectorConfig("SQLITE", "jdbc:sqlite:/nonexistent-dir/none.db")),
    );
    const unreachable = await e.released([{
      id: "r",
      type: "DQL",
      source: "gone",
      sql: "SELECT 1",
    }]);
    const broken = await e.released([
      { id: "r", type: "DQL", source: "lite", sql: "SELECT * FROM no_such_table" },
    ]);
    await e.service.publish(e.ctx, { path_pattern: "/gone", pipeline_id: unreachable });
    await e.service.publish(e.ctx, { path_pattern: "/broken", pipeline_id: broken });
    const key = await e.key({ name: "app", scopes: ["execute"] });
    const a = await e.server.serve(get(key, "/gone"));
    equal(a.status, 502);
    equal(a.status === 502 && a.error.code, "pipeline.node.datasource_connection_failed");
    const b = await e.server.serve(get(key, "/broken"));
    equal(b.status, 500);
    ok(b.status === 500 && b.error.code.startsWith("pipeline."));
    const outcomes = (await audits(e.db, "endpoint.served")).map((r) => r.details.outcome);
    deepEqual(outcomes, [
      "pipeline.node.datasource_connection_failed",
      b.status === 500 && b.error.code,
    ]);
  },
);

forEachStore(
  "on timeout the run goes on and the caller gets 202 with where to look",
  async (db) => {
    if (skipUnless("postgres")) return;
    const pg = await freshPostgresDatabase();
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      await withEndpointWorld(db, async (e) => {
        addDatasource(
          e.w,
          "pg",
          openConnector(connectorConfig("POSTGRES", pgJdbcUrl(pg.url), {
            username: new URL(pg.url).username || "postgres",
          })),
        );
        // The read waits on a lock the test holds, so it outlives the endpoint's 1 s timeout.
        const lock = Math.floor(Math.random() * 1_000_000);
        await admin`SELECT pg_advisory_lock(${lock})`;
        const id = await e.released([{
          id: "r",
          type: "DQL",
          source: "pg",
          sql: `SELECT 42 AS answer FROM (SELECT pg_advisory_xact_lock(${lock})) AS gate`,
        }]);
        await e.service.publish(e.ctx, {
          path_pattern: "/slow",
          pipeline_id: id,
          timeout_seconds: 1,
        });
        const key = await e.key({ name: "app", scopes: ["execute"] });
        const r = await e.server.serve({ ...get(key, "/slow"), ttlHeader: "600" });
        equal(r.status, 202);
        if (r.status !== 202) return;
        equal(r.body.execution_id, r.executionId);
        equal(r.body.result_url, `/api/v1/executions/${r.executionId}/result`);
        equal(r.body.status_url, `/api/v1/executions/${r.executionId}`);
        const expires = Date.parse(r.body.expires_at) - Date.now();
        ok(expires > 590_000 && expires <= 600_000, `expires in ${expires} ms`);
        equal((await e.executions.repo.get(r.executionId))?.record.status, "RUNNING");
        equal((await audits(db, "endpoint.served"))[0].details.outcome, "accepted");
        // The run still counts against its owner's concurrency limit (1 here): 429.
        const limited = await refuses(
          () => e.server.serve(get(key, "/slow")),
          "pipeline.execution.concurrency_limit",
          429,
        );
        ok(limited.headers["Retry-After"]);
        await admin`SELECT pg_advisory_unlock(${lock})`;
        await eventually(
          async () => (await e.executions.repo.get(r.executionId))?.record.status === "SUCCESS",
          10_000,
        );
        // The 202's row stands for the run: its ending writes none of its own.
        deepEqual((await audits(db, "endpoint.served")).map((a) => a.details.outcome), [
          "accepted",
          "pipeline.execution.concurrency_limit",
        ]);
      }, { maxConcurrentPerUser: 1 });
    } finally {
      await admin.end();
      await pg.drop();
    }
  },
);

endpointTest(
  "a PIPELINE node under an endpoint runs its own child, not the body the endpoint handed over",
  async (e) => {
    // The endpoint hands its checked release to the executor; a child must still be read as
    // itself (were the parent's body passed down, it would nest until depth_exceeded).
    const child = await e.released([
      { id: "read", type: "DQL", source: "lite", sql: "SELECT 7 AS seven" },
    ]);
    const parent = await e.released([{ id: "sub", type: "PIPELINE", pipeline: { id: child } }]);
    await e.service.publish(e.ctx, { path_pattern: "/nested", pipeline_id: parent });
    const key = await e.key({ name: "app", scopes: ["execute"] });
    const r = await e.server.serve(get(key, "/nested"));
    equal(r.status, 200, JSON.stringify(r));
    if (r.status !== 200) return;
    deepEqual(r.body.rows, [[7]]);
    const stored = await e.executions.repo.get(r.executionId);
    equal(stored?.record.status, "SUCCESS");
  },
);

Deno.test("a value's limit is in UTF-8 bytes, not characters", () => {
  const declared = { s: { type: "string" as const, required: true } };
  // 2,048 two-byte characters are 4,096 bytes, the limit; one more is over it.
  equal(bindParameters(declared, {}, [["s", "é".repeat(2048)]]).s, "é".repeat(2048));
  const over = (() => {
    try {
      bindParameters(declared, {}, [["s", "é".repeat(2049)]]);
    } catch (e) {
      return e as AppError;
    }
  })();
  equal(over?.code, "endpoint.request.invalid");
  deepEqual((over?.details.errors as { code: string }[]).map((d) => d.code), [
    "endpoint.request.value_too_large",
  ]);
});

forEachStore(
  "a run whose result Redis could not take, being out of reach, answers 503 service.unavailable",
  async (db) => {
    // Found by the soak: during a Redis restart such a serve answered 500.
    const proxy = startTcpProxy({
      hostname: new URL(REDIS_URL).hostname,
      port: Number(new URL(REDIS_URL).port || 6379),
    });
    const redis = await RedisStore.connect(`redis://127.0.0.1:${proxy.port}/0`, {
      timeoutMs: 500,
    });
    const results = new ResultStore(redis, { maxBytes: 1_000_000 });
    try {
      await withEndpointWorld(db, async (e) => {
        const { key } = await publishPeople(e);
        await proxy.cut();
        const r = await e.server.serve(get(key, "/people/blue"));
        equal(r.status, 503);
        if (r.status !== 503) return;
        equal(r.error.code, "service.unavailable");
        // The record keeps what happened to the run.
        const stored = await e.executions.repo.get(r.executionId);
        equal(stored?.record.status, "FAILED");
        equal(stored?.record.error?.code, "result.storage_unavailable");
        deepEqual(stored?.record.error?.details, {
          execution_id: r.executionId,
          reason: "unreachable",
        });
      }, { results });
    } finally {
      await redis.close();
      await proxy.cut();
    }
  },
  { services: ["redis"] },
);
