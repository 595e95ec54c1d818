import { IdempotencyCache } from "../src/executions/idempotency.ts";
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { EventSource } from "eventsource";
import { checkEventOrder, type EventFrame } from "../src/executions/event_order.ts";
import type { StartedStream } from "../src/executions/service.ts";
import { call, type Json, json } from "./support/harness.ts";
import {
  execWorld,
  forEachExecWorld,
  frames,
  runningExecution,
} from "./support/executions_fixtures.ts";
import { skipUnless } from "./support/services.ts";
import { forEachStoreKind, STORE_KINDS } from "./support/stores.ts";
import { readSse } from "./support/sse_client.ts";
import { eventually } from "./support/wait.ts";

for (const store of STORE_KINDS) {
  Deno.test({
    name: `[${store}] execute streams a run; the record, result pages, CSV and replay follow`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      const w = await execWorld({ store });
      try {
        const res = await w.execute("author", { parameters: { region: "emea" } }, {
          "SVC-Result-TTL-Seconds": "5",
          "SVC-Result-Page-Rows": "2",
        });
        equal(res.status, 200);
        match(res.headers.get("content-type")!, /^text\/event-stream/);
        const id = res.headers.get("SVC-Execution-Id")!;
        const stream = frames(res);
        equal((await stream.next()).event, "execution_started");
        w.executor.release(id);
        const all = await stream.rest();
        const byType = checkEventOrder(all, { expectDataReady: true });
        const ready = byType.get("data_ready")![0].data;
        deepEqual(ready.rows, [["1", "a", 1.5], ["2", "b,c", 2.5]]);
        equal(ready.has_more, true);
        // TTL clamped up to the 30 s minimum; the inline page honoured at 2 rows.
        equal(w.executor.requests[0].resultTtlSeconds, 30);
        equal(w.executor.requests[0].pageRows, 2);

        const h = await w.headers("author");
        const rec = await call(w.s, "GET", `/api/v1/executions/${id}`, h);
        equal(rec.status, 200);
        const r = rec.body.data;
        equal(r.status, "SUCCESS");
        equal(r.root_execution_id, id);
        equal(r.parent_execution_id, null);
        deepEqual(r.parameters, { region: "emea" });
        equal(r.result_url, `${w.s.url}/api/v1/executions/${id}/result`);
        ok(r.result_expires_at);

        const page = await call(w.s, "GET", `/api/v1/executions/${id}/result?offset=1&limit=1`, h);
        equal(page.status, 200);
        deepEqual(page.body.data.rows, [["2", "b,c", 2.5]]);
        equal(page.body.data.total_rows, 3);
        equal(page.body.data.has_more, true);
        equal(page.body.data.schema[0].type, "bigint");
        const csv = await w.s.fetch(`/api/v1/executions/${id}/result?format=csv`, { headers: h });
        equal(await csv.text(), 'id,label,amount\r\n1,a,1.5\r\n2,"b,c",2.5\r\n3,"q""d",3.5\r\n');
        // The browser's download: the same rows, named after the run; another member's is not found.
        const download = await w.s.fetch(`/runs/${id}/result.csv`, { headers: h });
        equal(download.status, 200);
        match(download.headers.get("content-disposition")!, /^attachment; filename=".+\.csv"$/);
        equal((await download.text()).split("\r\n")[3], '3,"q""d",3.5');
        const theirs = await w.s.fetch(`/runs/${id}/result.csv`, {
          headers: { ...await w.headers("viewer"), accept: "application/json" },
        });
        equal(theirs.status, 404);
        equal((await theirs.json()).error.code, "result.execution_not_found");
        const arrow = await call(w.s, "GET", `/api/v1/executions/${id}/result?format=arrow`, h);
        equal(arrow.status, 400);
        equal(arrow.body.error.code, "result.format_unsupported");
        deepEqual(arrow.body.error.details.supported, ["json", "csv"]);

        // Replay, both forms: the original frames, same ids.
        const asJson = await call(w.s, "GET", `/api/v1/executions/${id}/events`, h);
        deepEqual(asJson.body.data.events, all);
        const sse = await w.s.fetch(`/api/v1/executions/${id}/events`, {
          headers: { ...h, accept: "text/event-stream" },
        });
        deepEqual(await frames(sse).rest(), all);

        // Past the result TTL the record drops its link and the cursor answers 410 expired.
        w.clock.shiftMs = 31_000;
        const later = await call(w.s, "GET", `/api/v1/executions/${id}`, h);
        equal(later.body.data.result_url, undefined);
        equal(later.body.data.result_expires_at, undefined);
        const gone = await call(w.s, "GET", `/api/v1/executions/${id}/result`, h);
        equal(gone.status, 410);
        equal(gone.body.error.code, "result.expired");
        // Past the replay window (one hour after completion) replay is 410 too.
        w.clock.shiftMs = 3_600_000 + 1000;
        const old = await call(w.s, "GET", `/api/v1/executions/${id}/events`, h);
        equal(old.status, 410);
        equal(old.body.error.code, "result.expired");
      } finally {
        await w.s.close();
      }
    },
  });

  Deno.test({
    name: `[${store}] history: filters, visibility, other workspaces and refusals`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      const w = await execWorld({ store });
      try {
        const run = async (role: "author" | "viewer") => {
          const res = await w.execute(role);
          const id = res.headers.get("SVC-Execution-Id")!;
          w.executor.release(id);
          checkEventOrder(await frames(res).rest());
          return id;
        };
        const mine = await run("author");
        const theirs = await run("viewer");
        const list = async (role: "author" | "super_admin", q = "") =>
          await call(w.s, "GET", `/api/v1/executions${q}`, await w.headers(role));
        const ids = (b: { body: Json }) => b.body.data.items.map((i: Json) => i.execution_id);
        deepEqual(ids(await list("author")), [mine]);
        deepEqual(ids(await list("super_admin")), [theirs, mine]);
        deepEqual(ids(await list("super_admin", `?status=RUNNING`)), []);
        deepEqual(ids(await list("super_admin", `?pipeline_id=${w.pipelineId}&limit=1`)), [theirs]);
        const started = (await list("super_admin")).body.data.items[1].started_at;
        deepEqual(ids(await list("super_admin", `?started_after=${started}`)), [theirs]);
        equal((await list("super_admin")).body.data.items[0].result_url, undefined);
        for (const bad of ["status=DONE", "started_after=yesterday", "pipeline_id=nope"]) {
          const r = await list("author", `?${bad}`);
          equal(r.status, 400, bad);
          equal(r.body.error.code, "pipeline.execution.invalid_parameter_type");
        }
        // Someone else's execution is invisible; a super admin reads any.
        const h = await w.headers("author");
        for (const path of ["", "/events", "/result"]) {
          const r = await call(w.s, "GET", `/api/v1/executions/${theirs}${path}`, h);
          equal(r.status, 404, path);
          equal(r.body.error.code, "result.execution_not_found");
        }
        const admin = await w.headers("super_admin");
        equal((await call(w.s, "GET", `/api/v1/executions/${theirs}/result`, admin)).status, 200);
        // Another workspace does not hold it: 404 even for its triggering user.
        await w.s.runtime.workspaces.create(w.fx.users.super_admin.principal, {
          name: "other",
          display_name: "Other",
        });
        await w.s.runtime.workspaces.addMember(w.fx.users.super_admin.principal, "other", {
          email: w.fx.users.author.email,
          author: true,
          promoter: false,
          admin: false,
        });
        w.s.runtime.directory.forgetWorkspaces();
        const elsewhere = { ...h, "SVC-Workspace": "other" };
        equal((await call(w.s, "GET", `/api/v1/executions/${mine}`, elsewhere)).status, 404);
        equal((await call(w.s, "DELETE", `/api/v1/executions/${mine}`, elsewhere)).status, 404);
        const unknown = await call(w.s, "GET", `/api/v1/executions/${crypto.randomUUID()}`, h);
        equal(unknown.body.error.code, "result.execution_not_found");
        // A terminal execution cannot be cancelled.
        const again = await call(w.s, "DELETE", `/api/v1/executions/${mine}`, h);
        equal(again.status, 409);
        equal(again.body.error.code, "pipeline.execution.not_running");
      } finally {
        await w.s.close();
      }
    },
  });
}

forEachExecWorld(
  "execute without Accept: text/event-stream is 406 with the envelope",
  async (w) => {
    const res = await w.execute("author", {}, { accept: "application/json" });
    equal(res.status, 406);
    equal((await json(res)).error.code, "request.not_acceptable");
    equal(w.executor.requests.length, 0);
    const missing = await w.s.fetch(`/api/v1/pipelines/${crypto.randomUUID()}/execute`, {
      method: "POST",
      headers: { accept: "text/event-stream", ...await w.headers("author") },
    });
    equal(missing.status, 404);
    equal((await json(missing)).error.code, "pipeline.not_found");
  },
);

forEachExecWorld(
  "Idempotency-Key: the same request gets the original run back, another body 409",
  async (w) => {
    const key = { "Idempotency-Key": "k-1" };
    const first = await w.execute("author", { parameters: { a: 1 } }, key);
    const id = first.headers.get("SVC-Execution-Id")!;
    const firstStream = frames(first);
    await firstStream.next();
    // The retry follows the same run live, then both end on the same frames.
    const retry = await w.execute("author", { parameters: { a: 1 } }, key);
    equal(retry.headers.get("SVC-Execution-Id"), id);
    const retryStream = frames(retry);
    await retryStream.next();
    w.executor.release(id);
    const a = await firstStream.rest();
    deepEqual(await retryStream.rest(), a);
    checkEventOrder(a, { expectDataReady: true });
    equal(w.executor.requests.length, 1);
    // After the end, a retry replays the stored stream.
    const late = await w.execute("author", { parameters: { a: 1 } }, key);
    deepEqual(await frames(late).rest(), a);
    const other = await w.execute("author", { parameters: { a: 2 } }, key);
    equal(other.status, 409);
    equal((await json(other)).error.code, "idempotency.key_reused_for_different_request");
  },
);

forEachExecWorld(
  "Idempotency-Key: a claim whose instance died before recording its run is taken over by a retry",
  async (w) => {
    // What a replica SIGKILLed between claiming the key and storing the run leaves behind.
    const cache = new IdempotencyCache(w.s.runtime.shared, 3600);
    const request = { pipeline_id: w.pipelineId, version: null, parameters: { a: 1 } };
    await cache.claim(w.fx.users.author.id, "k-dead", request, crypto.randomUUID(), Date.now());
    // Past the reaper's window, no record came: the retry runs as a first request.
    w.clock.shiftMs = 10 * 60_000;
    const retry = await w.execute("author", { parameters: { a: 1 } }, {
      "Idempotency-Key": "k-dead",
    });
    equal(retry.status, 200);
    const id = retry.headers.get("SVC-Execution-Id")!;
    const stream = frames(retry);
    await stream.next();
    w.executor.release(id);
    equal((await stream.rest()).at(-1)!.event, "data_ready");
    equal(w.executor.requests.length, 1);
    // The key now names the new run.
    const again = await w.execute("author", { parameters: { a: 1 } }, {
      "Idempotency-Key": "k-dead",
    });
    equal(again.headers.get("SVC-Execution-Id"), id);
    await again.body?.cancel();
  },
);

forEachExecWorld(
  "limits: concurrent executions 429 with Retry-After, then streams per user",
  async (w) => {
    const first = await w.execute("author");
    const id = first.headers.get("SVC-Execution-Id")!;
    const stream = frames(first);
    await stream.next();
    const second = await w.execute("author");
    equal(second.status, 429);
    equal(second.headers.get("retry-after"), "5");
    equal((await json(second)).error.code, "pipeline.execution.concurrency_limit");
    // Two more at the same instant: both refused, never one slipping past the check.
    const racing = await Promise.all([w.execute("author"), w.execute("author")]);
    deepEqual(racing.map((r) => r.status), [429, 429]);
    for (const r of racing) await r.body?.cancel();
    // Another user is not limited by this one's runs.
    const viewer = await w.execute("viewer");
    const viewerId = viewer.headers.get("SVC-Execution-Id")!;
    w.executor.release(viewerId);
    checkEventOrder(await frames(viewer).rest());
    // A replay stream takes the author's second slot; a third stream is refused.
    const h = await w.headers("author");
    const follower = await w.s.fetch(`/api/v1/executions/${id}/events`, {
      headers: { ...h, accept: "text/event-stream" },
    });
    equal(follower.status, 200);
    const third = await w.execute("author");
    equal(third.status, 429);
    equal((await json(third)).error.code, "pipeline.execution.stream_limit");
    // Cancel: 204 now, the terminal frame on the stream.
    equal((await call(w.s, "DELETE", `/api/v1/executions/${id}`, h)).status, 204);
    const all = await stream.rest();
    checkEventOrder(all);
    equal(all.at(-1)!.data.reason, "cancelled");
    deepEqual(await frames(follower).rest(), all);
    const res = await call(w.s, "GET", `/api/v1/executions/${id}/result`, h);
    equal(res.status, 410);
    equal(res.body.error.code, "result.execution_failed");
  },
  {
    env: {
      SERVICE_EXECUTOR_MAX_CONCURRENT_EXECUTIONS_PER_USER: "1",
      SERVICE_SSE_MAX_STREAMS_PER_USER: "2",
    },
  },
);

forEachExecWorld(
  "a running result is 409 incomplete; the viewer cannot cancel the author's run",
  async (w) => {
    const { id, stream } = await runningExecution(w);
    const h = await w.headers("author");
    const r = await call(w.s, "GET", `/api/v1/executions/${id}/result`, h);
    equal(r.status, 409);
    equal(r.body.error.code, "result.execution_incomplete");
    const v = await call(w.s, "DELETE", `/api/v1/executions/${id}`, await w.headers("viewer"));
    equal(v.status, 404);
    // A super admin may cancel any execution.
    const admin = await w.headers("super_admin");
    equal((await call(w.s, "DELETE", `/api/v1/executions/${id}`, admin)).status, 204);
    checkEventOrder(await stream.rest());
  },
);

forEachExecWorld(
  "a consumer that disconnects cancels the run after the grace and reads the replay",
  async (w) => {
    const { id, stream } = await runningExecution(w);
    await stream.close();
    const h = await w.headers("author");
    await eventually(async () =>
      (await call(w.s, "GET", `/api/v1/executions/${id}`, h)).body.data.status === "ABORTED"
    );
    const rec = (await call(w.s, "GET", `/api/v1/executions/${id}`, h)).body.data;
    equal(rec.abort_reason, "client_disconnect");
    const replay = (await call(w.s, "GET", `/api/v1/executions/${id}/events`, h)).body.data.events;
    checkEventOrder(replay);
    equal(replay.at(-1).data.reason, "client_disconnect");
  },
  { env: { SERVICE_SSE_DISCONNECT_GRACE_SECONDS: "0" } },
);

forEachExecWorld(
  "shutdown aborts this instance's running executions with reason shutdown",
  async (w) => {
    const { id, stream } = await runningExecution(w);
    // The very step runtime.close() takes first.
    await w.s.runtime.executions.close(5000);
    const all = await stream.rest();
    checkEventOrder(all);
    equal(all.at(-1)!.data.reason, "shutdown");
    equal((await w.s.runtime.executions.repo.get(id))?.record.abort_reason, "shutdown");
    // Draining: no new run starts that the shutdown would have to end again.
    const late = await w.execute("author");
    equal(late.status, 503);
    equal((await json(late)).error.code, "service.unavailable");
  },
);

forEachStoreKind(
  "a server shutdown ends every open execute and replay stream with execution_aborted shutdown",
  async (store) => {
    // A grace far longer than the deadline below: streams that waited for the listener's grace
    // (the order before issue 11) would miss it; ending the runs first ends them at once.
    const w = await execWorld({ store, graceSeconds: 120 });
    let closing: Promise<void> | undefined;
    try {
      const runs = [await w.execute("author"), await w.execute("ws_admin")];
      const streams = runs.map(frames);
      for (const s of streams) await s.next();
      const id = runs[0].headers.get("SVC-Execution-Id")!;
      const replay = await w.s.fetch(`/api/v1/executions/${id}/events`, {
        headers: { accept: "text/event-stream", ...await w.headers("author") },
      });
      const follower = frames(replay);
      await follower.next();
      closing = w.s.close();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const ended = await Promise.race([
        Promise.all([...streams, follower].map((s) => s.rest())),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("streams did not end in time")), 20_000);
        }),
      ]).finally(() => clearTimeout(timer));
      for (const all of ended) {
        checkEventOrder(all);
        equal(all.at(-1)!.event, "execution_aborted");
        equal(all.at(-1)!.data.reason, "shutdown");
      }
      // The follower replays the very frames the run streamed, its ending included.
      deepEqual(ended[2], ended[0]);
    } finally {
      await (closing ?? w.s.close());
    }
  },
);

forEachExecWorld(
  "replay without an Accept preference, or with */*, streams; an unsupported type is 406",
  async (w) => {
    const res = await w.execute("author");
    const id = res.headers.get("SVC-Execution-Id")!;
    w.executor.release(id);
    await frames(res).rest();
    const h = await w.headers("author");
    for (const accept of [undefined, "*/*", "text/*", "text/html, */*;q=0.1"]) {
      const replay = await w.s.fetch(`/api/v1/executions/${id}/events`, {
        headers: accept === undefined ? h : { ...h, accept },
      });
      equal(replay.status, 200, String(accept));
      match(replay.headers.get("content-type")!, /^text\/event-stream/);
      const all = await frames(replay).rest();
      checkEventOrder(all, { expectDataReady: true });
    }
    const refused = await w.s.fetch(`/api/v1/executions/${id}/events`, {
      headers: { ...h, accept: "text/html" },
    });
    equal(refused.status, 406);
    equal((await json(refused)).error.code, "request.not_acceptable");
  },
);

forEachExecWorld("the eventsource package consumes an execute stream", async (w) => {
  const auth = await w.headers("author");
  const received: EventFrame[] = [];
  const ended = Promise.withResolvers<void>();
  const es = new EventSource(`${w.s.url}/api/v1/pipelines/${w.pipelineId}/execute`, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        method: "POST",
        headers: { ...init?.headers, ...auth, "content-type": "application/json" },
        body: "{}",
      }),
  });
  const types = [
    "execution_started",
    "node_started",
    "node_progress",
    "node_completed",
    "pipeline_completed",
    "data_ready",
  ];
  for (const type of types) {
    es.addEventListener(type, (e) => {
      const frame = { id: Number(e.lastEventId), event: type, data: JSON.parse(e.data) };
      received.push(frame);
      if (type === "execution_started") w.executor.release(frame.data.execution_id);
      // The stream is over after data_ready; closing stops the client's reconnect.
      if (type === "data_ready") {
        es.close();
        ended.resolve();
      }
    });
  }
  es.onerror = (e) => {
    es.close();
    ended.reject(new Error(`eventsource error: ${e.message ?? e.type}`));
  };
  await ended.promise;
  checkEventOrder(received, { expectDataReady: true });
});

forEachExecWorld("an accepted execution is readable the moment its id is known", async (w) => {
  // The stream's SVC-Execution-Id header goes out when execute() answers; a client (the run
  // form's live view) may read the record at once, before any frame.
  const started = await w.s.runtime.executions.execute({
    caller: { userId: w.fx.users.author.id, isSuperAdmin: false },
    workspaceId: w.fx.workspace.id,
    pipelineId: w.pipelineId,
    parameters: {},
    correlationId: crypto.randomUUID(),
    triggeredVia: "REST",
  });
  const stored = await w.s.runtime.executions.repo.get(started.executionId);
  equal(stored?.record.status, "RUNNING");
  w.executor.release(started.executionId);
  for await (const _ of started.frames);
  await started.release();
});

forEachExecWorld("racing executes under a limit of one: exactly one runs", async (w) => {
  // Straight at the service, all at once: nothing before the limit check serialises them.
  const caller = { userId: w.fx.users.author.id, isSuperAdmin: false };
  const input = {
    caller,
    workspaceId: w.fx.workspace.id,
    pipelineId: w.pipelineId,
    parameters: {},
    correlationId: crypto.randomUUID(),
    triggeredVia: "REST" as const,
  };
  const outcomes = await Promise.allSettled(
    [1, 2, 3].map(() => w.s.runtime.executions.execute(input)),
  );
  const won = outcomes.filter((o) => o.status === "fulfilled");
  equal(won.length, 1);
  for (const o of outcomes) {
    if (o.status === "rejected") equal(o.reason.code, "pipeline.execution.concurrency_limit");
  }
  const started = (won[0] as PromiseFulfilledResult<StartedStream>).value;
  w.executor.release(started.executionId);
  const all: EventFrame[] = [];
  for await (const f of started.frames) all.push(f);
  await started.release();
  checkEventOrder(all, { expectDataReady: true });
}, { env: { SERVICE_EXECUTOR_MAX_CONCURRENT_EXECUTIONS_PER_USER: "1" } });

forEachExecWorld(
  "a quiet execute stream carries a heartbeat comment per heartbeat interval",
  async (w) => {
    const res = await w.execute("author");
    const id = res.headers.get("SVC-Execution-Id")!;
    const items: string[] = [];
    for await (const item of readSse(res.body!)) {
      items.push("comment" in item ? `: ${item.comment}` : item.frame.event);
      // The run holds at its node: the next thing on the wire can only be a heartbeat.
      if ("comment" in item) {
        w.executor.release(id);
      }
    }
    equal(items.indexOf(": heartbeat") > items.indexOf("node_progress"), true);
    equal(items.at(-1), "data_ready");
  },
);
