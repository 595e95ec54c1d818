import { deepEqual, equal, ok } from "node:assert/strict";
import { runsTest } from "../../tests/support/executions_fixtures.ts";
import { type Db, ensureIncrementalVacuum, SqliteDb } from "../store/mod.ts";
import { forEachStore } from "../../tests/support/stores.ts";
import { ExecutionRepo } from "./repo.ts";
import { reclaimSpace, RetentionSweeps } from "./retention.ts";
import { queryAudit } from "../audit/mod.ts";
import {
  addRunRows,
  housekeepingWorld,
  runningRecord,
  succeeded,
  successFrames,
} from "./test_fixtures.ts";
import type { EventFrame } from "./event_order.ts";
import type { ExecutionRecord } from "./types.ts";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const pause = () => new Promise((r) => setTimeout(r, 5));

type Ids = Awaited<ReturnType<typeof addRunRows>>;

/** A stored run with its frames (a `data_ready` carrying rows last); finished unless told. */
async function storedRun(
  db: Db,
  ids: Ids,
  options: { finish?: boolean; completedAt?: number; parent?: ExecutionRecord } = {},
): Promise<ExecutionRecord> {
  const repo = new ExecutionRepo(db);
  const record = runningRecord(ids, {
    ...(options.parent
      ? {
        parent_execution_id: options.parent.execution_id,
        root_execution_id: options.parent.execution_id,
        parent_node_id: "a",
      }
      : {}),
  });
  await repo.insert(record, "i", record.started_at);
  const frames = successFrames(record);
  for (const f of frames) await repo.appendEvent(record.execution_id, f, record.started_at);
  if (options.finish === false) return record;
  const completed = iso(options.completedAt ?? Date.now());
  await repo.appendEvent(record.execution_id, {
    id: frames.length + 1,
    event: "data_ready",
    data: { execution_id: record.execution_id, rows: [[1, "a"], [2, "b"]], row_count: 2 },
  }, completed);
  await repo.finish(succeeded(record, { completed_at: completed }));
  return record;
}

const count = async (db: Db, table: string) =>
  Number((await db.first<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${table}`))?.n);

runsTest(
  "record retention deletes terminal records past the period in batches, events and child runs with them",
  async ({ ids, repo }, db) => {
    const oldParent = await storedRun(db, ids);
    const oldChild = await storedRun(db, ids, { parent: oldParent });
    const pinnedParent = await storedRun(db, ids);
    const oldRunning = await storedRun(db, ids, { finish: false });
    const old = [await storedRun(db, ids), await storedRun(db, ids), await storedRun(db, ids)];
    await pause();
    const cutoff = Date.now();
    await pause();
    const recent = await storedRun(db, ids);
    // A child started within the period keeps its parent (the reference must hold).
    const recentChild = await storedRun(db, ids, { parent: pinnedParent });

    const sweeps = (days: number) =>
      new RetentionSweeps(db, {
        recordRetentionDays: days,
        replayWindowMs: HOUR,
        now: () => cutoff + 90 * DAY,
        batch: 2,
      });
    equal(await sweeps(0).deleteOldRecords(), 0, "0 keeps records forever");
    equal(await sweeps(90).deleteOldRecords(), 5);
    for (const gone of [oldParent, oldChild, ...old]) {
      equal(await repo.get(gone.execution_id), undefined);
      deepEqual(await repo.events(gone.execution_id), []);
    }
    for (const kept of [pinnedParent, oldRunning, recent, recentChild]) {
      ok(await repo.get(kept.execution_id), kept.execution_id);
    }
    equal(await count(db, "executions"), 4);
    equal(await sweeps(90).deleteOldRecords(), 0);
  },
);

runsTest(
  "a run's frames are packed into one row past its replay window, never earlier, never past a running run",
  async ({ ids, repo }, db) => {
    // Completion times ahead of every id minted here: the walk's bound is the window's id.
    const t0 = Date.now() + 60_000;
    const first = await storedRun(db, ids, { completedAt: t0 });
    const blocker = await storedRun(db, ids, { finish: false });
    await pause();
    const after = await storedRun(db, ids, { completedAt: t0 + 10 });
    const late = await storedRun(db, ids, { completedAt: t0 + HOUR });
    const stored = new Map<string, EventFrame[]>();
    for (const r of [first, after, late]) {
      stored.set(r.execution_id, await repo.events(r.execution_id));
    }
    let now = t0 + HOUR - 1;
    const sweeps = new RetentionSweeps(db, {
      recordRetentionDays: 90,
      replayWindowMs: HOUR,
      now: () => now,
      batch: 1,
    });
    const rowsOf = async (r: ExecutionRecord) =>
      Number(
        (await db.first<{ n: unknown }>(
          `SELECT COUNT(*) AS n FROM execution_events WHERE execution_id = $1`,
          [r.execution_id],
        ))?.n,
      );
    /** The frames as stored, with data_ready's rows dropped. */
    const packed = (r: ExecutionRecord) =>
      stored.get(r.execution_id)!.map((f) => {
        if (f.event !== "data_ready") return f;
        const { rows: _, ...data } = f.data;
        return { ...f, data };
      });

    equal(await sweeps.packStreams(), 0, "inside the window");
    now = t0 + HOUR + 20;
    equal(await sweeps.packStreams(), 1, "up to the running run");
    equal(await rowsOf(first), 1);
    deepEqual(await repo.events(first.execution_id), packed(first));
    deepEqual(await repo.events(first.execution_id, 4), packed(first).slice(4));
    equal(await repo.lastEventId(first.execution_id), successFrames(first).length + 1);
    deepEqual(await repo.events(after.execution_id), stored.get(after.execution_id));

    await repo.finish(succeeded(blocker, { completed_at: iso(t0) }));
    equal(await sweeps.packStreams(), 2, "the blocker and the next, up to the run in its window");
    deepEqual(await repo.events(after.execution_id), packed(after));
    deepEqual(await repo.events(late.execution_id), stored.get(late.execution_id));
    now = t0 + 2 * HOUR + 1;
    equal(await sweeps.packStreams(), 1);
    deepEqual(await repo.events(late.execution_id), packed(late));
    equal(await sweeps.packStreams(), 0, "the mark remembers");
    // The event retention sweep reads the packed row's observed_at (its last frame's): the first
    // run's and the blocker's (its frames are stamped now) go, the next one's stays.
    equal(await repo.deleteEventsBefore(iso(t0 + 5)), 2);
    deepEqual(await repo.events(first.execution_id), []);
    deepEqual(await repo.events(blocker.execution_id), []);
    deepEqual(await repo.events(after.execution_id), packed(after));
  },
);

forEachStore("the embedded store reclaims the pages the sweeps free", async (db, store) => {
  if (db.dialect !== "sqlite") {
    equal(await reclaimSpace(db), 0);
    equal(await ensureIncrementalVacuum(db), false);
    return;
  }
  const mode = async (d: Db) => (await d.first<{ auto_vacuum: number }>("PRAGMA auto_vacuum"))!;
  equal(Number((await mode(db)).auto_vacuum), 2, "a new database starts incremental");
  equal(await ensureIncrementalVacuum(db), false);

  // A database made before: auto_vacuum NONE until the one-time switch.
  const path = store.url.slice("sqlite:".length).replace(/service\.db$/, "older.db");
  const { DatabaseSync } = await import("node:sqlite");
  const raw = new DatabaseSync(path);
  raw.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (v TEXT)");
  raw.close();
  const older = await SqliteDb.open(`sqlite:${path}`);
  try {
    equal(Number((await mode(older)).auto_vacuum), 0);
    equal(await ensureIncrementalVacuum(older), true);
    equal(Number((await mode(older)).auto_vacuum), 2);
    await older.execute(`INSERT INTO t (v) SELECT printf('%.2000c', 'x') FROM (
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
      SELECT i FROM n)`);
    await older.query("PRAGMA wal_checkpoint(TRUNCATE)");
    const full = (await Deno.stat(path)).size;
    await older.execute("DELETE FROM t");
    ok(await reclaimSpace(older) > 1000);
    await older.query("PRAGMA wal_checkpoint(TRUNCATE)");
    const after = (await Deno.stat(path)).size;
    ok(after < full / 10, `${after} of ${full}`);
  } finally {
    await older.close();
  }
});

forEachStore(
  "housekeeping's growth sweep packs, ages out records as the system actor, and keeps them at 0 days",
  async (db) => {
    const { ids, shared, clock, systemActor, ...w } = await housekeepingWorld(db);
    const keeper = (recordRetentionDays: number) => w.keeper("i", { recordRetentionDays });
    const run = await storedRun(db, ids);
    clock.now += HOUR + 60_000;
    const first = await keeper(90).sweepGrowth();
    deepEqual([first.records, first.packed], [0, 1]);
    clock.now += 91 * DAY;
    equal((await keeper(0).sweepGrowth()).records, 0, "0 keeps records forever");
    ok(await new ExecutionRepo(db).get(run.execution_id));
    equal((await keeper(90).sweepGrowth()).records, 1);
    equal(await new ExecutionRepo(db).get(run.execution_id), undefined);
    const audit = await queryAudit(db, { event: "execution.records_swept", offset: 0, limit: 10 });
    equal(audit.items.length, 1);
    equal(audit.items[0].user_id, systemActor.id);
    deepEqual(audit.items[0].details, { deleted: 1, retention_days: 90 });
    await shared.close();
  },
);
