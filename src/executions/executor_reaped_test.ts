/**
 * One ending per execution (issue 11 item 6). A run whose instance stalls past the stale limit is
 * reaped by another instance's reaper while its node still runs; when the run wakes, its stream
 * and its record carry the stored ending (`execution_aborted`, reason `shutdown`) — never an
 * `internal.unexpected` about a duplicate event id — and the reaped record keeps the per-node
 * stats its events prove. An instance's own reaper never takes its own live runs. A shared store
 * that fails mid-run fails the run with `result.storage_unavailable`.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { MemoryStore } from "../shared/mod.ts";
import { checkEventOrder } from "./event_order.ts";
import { forEachWorld, postgresSource } from "../../tests/support/executor_world.ts";
import { drainStream, pipeline, sqliteSource, start, waitForEvent } from "./executor_fixtures.ts";

import { ResultStore } from "./result_store.ts";
import { DurableSink } from "./sink.ts";
import { assertFailed } from "./stored_run_fixtures.ts";
import { stalledInstance } from "./test_fixtures.ts";
import { dql, staged } from "../../tests/support/pipeline_body.ts";
import { eventually } from "../../tests/support/wait.ts";

const LOCK = 4_711_011;

forEachWorld(
  "a run reaped by another instance mid-node ends on the stored ending, stats kept",
  async (w, runs) => {
    // The test holds the lock the node waits for: the run stays inside its node, as in a stall.
    const { sql: holder } = await postgresSource(w, "pg", {
      setup: "CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2)",
    });
    const repo = runs.repo;
    const id = await pipeline(w, [
      staged("first", "pg", "SELECT a FROM t", { table: "t" }),
      staged("wait", "pg", `SELECT 1 AS x FROM (SELECT pg_advisory_xact_lock(${LOCK})) AS l`, {
        table: "w",
        depends_on: ["first"],
      }),
      dql("never", { source: "tempdb", depends_on: ["wait"], sql: "SELECT 1" }),
    ]);
    const { sink, keeper } = await stalledInstance(w, repo);
    // The lock is the test's until its transaction ends: the run stays inside "wait".
    const handle = await holder.begin(async (tx) => {
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${LOCK})`);
      const handle = await start(w, id, { sink });
      await waitForEvent(
        handle,
        (f) => f.data.node_id === "wait" && f.data.state === "executing",
      );
      // Frames are stored a turn after live readers see them (the group commit); a stall of
      // minutes has long stored them when a reaper looks.
      await eventually(async () =>
        (await repo.events(handle.executionId)).some((f) =>
          f.data.node_id === "wait" && f.data.state === "executing"
        )
      );
      // Its own reaper, late after the stall, knows it is alive; another one reaps it.
      deepEqual(await keeper("stalled").reap(), []);
      deepEqual(await keeper("other").reap(), [handle.executionId]);
      return handle;
    });
    // Back from the stall: the lock is gone, the node finishes and the run emits again.
    {
      const live = await drainStream(handle);
      const stored = await repo.get(handle.executionId);
      ok(stored);
      const frames = await repo.events(handle.executionId);
      checkEventOrder(frames);
      const ending = frames.at(-1)!;
      equal(ending.event, "execution_aborted");
      equal(ending.data.reason, "shutdown");
      // One ending: the live stream closes on the stored terminal frame, the record is stored.
      const liveEnding = live.frames.at(-1)!;
      deepEqual([liveEnding.event, liveEnding.data], [ending.event, ending.data]);
      equal(live.frames.filter((f) => f.event === "execution_aborted").length, 1);
      ok(!live.frames.some((f) => f.event === "pipeline_failed"));
      deepEqual(live.record, stored.record);
      equal(stored.record.status, "ABORTED");
      equal(stored.record.abort_reason, "shutdown");
      ok(!JSON.stringify(live.frames).includes("internal.unexpected"));
      // The stats its events prove, every node named, in body order.
      deepEqual(
        stored.record.node_stats!.map((s) => [s.node_id, s.status, s.rows_out]),
        [["first", "SUCCESS", 2], ["wait", "ABORTED", null], ["never", "ABORTED", null]],
      );
      deepEqual(ending.data.node_stats, stored.record.node_stats);
    }
  },
  { services: ["postgres"] },
);

forEachWorld(
  "a shared store that fails mid-run is result.storage_unavailable, not internal.unexpected",
  async (w, runs) => {
    const shared = new MemoryStore();
    sqliteSource(w, "crm");
    const id = await pipeline(w, [
      staged("stage", "crm", "SELECT id, name FROM people", { table: "p" }),
      dql("out", { source: "tempdb", depends_on: ["stage"], sql: "SELECT * FROM p" }),
    ]);
    // One shared store for the results and the live fan-out, as an instance has.
    const results = new ResultStore(shared, { maxBytes: 1_000_000 });
    const handle = await start(w, id, {
      options: { results },
      sink: new DurableSink(runs.repo, shared, "instance-test"),
    });
    // The shared store goes away while the run is under way.
    await waitForEvent(handle, (f) => f.event === "node_started" && f.data.node_id === "stage");
    await shared.close();
    const run = await runs.finish(handle);
    const error = assertFailed(run, "result.storage_unavailable", "out");
    equal(error.details.execution_id, handle.executionId);
    ok(!JSON.stringify(run.frames).includes("internal.unexpected"));
  },
);
