/**
 * Issue 22 finding 4 at the sink: a run whose rows the store refused (an outage) keeps them, is
 * held by its instance meanwhile, and has its whole ending written in order once the store is
 * back. The outage is real on both stores: PostgreSQL behind a proxy the test cuts, SQLite
 * locked by another connection past the busy timeout.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { Unavailable } from "../lib/unavailable.ts";
import { MemoryStore } from "../shared/mod.ts";
import { type Db, openDb } from "../store/mod.ts";
import { forEachStore, type TestStore } from "../../tests/support/stores.ts";
import { startTcpProxy } from "../../tests/support/tcp_proxy.ts";
import { eventually } from "../../tests/support/wait.ts";
import { checkEventOrder } from "./event_order.ts";
import { ExecutionJournal } from "./journal.ts";
import { ExecutionRepo } from "./repo.ts";
import { DurableSink } from "./sink.ts";
import {
  housekeepingWorld,
  runningRecord,
  runRows,
  succeeded,
  successFrames,
} from "./test_fixtures.ts";

/** A second connection to `store` that the test can make unavailable, and give back. */
interface Outage {
  db: Db;
  begin(): Promise<void>;
  end(): Promise<void>;
  close(): Promise<void>;
}

async function outage(store: TestStore): Promise<Outage> {
  if (store.kind === "postgres") {
    const url = new URL(store.url);
    const proxy = startTcpProxy({ hostname: url.hostname, port: Number(url.port || 5432) });
    url.port = String(proxy.port);
    const db = await openDb(url.toString());
    return {
      db,
      begin: () => proxy.cut(),
      end: () => Promise.resolve(proxy.restore()),
      async close() {
        await db.close();
        await proxy.cut();
      },
    };
  }
  const db = await store.open();
  // The service waits 5 s for a lock; the test needs no such patience to see the refusal.
  await db.execute("PRAGMA busy_timeout = 20");
  const locker = new DatabaseSync(store.url.slice("sqlite:".length));
  return {
    db,
    begin: () => Promise.resolve(locker.exec("BEGIN IMMEDIATE")),
    end: () => Promise.resolve(locker.exec("ROLLBACK")),
    close: () => Promise.resolve(locker.close()),
  };
}

forEachStore(
  "issue 22 finding 4: an ending the store refused is held, then written whole and in order once it is back",
  async (db, store) => {
    const out = await outage(store);
    const shared = new MemoryStore();
    const journal = new ExecutionJournal(out.db, () => {}, { retryDelayMs: 20 });
    try {
      const { ids, repo } = await runRows(db);
      const sink = new DurableSink(
        new ExecutionRepo(out.db),
        shared,
        "instance-a",
        Date.now,
        journal,
      );
      const record = runningRecord(ids);
      const id = record.execution_id;
      const frames = successFrames(record);
      await sink.started(record);
      await sink.event(id, frames[0]);
      await sink.event(id, frames[1]);

      await out.begin();
      // The frames the store refuses are still handed over; each refusal says service.unavailable.
      const refused = frames.slice(2).map((f) => sink.event(id, f).catch((e) => e));
      for (const e of await Promise.all(refused)) equal(e?.code, "service.unavailable");
      const final = succeeded(record);
      await rejects(sink.finished(final), Unavailable);
      ok(journal.holds(id) && journal.pending(id));
      deepEqual(journal.held(), [id]);
      equal((await repo.get(id))?.record.status, "RUNNING");
      deepEqual(await repo.events(id), frames.slice(0, 2));

      await out.end();
      await eventually(async () => (await repo.get(id))?.record.status === "SUCCESS", 10_000);
      deepEqual((await repo.get(id))?.record, final);
      const stored = await repo.events(id);
      deepEqual(stored, frames);
      checkEventOrder(stored);
      ok(!journal.holds(id));
      deepEqual(journal.held(), []);
    } finally {
      await journal.close();
      await out.close();
      await shared.close();
    }
  },
);

forEachStore(
  "issue 22 finding 4: an instance beats only for the runs it holds; its own reaper takes one it gave up",
  async (db) => {
    const repo = new ExecutionRepo(db);
    const held = new Set<string>();
    const { ids, shared, clock, ...w } = await housekeepingWorld(db, {
      heartbeatMs: 60_000,
      runs: { held: () => [...held], holds: (id) => held.has(id) },
    });
    const keeper = w.keeper("instance-a");
    const kept = runningRecord(ids);
    const given = runningRecord(ids);
    const at = new Date(clock.now).toISOString();
    await repo.insert(kept, "instance-a", at);
    await repo.insert(given, "instance-a", at);
    held.add(kept.execution_id);

    clock.now += 10 * 60_000;
    await keeper.heartbeat();
    equal((await repo.get(kept.execution_id))?.heartbeatAt, new Date(clock.now).toISOString());
    equal((await repo.get(given.execution_id))?.heartbeatAt, at);
    deepEqual(await keeper.reap(), [given.execution_id]);
    const reaped = (await repo.get(given.execution_id))!.record;
    equal(reaped.status, "ABORTED");
    equal(reaped.abort_reason, "shutdown");
    equal((await repo.events(given.execution_id)).at(-1)?.event, "execution_aborted");
    equal((await repo.get(kept.execution_id))?.record.status, "RUNNING");
    await shared.close();
  },
);
