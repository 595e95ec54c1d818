import { deepEqual, equal, ok } from "node:assert/strict";
import { queryAudit } from "../audit/mod.ts";
import { type Db, migrate } from "../store/mod.ts";
import { skipUnless } from "../../tests/support/services.ts";
import { freshStore, storeTestWith } from "../../tests/support/stores.ts";
import { checkEventOrder } from "./event_order.ts";
import { reapedStats } from "./reaper.ts";
import { housekeepingWorld, runningRecord, succeeded, successFrames } from "./test_fixtures.ts";

const MINUTE = 60_000;

const world = (db: Db) => housekeepingWorld(db, { heartbeatMs: MINUTE });
const reaperTest = storeTestWith(world);

reaperTest(
  "the reaper aborts runs of a dead instance, as the system actor, and only those",
  async (w, db) => {
    const dead = runningRecord(w.ids);
    const alive = runningRecord(w.ids);
    await w.sink("dead").started(dead);
    await w.sink("alive").started(alive);
    for (const f of successFrames(dead).slice(0, 4)) {
      await w.sink("dead").event(
        dead.execution_id,
        f,
      );
    }

    // Ten minutes on, only the live instance has beaten.
    w.clock.now += 10 * MINUTE;
    await w.keeper("alive").heartbeat();
    deepEqual(await w.keeper("alive").reap(), [dead.execution_id]);

    const stored = await w.repo.get(dead.execution_id);
    equal(stored?.record.status, "ABORTED");
    equal(stored?.record.abort_reason, "shutdown");
    equal(stored?.abortedBy, w.systemActor.id);
    ok(stored?.record.completed_at);
    equal((await w.repo.get(alive.execution_id))?.record.status, "RUNNING");
    // The stored stream now ends on a proper terminal sequence, so its replay is well-formed.
    const frames = await w.repo.events(dead.execution_id);
    checkEventOrder(frames);
    equal(frames.at(-1)?.event, "execution_aborted");
    const audit = await queryAudit(db, { event: "execution.reaped", offset: 0, limit: 10 });
    equal(audit.items.length, 1);
    equal(audit.items[0].user_id, w.systemActor.id);
    equal(audit.items[0].details.execution_id, dead.execution_id);
    // A second round finds nothing; the dead run's late finish cannot overwrite the verdict.
    deepEqual(await w.keeper("alive").reap(), []);
    equal(await w.repo.finish(succeeded(dead)), false);
    await w.shared.close();
  },
);

reaperTest(
  "an instance's own reaper never takes its runs; a reaped record keeps its events' node stats",
  async (w) => {
    const run = runningRecord(w.ids);
    await w.sink("stalled").started(run);
    // Node "a" started and ran (3 rows so far), as far as the stored events tell.
    for (const f of successFrames(run).slice(0, 3)) {
      await w.sink("stalled").event(run.execution_id, f);
    }
    w.clock.now += 10 * MINUTE;
    // Late after a stall its heartbeat is stale, but the instance running the reaper is alive.
    deepEqual(await w.keeper("stalled").reap(), []);
    equal((await w.repo.get(run.execution_id))?.record.status, "RUNNING");
    deepEqual(await w.keeper("other").reap(), [run.execution_id]);
    const stored = (await w.repo.get(run.execution_id))!.record;
    deepEqual(stored.node_stats, [
      { node_id: "a", duration_ms: null, rows_out: null, bytes_out: null, status: "ABORTED" },
    ]);
    const ending = (await w.repo.events(run.execution_id)).at(-1)!;
    deepEqual(ending.data.node_stats, stored.node_stats);
    await w.shared.close();
  },
);

Deno.test("reapedStats: body order, what the events prove, the rest ABORTED", () => {
  const at = "2026-01-01T00:00:00.000Z";
  deepEqual(
    reapedStats(["calc", "read", "fail", "wait", "never"], [
      { id: 1, event: "node_started", data: { node_id: "calc", started_at: at } },
      { id: 2, event: "node_completed", data: { node_id: "calc", duration_ms: 1, rows_out: null } },
      { id: 3, event: "node_completed", data: { node_id: "read", duration_ms: 9, rows_out: 4 } },
      {
        id: 4,
        event: "node_failed",
        data: { node_id: "fail", duration_ms: 2, error: { code: "x.y" } },
      },
      { id: 5, event: "node_progress", data: { node_id: "wait", rows_written: 7 } },
    ]),
    [
      { node_id: "calc", duration_ms: 1, rows_out: null, bytes_out: null, status: "SUCCESS" },
      { node_id: "read", duration_ms: 9, rows_out: 4, bytes_out: null, status: "SUCCESS" },
      {
        node_id: "fail",
        duration_ms: 2,
        rows_out: null,
        bytes_out: null,
        status: "FAILED",
        error_code: "x.y",
      },
      { node_id: "wait", duration_ms: null, rows_out: 7, bytes_out: null, status: "ABORTED" },
      { node_id: "never", duration_ms: null, rows_out: null, bytes_out: null, status: "ABORTED" },
    ],
  );
});

reaperTest(
  "retention deletes durable events past the period, as the system actor",
  async (w, db) => {
    const old = runningRecord(w.ids);
    await w.sink("i").started(old);
    for (const f of successFrames(old)) await w.sink("i").event(old.execution_id, f);
    await w.sink("i").finished(succeeded(old));
    w.clock.now += 6 * 24 * 60 * MINUTE;
    const recent = runningRecord(w.ids);
    await w.sink("i").started(recent);
    for (const f of successFrames(recent)) await w.sink("i").event(recent.execution_id, f);

    equal(await w.keeper("i").sweep(), 0);
    w.clock.now += 2 * 24 * 60 * MINUTE;
    equal(await w.keeper("i").sweep(), successFrames(old).length);
    deepEqual(await w.repo.events(old.execution_id), []);
    equal((await w.repo.events(recent.execution_id)).length, successFrames(recent).length);
    // The record itself stays: history outlives the events.
    equal((await w.repo.get(old.execution_id))?.record.status, "SUCCESS");
    const audit = await queryAudit(db, { event: "execution.events_swept", offset: 0, limit: 10 });
    equal(audit.items.length, 1);
    equal(audit.items[0].user_id, w.systemActor.id);
    equal(audit.items[0].details.deleted, successFrames(old).length);
    await w.shared.close();
  },
);

Deno.test({
  name: "[postgres] a heartbeat skips a run another transaction holds instead of waiting on it",
  ignore: skipUnless("postgres"),
  async fn() {
    const store = await freshStore("postgres");
    try {
      const db = await store.open();
      await migrate(db);
      const w = await world(db);
      const { repo } = w;
      const [held, free] = [runningRecord(w.ids), runningRecord(w.ids)];
      for (const run of [held, free]) await w.sink("i1").started(run);
      const ids = [held.execution_id, free.execution_id];
      const beat = new Date(w.clock.now + MINUTE).toISOString();
      // A batch of this instance's group commit holding one run's row while the heartbeat runs:
      // a heartbeat that waited for it could close a lock cycle with the batch.
      let beaten: string | undefined;
      await db.transaction(async (tx) => {
        await tx.query("SELECT id FROM executions WHERE id = $1 FOR UPDATE", [held.execution_id]);
        let timer: ReturnType<typeof setTimeout> | undefined;
        beaten = await Promise.race([
          repo.heartbeat("i1", beat, ids).then(() => "done"),
          new Promise<string>((r) => timer = setTimeout(() => r("waited"), 10_000)),
        ]);
        clearTimeout(timer);
      });
      equal(beaten, "done");
      equal((await repo.get(free.execution_id))?.heartbeatAt, beat);
      ok((await repo.get(held.execution_id))!.heartbeatAt < beat);
      // Once the row is free, the next beat covers it.
      await repo.heartbeat("i1", beat, ids);
      equal((await repo.get(held.execution_id))?.heartbeatAt, beat);
      await w.shared.close();
    } finally {
      await store.dispose();
    }
  },
});
