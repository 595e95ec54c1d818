/**
 * Two instances sharing PostgreSQL and Redis: a run started on one is followed, retried and
 * cancelled through the other.
 */
import { deepEqual, equal } from "node:assert/strict";
import { checkEventOrder } from "../src/executions/event_order.ts";
import { sessionHeaders } from "./support/access_fixtures.ts";
import { call, startTestServer, testSecrets } from "./support/harness.ts";
import { execWorld, frames } from "./support/executions_fixtures.ts";
import { REDIS_URL, skipUnless } from "./support/services.ts";
import { executeOverHttp } from "./support/runs.ts";

Deno.test({
  name: "[postgres+redis] another instance follows, retries and cancels a run it does not hold",
  ignore: skipUnless("postgres", "redis"),
  async fn() {
    const env = { ...testSecrets(), SERVICE_SHARED_STORE_URL: REDIS_URL };
    const a = await execWorld({ store: "postgres", env });
    const b = await startTestServer({
      store: "postgres",
      storeUrl: () => a.s.runtime.config.store.url,
      env,
    });
    try {
      const key = { "Idempotency-Key": crypto.randomUUID() };
      const res = await a.execute("author", { parameters: { n: 1 } }, key);
      const id = res.headers.get("SVC-Execution-Id")!;
      const onA = frames(res);
      await onA.next();

      const h = await sessionHeaders(b.runtime, a.fx.users.author, "acme");
      const follower = await b.fetch(`/api/v1/executions/${id}/events`, {
        headers: { ...h, accept: "text/event-stream" },
      });
      const onB = frames(follower);
      equal((await onB.next()).event, "execution_started");
      // The same key and body on the other instance gets the original run, not a second one.
      const retry = await executeOverHttp(b, { ...h, ...key }, a.pipelineId, {
        parameters: { n: 1 },
      });
      equal(retry.status, 200);
      equal(retry.headers.get("SVC-Execution-Id"), id);
      deepEqual(b.runtime.executions.runningHere, []);

      // Cancelled from B; A runs it, so A stops it and every stream ends on the same frames.
      equal((await call(b, "DELETE", `/api/v1/executions/${id}`, h)).status, 204);
      const all = await onA.rest();
      checkEventOrder(all);
      equal(all.at(-1)!.event, "execution_aborted");
      equal(all.at(-1)!.data.reason, "cancelled");
      deepEqual(await onB.rest(), all);
      deepEqual(await frames(retry).rest(), all);
      const rec = await call(b, "GET", `/api/v1/executions/${id}`, h);
      equal(rec.body.data.status, "ABORTED");
      equal(rec.body.data.abort_reason, "cancelled");
    } finally {
      await b.close();
      await a.s.close();
    }
  },
});
