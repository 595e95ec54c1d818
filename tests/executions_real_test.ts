/**
 * The execute route over the real executor (merged from the executor branch): a pipeline staged
 * and queried in DuckDB, streamed, stored, paged, replayed and cancelled through HTTP.
 */
import { deepEqual, equal } from "node:assert/strict";
import { checkEventOrder } from "../src/executions/event_order.ts";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { call, json, startTestServer } from "./support/harness.ts";
import { frames } from "./support/executions_fixtures.ts";
import { skipUnless } from "./support/services.ts";
import { STORE_KINDS } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";
import { dql, pipelineDrafts } from "./support/pipeline_body.ts";
import { executeOverHttp, readyOverHttp } from "./support/runs.ts";

for (const store of STORE_KINDS) {
  Deno.test({
    name: `[${store}] the real executor runs a tempdb pipeline through execute, results and replay`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      const s = await startTestServer({
        store,
        env: { SERVICE_SSE_DISCONNECT_GRACE_SECONDS: "0" },
      });
      try {
        const fx = await seedRoles(s.runtime);
        const create = pipelineDrafts(s.runtime.db, fx.users.author, fx.workspace.id);
        const id = await create("team/numbers", [
          dql("numbers", {
            source: "tempdb",
            sql: "SELECT i::BIGINT AS n, 'row ' || i AS label FROM range(1, 6) t(i) ORDER BY i",
          }),
        ]);
        const h = await sessionHeaders(s.runtime, fx.users.author, "acme");
        const execute = (pipelineId: string, body: unknown = {}) =>
          executeOverHttp(s, h, pipelineId, body);

        const { executionId, frames: all, ready } = await readyOverHttp(s, h, id);
        equal(ready.total_rows, 5);
        deepEqual(ready.rows[0], ["1", "row 1"]);
        equal(ready.execution_id, executionId);

        const rec = (await call(s, "GET", `/api/v1/executions/${executionId}`, h)).body.data;
        equal(rec.status, "SUCCESS");
        equal(rec.pipeline_version, 1);
        equal(rec.draft_run, true);
        equal(rec.result_row_count, 5);
        const page = await call(s, "GET", `/api/v1/executions/${executionId}/result?offset=3`, h);
        deepEqual(page.body.data.rows, [["4", "row 4"], ["5", "row 5"]]);
        const replay = await call(s, "GET", `/api/v1/executions/${executionId}/events`, h);
        deepEqual(replay.body.data.events, all);

        // An unknown version is refused before the stream starts: an envelope, not a frame.
        const missing = await execute(id, { version: 9 });
        equal(missing.status, 404);
        equal((await json(missing)).error.code, "pipeline.execution.not_found");

        // A long query, cancelled through the route: the stream ends on execution_aborted.
        const slow = await create("team/slow", [
          dql("spin", {
            source: "tempdb",
            sql: "SELECT count(*) AS c FROM range(1000000000000) a",
          }),
        ]);
        const running = await execute(slow);
        const slowId = running.headers.get("SVC-Execution-Id")!;
        const stream = frames(running);
        equal((await stream.next()).event, "execution_started");
        equal((await call(s, "DELETE", `/api/v1/executions/${slowId}`, h)).status, 204);
        const ended = await stream.rest();
        checkEventOrder(ended);
        equal(ended.at(-1)!.event, "execution_aborted");
        equal(ended.at(-1)!.data.reason, "cancelled");

        // A consumer that leaves: with no grace the run stops (DuckDB interrupted) as
        // client_disconnect, and the replay tells the whole story.
        const left = await execute(slow);
        const leftId = left.headers.get("SVC-Execution-Id")!;
        const leaving = frames(left);
        await leaving.next();
        await leaving.close();
        await eventually(async () =>
          (await call(s, "GET", `/api/v1/executions/${leftId}`, h)).body.data.status === "ABORTED"
        );
        const told = (await call(s, "GET", `/api/v1/executions/${leftId}/events`, h)).body.data;
        checkEventOrder(told.events);
        equal(told.events.at(-1).data.reason, "client_disconnect");

        // A node naming a datasource this instance cannot reach fails the run; no result to read.
        const broken = await create("team/broken", [
          dql("read", { source: "crm", sql: "SELECT 1 AS x" }),
        ]);
        const failed = await execute(broken);
        const failedId = failed.headers.get("SVC-Execution-Id")!;
        const failedFrames = await frames(failed).rest();
        checkEventOrder(failedFrames);
        equal(failedFrames.at(-1)!.event, "pipeline_failed");
        const r = await call(s, "GET", `/api/v1/executions/${failedId}/result`, h);
        equal(r.status, 410);
        equal(r.body.error.code, "result.execution_failed");
        const f = (await call(s, "GET", `/api/v1/executions/${failedId}`, h)).body.data;
        equal(f.status, "FAILED");
        equal(f.failed_node_id, "read");
        equal(f.error.code, failedFrames.at(-1)!.data.error.code);
      } finally {
        await s.close();
      }
    },
  });
}
