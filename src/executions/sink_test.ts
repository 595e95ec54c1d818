import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { runsTest } from "../../tests/support/executions_fixtures.ts";
import { MemoryStore } from "../shared/mod.ts";
import { forEachStore } from "../../tests/support/stores.ts";
import { checkEventOrder, type EventFrame } from "./event_order.ts";
import { ExecutionRepo } from "./repo.ts";
import { DurableSink, EndedElsewhere, follow } from "./sink.ts";
import { ROW_BYTES } from "./frame_batch.ts";
import { ExecutionJournal, SHORT_RUN_ROWS } from "./journal.ts";
import type { Db } from "../store/mod.ts";
import {
  addPipelineRow,
  addRunRows,
  addUserRow,
  addWorkspaceRow,
  runningRecord,
  succeeded,
  successFrames,
} from "./test_fixtures.ts";

const AT = "2026-11-28T10:00:00.000Z";

/** A durable sink on `db` and a RUNNING record, not yet started. */
async function started(db: Db) {
  const ids = await addRunRows(db);
  const repo = new ExecutionRepo(db);
  const shared = new MemoryStore();
  const sink = new DurableSink(repo, shared, "instance-a");
  return { repo, shared, sink, record: runningRecord(ids), userId: ids.userId };
}

forEachStore(
  "the sink stores the record, every frame in order, and the final record",
  async (db) => {
    const { repo, shared, sink, record, userId } = await started(db);
    await sink.started(record);
    const running = await repo.get(record.execution_id);
    deepEqual(running?.record, record);
    equal(running?.instanceId, "instance-a");
    equal(await repo.countRunning(userId), 1);

    const frames = successFrames(record);
    for (const f of frames) await sink.event(record.execution_id, f);
    const final = succeeded(record);
    await sink.finished(final);
    deepEqual((await repo.get(record.execution_id))?.record, final);
    deepEqual(await repo.events(record.execution_id), frames);
    checkEventOrder(await repo.events(record.execution_id), { expectDataReady: false });
    equal(await repo.countRunning(userId), 0);
    // A terminal record is never rewritten (the reaper's verdict, or the first finish, stands).
    equal(await repo.finish({ ...final, status: "FAILED" }), false);
    await shared.close();
  },
);

forEachStore(
  "a follower sees stored frames, then live ones, and ends when the run ends",
  async (db) => {
    const { repo, shared, sink, record } = await started(db);
    await sink.started(record);
    const frames = successFrames(record);
    for (const f of frames.slice(0, 3)) await sink.event(record.execution_id, f);

    // A poll interval far beyond the test: only the pub/sub messages can wake the follower.
    const seen: EventFrame[] = [];
    const consumer = (async () => {
      for await (const f of follow(repo, shared, record.execution_id, { pollMs: 60_000 })) {
        seen.push(f);
        if (f.id === 3) {
          for (const g of frames.slice(3)) await sink.event(record.execution_id, g);
          await sink.finished(succeeded(record));
        }
      }
    })();
    await consumer;
    deepEqual(seen, frames);
    checkEventOrder(seen, { expectDataReady: false });
    await shared.close();
  },
);

forEachStore(
  "list filters by pipeline, status, start window, trigger and triggering user",
  async (db) => {
    const workspaceId = await addWorkspaceRow(db);
    const other = await addWorkspaceRow(db);
    const alice = await addUserRow(db);
    const bob = await addUserRow(db);
    const p1 = await addPipelineRow(db, workspaceId, alice);
    const p2 = await addPipelineRow(db, workspaceId, alice);
    const p3 = await addPipelineRow(db, other, alice);
    const repo = new ExecutionRepo(db);
    const at = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();
    const a = runningRecord({ workspaceId, pipelineId: p1, userId: alice }, { started_at: at(1) });
    const b = runningRecord({ workspaceId, pipelineId: p2, userId: bob }, {
      started_at: at(2),
      triggered_via: "ENDPOINT",
    });
    const c = runningRecord({ workspaceId: other, pipelineId: p3, userId: alice }, {
      started_at: at(3),
    });
    for (const r of [a, b, c]) await repo.insert(r, "i", r.started_at);
    await repo.finish(succeeded(a));
    const ids = async (f: Partial<Parameters<ExecutionRepo["list"]>[0]>) =>
      (await repo.list({ workspaceId, ...f }, 0, 10)).items.map((r) => r.execution_id);
    deepEqual(await ids({}), [b.execution_id, a.execution_id]);
    deepEqual(await ids({ triggeredBy: alice }), [a.execution_id]);
    deepEqual(await ids({ pipelineId: p2 }), [b.execution_id]);
    deepEqual(await ids({ status: "SUCCESS" }), [a.execution_id]);
    deepEqual(await ids({ startedAfter: at(1) }), [b.execution_id]);
    deepEqual(await ids({ startedBefore: at(2) }), [a.execution_id]);
    deepEqual(await ids({ triggeredVia: "ENDPOINT" }), [b.execution_id]);
    // The newest few by the same filter, uncounted (the dashboard's lists).
    const latest = async (f: Partial<Parameters<ExecutionRepo["latest"]>[0]>, n: number) =>
      (await repo.latest({ workspaceId, ...f }, n)).map((r) => r.execution_id);
    deepEqual(await latest({}, 1), [b.execution_id]);
    deepEqual(await latest({}, 10), [b.execution_id, a.execution_id]);
    deepEqual(await latest({ status: "SUCCESS" }, 10), [a.execution_id]);
    deepEqual(await latest({ triggeredBy: bob }, 10), [b.execution_id]);
    // Whether any matches, by the same filter (the dashboard's first-steps checks).
    equal(await repo.exists({ workspaceId, triggeredVia: "ENDPOINT" }), true);
    equal(await repo.exists({ workspaceId, triggeredVia: "ENDPOINT", triggeredBy: alice }), false);
    equal(await repo.exists({ workspaceId: other, triggeredVia: "ENDPOINT" }), false);
    // Who triggered runs in the workspace: each once, none from another workspace's runs.
    deepEqual((await repo.triggerers(workspaceId)).sort(), [alice, bob].sort());
    deepEqual(await repo.triggerers(other), [alice]);
    const page = await repo.list({ workspaceId }, 1, 1);
    equal(page.total, 2);
    deepEqual(page.items.map((r) => r.execution_id), [a.execution_id]);
  },
);

runsTest(
  "runs of one instance started together share INSERTs and read back exactly",
  async ({ ids, repo }, db) => {
    const shared = new MemoryStore();
    const journal = new ExecutionJournal(db, () => {});
    const sinks = [1, 2, 3].map(() =>
      new DurableSink(repo, shared, "instance-a", Date.now, journal)
    );
    // A null and a boolean among the values: each row's are typed for its column.
    const records = sinks.map(() => runningRecord(ids, { correlation_id: null, draft_run: true }));
    // The three records are neighbours in one batch's queue, as are the frames after them.
    await Promise.all(sinks.map((s, i) => s.started(records[i])));
    equal(await repo.countRunning(ids.userId), 3);
    // Another instance counts them, whichever side of this one's id its own falls; this one not.
    equal(await repo.countRunning(ids.userId, "instance-0"), 3);
    equal(await repo.countRunning(ids.userId, "instance-z"), 3);
    equal(await repo.countRunning(ids.userId, "instance-a"), 0);
    const frames = records.map(successFrames);
    await Promise.all(
      frames[0].map((_, n) =>
        Promise.all(sinks.map((s, i) => s.event(records[i].execution_id, frames[i][n])))
      ),
    );
    const finals = records.map((r) => succeeded(r));
    await Promise.all(sinks.map((s, i) => s.finished(finals[i])));
    for (const [i, r] of records.entries()) {
      deepEqual((await repo.get(r.execution_id))?.record, finals[i]);
      deepEqual(await repo.events(r.execution_id), frames[i]);
    }
    await shared.close();
  },
);

runsTest(
  "a frame whose payload is no JSON is refused, and the run's later frames",
  async ({ ids, repo }, db) => {
    const journal = new ExecutionJournal(db, () => {});
    const record = runningRecord(ids);
    await journal.insert(record, "instance-a", record.started_at);
    const [first, second, third] = successFrames(record);
    await journal.event(record.execution_id, first, record.started_at);
    const bad = { ...second, data: { ...second.data, rows_out: 1n } };
    const refused = await journal.event(record.execution_id, bad, record.started_at).then(
      () => null,
      (e) => e,
    );
    ok(refused instanceof TypeError);
    await rejects(
      journal.event(record.execution_id, third, record.started_at),
      (e) => e === refused,
    );
    deepEqual(await repo.events(record.execution_id), [first]);
  },
);

forEachStore(
  "a long run's batches fill its last row up to ROW_BYTES; a reaper's ending refuses the next",
  async (db) => {
    const { repo, shared, sink, record } = await started(db);
    const id = record.execution_id;
    await sink.started(record);
    // Each frame its own batch (awaited), as progress samples a second apart come.
    const sample = (n: number) => progressSample(id, n);
    const frames = Array.from({ length: 400 }, (_, i) => sample(i + 1));
    for (const f of frames) await sink.event(id, f);
    deepEqual(await repo.events(id), frames);
    deepEqual(await repo.events(id, 250), frames.slice(250));
    const rows = await db.query<{ data: string }>(
      "SELECT data FROM execution_events WHERE execution_id = $1 ORDER BY event_id",
      [id],
    );
    // A short run's rows first (the last of them extended), then a row closes once it holds
    // ROW_BYTES, not before: 400 small frames take a few rows.
    const text = rows.reduce((n, r) => n + r.data.length, 0);
    ok(rows.length > SHORT_RUN_ROWS, `${rows.length}`);
    ok(rows.length <= SHORT_RUN_ROWS + Math.ceil(text / ROW_BYTES), `${rows.length}`);
    for (const r of rows.slice(0, SHORT_RUN_ROWS - 1)) ok(r.data.length < ROW_BYTES);
    for (const r of rows.slice(SHORT_RUN_ROWS - 1, -1)) ok(r.data.length >= ROW_BYTES);

    // Another instance's reaper ends the run (its frame under the next id), then the run goes on.
    const reaped = succeeded(record, { status: "ABORTED", abort_reason: "shutdown" });
    await db.transaction(async (tx) => {
      const there = new ExecutionRepo(tx);
      ok(await there.finish(reaped));
      await there.appendEvent(id, { id: 401, event: "execution_aborted", data: {} }, AT);
    });
    const refused = await sink.event(id, sample(401)).then(() => null, (e) => e);
    ok(refused instanceof EndedElsewhere, String(refused));
    equal(refused.terminal?.id, 401);
    deepEqual((await repo.events(id)).map((f) => f.id), [...frames.map((f) => f.id), 401]);
    await shared.close();
  },
);

forEachStore(
  "a run whose last frames row was swept (silent past the retention) stores its next frames anew",
  async (db) => {
    const { repo, shared, sink, record } = await started(db);
    const id = record.execution_id;
    await sink.started(record);
    const frames = Array.from({ length: 9 }, (_, i) => progressSample(id, i + 1));
    // Past the short-run rows: its batches now extend its last row.
    for (const f of frames.slice(0, 6)) await sink.event(id, f);
    await repo.deleteEventsBefore(new Date(Date.now() + 60_000).toISOString());
    deepEqual(await repo.events(id), []);
    for (const f of frames.slice(6)) await sink.event(id, f);
    deepEqual(await repo.events(id), frames.slice(6));
    const rows = await db.query("SELECT event_id FROM execution_events WHERE execution_id = $1", [
      id,
    ]);
    equal(rows.length, 1);
    await shared.close();
  },
);

/** A progress sample of run `id`, the `n`th frame. */
function progressSample(id: string, n: number): EventFrame {
  return {
    id: n,
    event: "node_progress",
    data: { execution_id: id, node_id: "load", attempt: 1, rows_fetched: n * 1000 },
  };
}
