/**
 * Issue 22 finding 4: an outage of the metadata store, end to end through HTTP. The app reaches
 * its PostgreSQL store through a TCP proxy the test cuts and restores (the shared server is never
 * stopped); a run waits inside its node on an advisory lock the test holds on a datasource of its
 * own, so the run is under way when the store goes. While the store is out, requests answer 503
 * `service.unavailable` at once; the run's ending is stored, whole and in order, once it is back;
 * a cancel answers 503 while it cannot change anything, then 409 with the stored status. A
 * RUNNING record no instance runs any more is ended by a cancel, on both stores.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { checkEventOrder } from "../src/executions/event_order.ts";
import { runningRecord } from "../src/executions/test_fixtures.ts";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { pgJdbcUrl } from "./support/datasources.ts";
import { frames } from "./support/executions_fixtures.ts";
import { call, startTestServer, type TestServer } from "./support/harness.ts";
import { POSTGRES_ADMIN_URL, skipUnless } from "./support/services.ts";
import { freshPostgresDatabase } from "./support/stores.ts";
import { dql, pipelineDrafts } from "./support/pipeline_body.ts";
import { startTcpProxy, type TcpProxy } from "./support/tcp_proxy.ts";
import { eventually } from "./support/wait.ts";
import { forEachServer } from "./support/servers.ts";
import { executeOverHttp } from "./support/runs.ts";

const LOCK = 4_722_004;

/** Well under the connect timeout (5 s) and the old driver backoff (~10 s) an answer waited. */
const PROMPT_MS = 2_000;

interface Outage {
  s: TestServer;
  proxy: TcpProxy;
  h: Record<string, string>;
  /** The test's own connection to the datasource's database, to hold the node's lock. */
  holder: postgres.Sql;
  /** A pipeline whose node waits for the test's advisory lock on datasource `pg`. */
  waiter: string;
  execute(id: string): Promise<Response>;
}

async function withOutage(fn: (o: Outage) => Promise<void>): Promise<void> {
  const pg = new URL(POSTGRES_ADMIN_URL);
  const proxy = startTcpProxy({ hostname: pg.hostname, port: Number(pg.port) });
  const source = await freshPostgresDatabase();
  const holder = postgres(source.url, { max: 1, onnotice: () => {} });
  let s: TestServer | undefined;
  try {
    s = await startTestServer({
      store: "postgres",
      storeUrl: (fresh) => {
        const u = new URL(fresh);
        u.port = String(proxy.port);
        return u.toString();
      },
      env: { SERVICE_SSE_DISCONNECT_GRACE_SECONDS: "0" },
    });
    const server = s;
    const fx = await seedRoles(server.runtime);
    const admin = await sessionHeaders(server.runtime, fx.users.super_admin, "acme");
    const created = await call(server, "POST", "/api/v1/datasources", admin, {
      name: "pg",
      dialect: "POSTGRES",
      jdbc_url: pgJdbcUrl(source.url),
      credential: { kind: "none", username: new URL(source.url).username || "postgres" },
    });
    equal(created.status, 201, JSON.stringify(created.body));
    const waiter = await pipelineDrafts(server.runtime.db, fx.users.author, fx.workspace.id)(
      "ops/wait",
      [dql("wait", {
        source: "pg",
        sql: `SELECT 1 AS x FROM (SELECT pg_advisory_xact_lock(${LOCK})) AS l`,
      })],
    );
    const h = await sessionHeaders(server.runtime, fx.users.author, "acme");
    await fn({
      s: server,
      proxy,
      h,
      holder,
      waiter,
      execute: (id) => executeOverHttp(server, h, id),
    });
  } finally {
    proxy.restore();
    await s?.close();
    await proxy.cut();
    await holder.end();
    await source.drop();
  }
}

/** A request and how long its answer took. */
async function timed(s: TestServer, method: string, path: string, h: Record<string, string>) {
  const started = performance.now();
  const res = await call(s, method, path, h, method === "POST" ? { name: "x/y" } : undefined);
  return { ...res, ms: performance.now() - started };
}

function assertPromptUnavailable(answer: Awaited<ReturnType<typeof timed>>, what: string): void {
  equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
  equal(answer.body.error.code, "service.unavailable", what);
  ok(answer.ms < PROMPT_MS, `${what} took ${Math.round(answer.ms)} ms`);
}

Deno.test({
  name:
    "[postgres] issue 22 finding 4: a run cut off by a store outage has the ending its reader got stored, whole and in order, once the store is back; cancel answers 503, then 409",
  ignore: skipUnless("postgres"),
  async fn() {
    await withOutage(async (o) => {
      const repo = o.s.runtime.executions.repo;
      const { executionId, stream } = await o.holder.begin(async (tx) => {
        await tx.unsafe(`SELECT pg_advisory_xact_lock(${LOCK})`);
        const res = await o.execute(o.waiter);
        equal(res.status, 200);
        const executionId = res.headers.get("SVC-Execution-Id")!;
        const stream = frames(res);
        while ((await stream.next()).data.state !== "executing");
        // The frames so far are stored: the record is RUNNING with a stream when the store goes.
        await eventually(async () => (await repo.events(executionId)).length === 4);
        await o.proxy.cut();
        o.s.logs.length = 0;
        return { executionId, stream };
      });
      // The lock went with the transaction: the node finishes into a store that is gone. The
      // run fails on the refusal (service.unavailable), or had completed before it came back:
      // either way, the ending its reader got is the one that is stored.
      const live = await stream.rest();
      checkEventOrder(live);
      const terminal = live.findLast((f) => f.event !== "data_ready")!;
      const status = terminal.event === "pipeline_failed" ? "FAILED" : "SUCCESS";
      if (status === "FAILED") equal(terminal.data.error.code, "service.unavailable");
      else equal(terminal.event, "pipeline_completed");

      // Out: every request answers 503 service.unavailable at once, a cancel included.
      for (let i = 0; i < 12; i++) {
        assertPromptUnavailable(await timed(o.s, "POST", "/api/v1/pipelines", o.h), `write ${i}`);
      }
      assertPromptUnavailable(
        await timed(o.s, "DELETE", `/api/v1/executions/${executionId}`, o.h),
        "cancel during the outage",
      );
      ok(!o.s.logs.some((l) => l.includes("internal.unexpected")));
      // The instance still holds the run: it beats for it, so no reaper takes it meanwhile.
      ok(o.s.runtime.executions.runs.holds(executionId));

      // Back: the ending is stored without anyone asking, the whole stream the client saw.
      o.proxy.restore();
      await eventually(async () => {
        const stored = await repo.get(executionId).catch(() => undefined);
        return stored !== undefined && stored.record.status !== "RUNNING";
      }, 30_000);
      const stored = (await repo.get(executionId))!;
      equal(stored.record.status, status);
      if (status === "FAILED") equal(stored.record.error?.code, "service.unavailable");
      const all = await repo.events(executionId);
      checkEventOrder(all);
      deepEqual(all, live);
      equal(all.filter((f) => f.event === terminal.event).length, 1);
      ok(!o.s.runtime.executions.runs.holds(executionId));

      // The replay route and the record say the same; a cancel now is 409 with that status.
      const replay = await call(o.s, "GET", `/api/v1/executions/${executionId}/events`, o.h);
      deepEqual(replay.body.data.events, all);
      const cancel = await call(o.s, "DELETE", `/api/v1/executions/${executionId}`, o.h);
      equal(cancel.status, 409);
      equal(cancel.body.error.code, "pipeline.execution.not_running");
      equal(cancel.body.error.details.status, status);
    });
  },
});

Deno.test({
  name:
    "[postgres] issue 22 finding 4: while the store is out, reads and writes answer 503 service.unavailable at once, and recover with it",
  ignore: skipUnless("postgres"),
  async fn() {
    await withOutage(async (o) => {
      equal((await timed(o.s, "GET", "/api/v1/pipelines", o.h)).status, 200);
      await o.proxy.cut();
      const started = performance.now();
      for (let i = 0; i < 20; i++) {
        assertPromptUnavailable(await timed(o.s, "POST", "/api/v1/pipelines", o.h), `write ${i}`);
        assertPromptUnavailable(await timed(o.s, "GET", "/api/v1/pipelines", o.h), `read ${i}`);
      }
      // Forty answers in less than the old single wait: none waited for a backoff or a timeout.
      ok(performance.now() - started < 5_000, `${Math.round(performance.now() - started)} ms`);
      const ready = await o.s.fetch("/ready");
      equal(ready.status, 503);
      await ready.body?.cancel();
      o.proxy.restore();
      await eventually(
        async () => (await timed(o.s, "GET", "/api/v1/pipelines", o.h)).status === 200,
        10_000,
      );
    });
  },
});

forEachServer(
  "issue 22 finding 4: cancelling a RUNNING record no instance runs ends it ABORTED cancelled",
  async (s, fx) => {
    const h = await sessionHeaders(s.runtime, fx.users.author, "acme");
    const pipelineId = await pipelineDrafts(s.runtime.db, fx.users.author, fx.workspace.id)(
      "ops/left",
      [dql("out", { source: "tempdb", sql: "SELECT 1 AS x" })],
    );
    const repo = s.runtime.executions.repo;
    const ids = { workspaceId: fx.workspace.id, pipelineId, userId: fx.users.author.id };
    // One this instance recorded and no longer holds (it gave its ending up), and one of an
    // instance that stopped beating long ago: no one will ever end either.
    const mine = runningRecord(ids);
    const gone = runningRecord(ids);
    const now = new Date().toISOString();
    await repo.insert(mine, s.runtime.executions.instanceId, now);
    await repo.insert(gone, "a-dead-instance", new Date(Date.now() - 3_600_000).toISOString());
    for (const record of [mine, gone]) {
      const id = record.execution_id;
      const del = await s.fetch(`/api/v1/executions/${id}`, { method: "DELETE", headers: h });
      equal(del.status, 204);
      await del.body?.cancel();
      const stored = (await repo.get(id))!;
      equal(stored.record.status, "ABORTED");
      equal(stored.record.abort_reason, "cancelled");
      equal(stored.abortedBy, fx.users.author.id);
      const events = await repo.events(id);
      equal(events.at(-1)?.event, "execution_aborted");
      equal(events.at(-1)?.data.reason, "cancelled");
      const again = await call(s, "DELETE", `/api/v1/executions/${id}`, h);
      equal(again.status, 409);
      equal(again.body.error.details.status, "ABORTED");
    }
  },
);
