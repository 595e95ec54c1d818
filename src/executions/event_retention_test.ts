import { deepEqual, equal, ok } from "node:assert/strict";
import { runsTest } from "../../tests/support/executions_fixtures.ts";
import { newId } from "../lib/ids.ts";
import { type Db, loadMigrations, migrate } from "../store/mod.ts";
import { forEachStore } from "../../tests/support/stores.ts";
import { parseBatch } from "./frame_batch.ts";
import { ExecutionRepo, idFloor } from "./repo.ts";
import { addRunRows, runningRecord, succeeded, successFrames } from "./test_fixtures.ts";

const SECOND = 1000;

/**
 * The store migrated up to just before migration `number`, with run rows added there: answers
 * every migration and where `number` stands among them.
 */
async function storedBefore(db: Db, number: string) {
  const files = await loadMigrations(db.dialect);
  const at = files.findIndex((f) => f.name.startsWith(`${number}_`));
  ok(at > 0);
  await migrate(db, files.slice(0, at));
  return { files, at, ids: await addRunRows(db) };
}
const iso = (ms: number) => new Date(ms).toISOString();

/** A run minted now whose frames are observed `step` ms apart from `from`; finished unless told. */
async function storedRun(
  db: Db,
  ids: Awaited<ReturnType<typeof addRunRows>>,
  from: number,
  step: number,
  finish = true,
) {
  const repo = new ExecutionRepo(db);
  const record = runningRecord(ids, { started_at: iso(from) });
  const frames = successFrames(record);
  await repo.insert(record, "i", iso(from));
  for (const [i, f] of frames.entries()) {
    await repo.appendEvent(record.execution_id, f, iso(from + i * step));
  }
  if (finish) await repo.finish(succeeded(record));
  return { record, frames };
}

Deno.test("idFloor() sorts below every id minted in or after its millisecond, above earlier ones", () => {
  const before = newId();
  const now = Date.now() + 1;
  while (Date.now() < now + 1) { /* the next millisecond */ }
  const after = newId();
  ok(before < idFloor(now));
  ok(idFloor(now) < after);
  equal(idFloor(0x0190_0000_0001), "01900000-0001-0000-0000-000000000000");
});

runsTest(
  "the sweep deletes exactly the events observed before the cutoff, of ended and running runs",
  async ({ ids, repo }, db) => {
    const t0 = Date.now();
    const ended = await storedRun(db, ids, t0, SECOND);
    const running = await storedRun(db, ids, t0, 10 * SECOND, false);
    /** The frames of a run stored `step` ms apart from t0 that are observed at or after `ms`. */
    const kept = (frames: unknown[], step: number, ms: number) =>
      frames.filter((_, i) => t0 + i * step >= ms);
    // The cutoff falls inside both runs.
    const first = t0 + 5.5 * SECOND;
    const cutoff = iso(first);
    equal(await repo.deleteEventsBefore(cutoff), 6 + 1);
    deepEqual(await repo.events(ended.record.execution_id), kept(ended.frames, SECOND, first));
    deepEqual(
      await repo.events(running.record.execution_id),
      kept(running.frames, 10 * SECOND, first),
    );
    equal(await repo.deleteEventsBefore(cutoff), 0);
    // Frames observed long after their run began stay until they are as old as the period.
    const second = t0 + 25 * SECOND;
    const gone = ended.frames.length - 6 + 2;
    equal(await repo.deleteEventsBefore(iso(second)), gone);
    deepEqual(await repo.events(ended.record.execution_id), []);
    deepEqual(
      await repo.events(running.record.execution_id),
      kept(running.frames, 10 * SECOND, second),
    );
    if (db.dialect === "sqlite") {
      // The sweep walks the primary key's time-ordered prefix, not the whole table.
      const plan = await db.query<{ detail: string }>(
        `EXPLAIN QUERY PLAN DELETE FROM execution_events WHERE execution_id < $1 AND observed_at < $2`,
        [idFloor(t0), cutoff],
      );
      ok(
        plan.some((p) =>
          /USING INDEX sqlite_autoindex_execution_events_1 \(execution_id<\?\)/.test(p.detail)
        ),
        JSON.stringify(plan),
      );
    }
  },
);

forEachStore(
  "migration 0012 applies over stored runs: their records and events stay, the reaper and the sweep find them",
  async (db) => {
    const { files, at, ids } = await storedBefore(db, "0012");
    const t0 = Date.now();
    const ended = await storedRun(db, ids, t0, SECOND);
    const running = await storedRun(db, ids, t0, SECOND, false);
    deepEqual(await migrate(db, files.slice(0, at + 1)), [files[at].name]);
    // The repository reads the current schema: the later migrations too, over the same rows.
    await migrate(db, files);

    const repo = new ExecutionRepo(db);
    deepEqual(await repo.events(ended.record.execution_id), ended.frames);
    deepEqual(await repo.events(running.record.execution_id), running.frames);
    equal((await repo.get(ended.record.execution_id))?.record.status, "SUCCESS");
    deepEqual(
      (await repo.staleRunning(iso(t0 + SECOND))).map((s) => s.record.execution_id),
      [running.record.execution_id],
    );
    equal(await repo.countRunning(ids.userId), 1);
    const indexes = db.dialect === "sqlite"
      ? await db.query<{ name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('executions', 'execution_events')`,
      )
      : await db.query<{ name: string }>(
        `SELECT indexname AS name FROM pg_indexes WHERE tablename IN ('executions', 'execution_events')`,
      );
    const names = indexes.map((r) => r.name);
    ok(!names.includes("execution_events_observed"));
    ok(names.includes("executions_running"));
    // Migration 0016 moved each run's frames into one batch row.
    equal(await repo.deleteEventsBefore(iso(t0 + 60 * SECOND)), 2);
    deepEqual(await repo.events(ended.record.execution_id), []);
  },
  { migrate: false },
);

forEachStore(
  "migration 0016 moves frames stored one row each into one batch row per run, ids, order and observed_at kept",
  async (db) => {
    const { files, at, ids } = await storedBefore(db, "0016");
    const t0 = Date.now() - 10 * SECOND;
    // As the release before it stored them: a row per frame, each with its own observed_at.
    const ended = await storedRun(db, ids, t0, 7);
    const running = await storedRun(db, ids, t0, SECOND, false);
    deepEqual(await migrate(db, files), [files[at].name]);

    const repo = new ExecutionRepo(db);
    for (const run of [ended, running]) {
      const id = run.record.execution_id;
      deepEqual(await repo.events(id), run.frames);
      deepEqual(await repo.events(id, 2), run.frames.filter((f) => f.id > 2));
      equal(await repo.lastEventId(id), run.frames.at(-1)!.id);
      const rows = await db.query<{ event_type: string; data: string }>(
        `SELECT event_type, data FROM execution_events WHERE execution_id = $1`,
        [id],
      );
      equal(rows.length, 1);
      equal(rows[0].event_type, "frames");
      const step = run === ended ? 7 : SECOND;
      deepEqual(
        parseBatch(rows[0].data, { execution_id: id, pipeline_id: "", correlation_id: null }).map((
          f,
        ) => Date.parse(f.observedAt)),
        run.frames.map((_, i) => t0 + i * step),
      );
    }
  },
  { migrate: false },
);

runsTest(
  "the sweep deletes at most `limit` rows per statement, and only those past the cutoff",
  async ({ ids, repo }, db) => {
    const t0 = Date.now();
    const a = await storedRun(db, ids, t0, SECOND);
    const b = await storedRun(db, ids, t0, SECOND);
    const later = await storedRun(db, ids, t0 + 7200 * SECOND, SECOND);
    const total = a.frames.length + b.frames.length;
    const cutoff = iso(t0 + 3600 * SECOND);
    equal(await repo.deleteEventsBefore(cutoff, 5), 5);
    equal(await repo.deleteEventsBefore(cutoff, total), total - 5);
    equal(await repo.deleteEventsBefore(cutoff, 5), 0);
    deepEqual(await repo.events(a.record.execution_id), []);
    deepEqual(await repo.events(later.record.execution_id), later.frames);
  },
);
