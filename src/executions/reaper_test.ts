import { deepEqual, equal, ok } from "node:assert/strict";
import { queryAudit } from "../audit/mod.ts";
import { ensureSystemActor } from "../identity/mod.ts";
import { createLogger } from "../lib/log.ts";
import { MemoryStore } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import { forEachStore } from "../../tests/stores.ts";
import { checkEventOrder } from "./event_order.ts";
import { ExecutionHousekeeping } from "./reaper.ts";
import { ExecutionRepo } from "./repo.ts";
import { DurableSink } from "./sink.ts";
import {
  addPipelineRow,
  addUserRow,
  addWorkspaceRow,
  runningRecord,
  succeeded,
  successFrames,
} from "./test_fixtures.ts";

const MINUTE = 60_000;

async function world(db: Db) {
  const workspaceId = await addWorkspaceRow(db);
  const userId = await addUserRow(db);
  const pipelineId = await addPipelineRow(db, workspaceId, userId);
  const shared = new MemoryStore();
  const clock = { now: Date.now() };
  const systemActor = await ensureSystemActor(db);
  const keeper = (instanceId: string) =>
    new ExecutionHousekeeping({
      db,
      shared,
      systemActor,
      logger: createLogger("error", () => {}),
      instanceId,
      retentionDays: 7,
      heartbeatMs: MINUTE,
      now: () => clock.now,
    });
  const sink = (instanceId: string) =>
    new DurableSink(new ExecutionRepo(db), shared, instanceId, () => clock.now);
  return { ids: { workspaceId, userId, pipelineId }, shared, clock, systemActor, keeper, sink };
}

forEachStore(
  "the reaper aborts runs of a dead instance, as the system actor, and only those",
  async (db) => {
    const w = await world(db);
    const repo = new ExecutionRepo(db);
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

    const stored = await repo.get(dead.execution_id);
    equal(stored?.record.status, "ABORTED");
    equal(stored?.record.abort_reason, "shutdown");
    equal(stored?.abortedBy, w.systemActor.id);
    ok(stored?.record.completed_at);
    equal((await repo.get(alive.execution_id))?.record.status, "RUNNING");
    // The stored stream now ends on a proper terminal sequence, so its replay is well-formed.
    const frames = await repo.events(dead.execution_id);
    checkEventOrder(frames);
    equal(frames.at(-1)?.event, "execution_aborted");
    const audit = await queryAudit(db, { event: "execution.reaped", offset: 0, limit: 10 });
    equal(audit.items.length, 1);
    equal(audit.items[0].user_id, w.systemActor.id);
    equal(audit.items[0].details.execution_id, dead.execution_id);
    // A second round finds nothing; the dead run's late finish cannot overwrite the verdict.
    deepEqual(await w.keeper("alive").reap(), []);
    equal(await repo.finish(succeeded(dead)), false);
    await w.shared.close();
  },
);

forEachStore(
  "retention deletes durable events past the period, as the system actor",
  async (db) => {
    const w = await world(db);
    const repo = new ExecutionRepo(db);
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
    deepEqual(await repo.events(old.execution_id), []);
    equal((await repo.events(recent.execution_id)).length, successFrames(recent).length);
    // The record itself stays: history outlives the events.
    equal((await repo.get(old.execution_id))?.record.status, "SUCCESS");
    const audit = await queryAudit(db, { event: "execution.events_swept", offset: 0, limit: 10 });
    equal(audit.items.length, 1);
    equal(audit.items[0].user_id, w.systemActor.id);
    equal(audit.items[0].details.deleted, successFrames(old).length);
    await w.shared.close();
  },
);
