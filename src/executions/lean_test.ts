/**
 * The lean path's own cases (lean.ts; its equivalence with the general path is
 * src/endpoints/serve_paths_test.ts): which runs take it, and a lean run reaped by another
 * instance mid-read ends on the stored ending, as a general run does.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { parseBody } from "../pipelines/mod.ts";
import { forEachWorld, postgresSource } from "../../tests/support/executor_world.ts";
import { dql, staged } from "../../tests/support/pipeline_body.ts";
import { eventually } from "../../tests/support/wait.ts";
import { checkEventOrder } from "./event_order.ts";
import { pipeline, RecordingSink, request } from "./executor_fixtures.ts";
import { runsLean } from "./lean.ts";
import { stalledInstance } from "./test_fixtures.ts";

const LOCK = 4_711_012;

Deno.test("only a root's one read delivering to the caller, into a queueing sink, runs lean", () => {
  const body = (nodes: unknown[]) =>
    parseBody({ name: "team/p", schema_version: 1, nodes }, crypto.randomUUID());
  const queueing = Object.assign(new RecordingSink(), { pipelined: true });
  const read = dql("r", { source: "lite", sql: "SELECT 1" });
  ok(runsLean(body([read]), queueing, false));
  ok(runsLean(body([{ ...read, output: { target: "caller" } }]), queueing, false));
  // A child delivering to its parent, or a sink that stores frame by frame: the general path.
  ok(!runsLean(body([read]), queueing, true));
  ok(!runsLean(body([read]), new RecordingSink(), false));
  // Staging, a second node, a read of tempdb, a statement, a child pipeline: the general path.
  ok(!runsLean(body([staged("s", "lite", "SELECT 1")]), queueing, false));
  ok(
    !runsLean(
      body([
        staged("s", "lite", "SELECT 1"),
        dql("r", { source: "tempdb", sql: "SELECT 1", depends_on: ["s"] }),
      ]),
      queueing,
      false,
    ),
  );
  ok(!runsLean(body([dql("r", { source: "tempdb", sql: "SELECT 1" })]), queueing, false));
  ok(
    !runsLean(
      body([{ id: "d", type: "DML", source: "lite", sql: "DELETE FROM t" }]),
      queueing,
      false,
    ),
  );
  ok(
    !runsLean(
      body([{ id: "c", type: "PIPELINE", pipeline: { id: crypto.randomUUID() } }]),
      queueing,
      false,
    ),
  );
});

forEachWorld(
  "a lean run reaped by another instance mid-read ends on the stored ending",
  async (w, runs) => {
    const { sql: holder } = await postgresSource(w, "pg");
    const repo = runs.repo;
    const id = await pipeline(w, [
      dql("wait", {
        source: "pg",
        sql: `SELECT 1 AS x FROM (SELECT pg_advisory_xact_lock(${LOCK})) AS l`,
      }),
    ]);
    const { sink, keeper } = await stalledInstance(w, repo);
    const handle = await holder.begin(async (tx) => {
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${LOCK})`);
      const prepared = await w.executor().prepare(request(w, id));
      const handle = prepared.run(sink, { lean: true });
      ok(handle.settled, "the run took the lean path");
      await eventually(async () =>
        (await repo.events(handle.executionId)).some((f) => f.data.state === "executing")
      );
      deepEqual(await keeper("other").reap(), [handle.executionId]);
      return handle;
    });
    const frames = await handle.settled!;
    const record = await handle.done;
    const stored = await repo.get(handle.executionId);
    const storedFrames = await repo.events(handle.executionId);
    checkEventOrder(storedFrames);
    const ending = storedFrames.at(-1)!;
    equal(ending.event, "execution_aborted");
    equal(ending.data.reason, "shutdown");
    // The frames handed back end on the stored ending, once; the record is the stored one.
    deepEqual([frames.at(-1)!.event, frames.at(-1)!.data], [ending.event, ending.data]);
    equal(frames.filter((f) => f.event === "execution_aborted").length, 1);
    ok(!frames.some((f) => f.event === "pipeline_failed" || f.event === "pipeline_completed"));
    ok(!JSON.stringify(frames).includes("internal.unexpected"));
    deepEqual(record, stored?.record);
    equal(stored?.record.status, "ABORTED");
  },
  { services: ["postgres"] },
);
