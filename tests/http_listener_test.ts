/**
 * The listener's timeouts on the real instance (issue 22 finding 3): slow clients are closed
 * within `service.http.*-timeout-seconds` while the instance answers everyone else, its
 * descriptors come back down, and answers that legitimately take long are not cut.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { addEchoRoute } from "./support/echo_route.ts";
import { forEachExecWorld, runningExecution } from "./support/executions_fixtures.ts";
import { call, startTestServer } from "./support/harness.ts";
import { FD_WAIT_MS, head, openFds, send, trickle, untilClosed } from "./support/slow_client.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";
import { dql, releasedPipeline } from "./support/pipeline_body.ts";

const TIMEOUTS = {
  SERVICE_HTTP_HEADER_TIMEOUT_SECONDS: "1",
  SERVICE_HTTP_BODY_TIMEOUT_SECONDS: "1",
  SERVICE_HTTP_IDLE_TIMEOUT_SECONDS: "1",
};
// The close is due at the timeout plus one sweep; a loaded machine may be late, never early.
const SLACK_MS = 5000;

forEachStoreKind(
  "issue 22 finding 3: slow heads, slow bodies and idle connections are closed while /health answers",
  async (store) => {
    const s = await startTestServer({
      store,
      env: TIMEOUTS,
      extendRoutes: addEchoRoute,
    });
    // A fresh connection per request: a pooled one may be the one the idle sweep is closing.
    const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
    try {
      const f = await seedRoles(s.runtime);
      const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["read"]);
      const port = Number(new URL(s.url).port);
      const health = async () => {
        const res = await fetch(`${s.url}/health`, { client });
        await res.body?.cancel();
        return res.status;
      };
      equal(await health(), 200);
      const before = openFds();
      const since = performance.now();

      // The reproduction, scaled to the test: heads trickled a byte at a time, and
      // connections that never send anything.
      const slow = await Promise.all(Array.from({ length: 150 }, () => Deno.connect({ port })));
      const silent = await Promise.all(Array.from({ length: 50 }, () => Deno.connect({ port })));
      const trickles = slow.map((c) =>
        trickle(c, "GET /health HTTP/1.1\r\nX-A: " + "a".repeat(600), 50)
      );
      // A connection that has sent a complete head for the echo route, its body yet to come.
      const echoHead = async (framing: Record<string, string>) => {
        const c = await Deno.connect({ port });
        const headers = { "svc-api-key": key, "content-type": "application/json", ...framing };
        await send(c, head("POST", "/api/v1/test/echo", headers));
        return c;
      };
      // A body trickled after a complete head, on a route that reads it.
      const slowBody = await echoHead({ "content-length": "1000" });
      const bodyTrickle = trickle(slowBody, `{"name":"${"n".repeat(990)}"}`, 50);
      // The same without a declared length: chunks the body limit reads before the route.
      const slowChunks = await echoHead({ "transfer-encoding": "chunked" });
      const chunkTrickle = trickle(slowChunks, "1\r\n{\r\n" + "1\r\n \r\n".repeat(500), 20);
      // A kept-alive connection that goes quiet after one answer.
      const idle = await Deno.connect({ port });
      await send(idle, head("GET", "/health"));

      await eventually(() => openFds() >= before + 2 * 200, FD_WAIT_MS);
      for (let i = 0; i < 5; i++) equal(await health(), 200);

      const closed = await Promise.all(
        [...slow, ...silent].map((c) => untilClosed(c, since, 1000 + SLACK_MS)),
      );
      for (const t of trickles) t.stop();
      for (const c of closed) ok(c.afterMs >= 1000, `closed after ${c.afterMs} ms`);
      const idled = await untilClosed(idle, since, 1000 + SLACK_MS);
      ok(idled.text.startsWith("HTTP/1.1 200"), idled.text);
      const timedOut = await untilClosed(slowBody, since, 1000 + SLACK_MS);
      bodyTrickle.stop();
      ok(timedOut.text.startsWith("HTTP/1.1 408"), timedOut.text);
      const envelope = JSON.parse(timedOut.text.slice(timedOut.text.indexOf("\r\n\r\n") + 4));
      deepEqual([envelope.error.code, envelope.error.details], ["request.body_timeout", {
        timeout_seconds: 1,
      }]);
      const chunksTimedOut = await untilClosed(slowChunks, since, 1000 + SLACK_MS);
      chunkTrickle.stop();
      ok(chunksTimedOut.text.startsWith("HTTP/1.1 408"), chunksTimedOut.text);
      ok(chunksTimedOut.text.includes('"request.body_timeout"'), chunksTimedOut.text);

      equal(await health(), 200);
      const echoed = await call(s, "POST", "/api/v1/test/echo", { "SVC-API-Key": key }, {
        name: "in time",
      });
      deepEqual([echoed.status, echoed.body.data], [201, { name: "in time" }]);
      const streamed = await s.fetch("/api/v1/test/echo", {
        method: "POST",
        headers: { "SVC-API-Key": key, "content-type": "application/json" },
        body: new Blob([JSON.stringify({ name: "chunked" })]).stream(),
      });
      deepEqual([streamed.status, (await streamed.json()).data], [201, { name: "chunked" }]);
      await eventually(() => openFds() <= before + 4, FD_WAIT_MS);
    } finally {
      client.close();
      await s.close();
    }
  },
);

forEachExecWorld(
  "issue 22 finding 3: an event stream of a running execution and an endpoint serve outlive the idle timeout",
  async (w) => {
    const port = Number(new URL(w.s.url).port);
    // A stream that stays silent longer than the idle timeout: no heartbeat keeps it busy.
    const running = await runningExecution(w);

    // A published endpoint whose run holds (the scripted executor) until the test lets it go.
    const ctx = { actor: w.fx.users.author.principal, workspaceId: w.fx.workspace.id };
    const pipelineId = await releasedPipeline(w.s.runtime, ctx, "api/slow", {
      nodes: [dql("read", { source: "tempdb", sql: "SELECT 1 AS one" })],
    });
    const author = await sessionHeaders(w.s.runtime, w.fx.users.author);
    const published = await call(w.s, "POST", "/api/v1/endpoints", author, {
      path_pattern: "/slow",
      pipeline_id: pipelineId,
      timeout_seconds: 60,
    });
    equal(published.status, 201, JSON.stringify(published.body));
    const key = await userKey(w.s.runtime, w.fx.users.author, w.fx.workspace.id, ["execute"]);
    const runs = w.executor.requests.length;
    const served = w.s.fetch("/api/x/slow", { headers: { "SVC-API-Key": key } });
    await eventually(() => w.executor.requests.length > runs);
    const serveId = w.executor.requests[runs].executionId;

    // Both are under way; an idle connection opened now is closed by the idle sweep, so the
    // idle timeout has passed for them too.
    const idle = await Deno.connect({ port });
    await send(idle, head("GET", "/health"));
    const since = performance.now();
    const idled = await untilClosed(idle, since, 1000 + SLACK_MS);
    ok(idled.text.startsWith("HTTP/1.1 200"), idled.text);

    w.executor.release(serveId);
    const answer = await served;
    equal(answer.status, 200, await answer.clone().text());
    equal((await answer.json()).execution_id, serveId);
    w.executor.release(running.id);
    const events = (await running.stream.rest()).map((f) => f.event);
    // The stream ran to its end, not into a closed connection.
    deepEqual(events.slice(-2), ["pipeline_completed", "data_ready"], events.join());
  },
  {
    env: {
      ...TIMEOUTS,
      SERVICE_SSE_HEARTBEAT_INTERVAL_SECONDS: "60",
      SERVICE_ENDPOINTS_TIMEOUT_MAX_SECONDS: "60",
    },
  },
);
