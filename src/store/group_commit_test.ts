import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { GroupCommit, groupCommit } from "./group_commit.ts";
import type { Db, Queryable } from "./types.ts";

async function table(db: Db): Promise<void> {
  await db.execute("CREATE TABLE gc_rows (k TEXT PRIMARY KEY, n INTEGER NOT NULL)");
}
const put = (k: string, n: number) => (q: Queryable) =>
  q.execute("INSERT INTO gc_rows (k, n) VALUES ($1, $2)", [k, n]);
const rows = async (db: Db) =>
  (await db.query<{ k: string; n: unknown }>("SELECT k, n FROM gc_rows ORDER BY n"))
    .map((r) => [r.k, Number(r.n)]);

/** Counts the transactions the queue opens, to prove writes of one turn share one. */
function counting(db: Db): { db: Db; transactions: () => number } {
  let n = 0;
  const wrapped = Object.create(db) as Db;
  wrapped.transaction = <T>(fn: (tx: Queryable) => Promise<T>) => {
    n++;
    return db.transaction(fn);
  };
  return { db: wrapped, transactions: () => n };
}

forEachStore("writes queued in one turn commit together, in order, each settling", async (db) => {
  await table(db);
  const c = counting(db);
  const queue = new GroupCommit(c.db);
  const settled = await Promise.all([1, 2, 3, 4].map((n) => queue.write(put(`k${n}`, n))));
  deepEqual(settled, [1, 1, 1, 1]);
  equal(c.transactions(), 1);
  deepEqual(await rows(db), [["k1", 1], ["k2", 2], ["k3", 3], ["k4", 4]]);
  // A later turn is a later transaction.
  await queue.write(put("k5", 5));
  equal(c.transactions(), 2);
});

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Queues one write now and one on each of the next `n - 1` turns of the event loop. The later
 * writers start waiting first, so each turn's write is queued before the batch looks again.
 */
function aWritePerTurn(queue: GroupCommit, n: number, first: number): Promise<number[]> {
  const write = (i: number) => queue.write(put(`k${first + i}`, first + i));
  const later = Array.from({ length: n - 1 }, async (_, i) => {
    for (let t = 0; t <= i; t++) await turn();
    return await write(i + 1);
  });
  return Promise.all([write(0), ...later]);
}

forEachStore(
  "a batch gathers while each turn brings writes, and goes on a quiet turn",
  async (db) => {
    await table(db);
    const c = counting(db);
    // A window no machine reaches, so only a quiet turn can end a batch.
    const queue = new GroupCommit(c.db, { windowMs: 60_000 });
    // Idle: one write goes on the next turn.
    await queue.write(put("k0", 0));
    equal(c.transactions(), 1);
    // A write on each of five turns in a row: one batch.
    deepEqual(await aWritePerTurn(queue, 5, 1), [1, 1, 1, 1, 1]);
    equal(c.transactions(), 2);
    deepEqual((await rows(db)).map(([, n]) => n), [0, 1, 2, 3, 4, 5]);
  },
);

forEachStore("a batch gathers for the window at most", async (db) => {
  await table(db);
  const c = counting(db);
  const queue = new GroupCommit(c.db, { windowMs: 0 });
  await aWritePerTurn(queue, 5, 1);
  // The window closed at the first look: the later turns' writes went in batches of their own
  // (on PostgreSQL, whose commit is a round trip, writes queued meanwhile share the next one).
  ok(c.transactions() >= 2, `${c.transactions()} transactions`);
});

forEachStore(
  "a failing write costs only itself; its chain's later writes are refused",
  async (db) => {
    await table(db);
    await db.execute("INSERT INTO gc_rows (k, n) VALUES ('taken', 0)");
    const queue = new GroupCommit(db);
    const a1 = queue.write(put("a1", 1), { chain: "a" });
    const clash = queue.write(put("taken", 2), { chain: "a", follows: true });
    const a3 = queue.write(put("a3", 3), { chain: "a", follows: true });
    const b = queue.write(put("b", 4), { chain: "b", follows: true });
    const aEnd = queue.write(put("a-end", 5), { chain: "a", ends: true });
    equal(await a1, 1);
    const refused = await clash.then(() => null, (e) => e);
    ok(refused instanceof Error);
    await rejects(a3, (e) => e === refused);
    equal(await b, 1);
    // The chain's last write is not a follower: it is written, and ends the chain.
    equal(await aEnd, 1);
    equal(queue.failure("a"), undefined);
    deepEqual(await rows(db), [["taken", 0], ["a1", 1], ["b", 4], ["a-end", 5]]);
  },
);

const row = (k: string, n: number) => ({ table: "gc_rows", columns: "k, n", values: [k, n] });

/** Counts the statements a transaction runs. */
function statements(db: Db): { db: Db; count: () => number } {
  let n = 0;
  // A proxy, not a prototype: the store's own methods run on the store (private fields).
  const wrapped = new Proxy(db, {
    get(target, key) {
      if (key === "transaction") {
        return <T>(fn: (tx: Queryable) => Promise<T>) =>
          db.transaction((tx) => {
            const counted = Object.create(tx) as Queryable;
            counted.execute = (sql, params) => {
              n++;
              return tx.execute(sql, params);
            };
            return fn(counted);
          });
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: wrapped, count: () => n };
}

forEachStore("neighbouring rows of one table share an INSERT, in queue order", async (db) => {
  await table(db);
  await db.execute("CREATE TABLE gc_other (k TEXT PRIMARY KEY)");
  const s = statements(db);
  const queue = new GroupCommit(s.db);
  const settled = await Promise.all([
    queue.insert(row("k1", 1)),
    queue.insert(row("k2", 2)),
    queue.insert({ table: "gc_other", columns: "k", values: ["o1"] }),
    queue.write(put("k3", 3)),
    queue.insert(row("k4", 4)),
    queue.insert(row("k5", 5)),
    queue.insert(row("k6", 6)),
  ]);
  deepEqual(settled, [1, 1, 1, 1, 1, 1, 1]);
  // k1+k2, o1, k3, k4+k5+k6.
  equal(s.count(), 4);
  deepEqual(await rows(db), [["k1", 1], ["k2", 2], ["k3", 3], ["k4", 4], ["k5", 5], ["k6", 6]]);
  deepEqual(await db.query("SELECT k FROM gc_other"), [{ k: "o1" }]);
});

forEachStore("a refused row of a shared INSERT costs only itself and its chain", async (db) => {
  await table(db);
  await db.execute("INSERT INTO gc_rows (k, n) VALUES ('taken', 0)");
  const queue = new GroupCommit(db);
  const a1 = queue.insert(row("a1", 1), { chain: "a" });
  const clash = queue.insert(row("taken", 2), { chain: "a", follows: true });
  const a3 = queue.insert(row("a3", 3), { chain: "a", follows: true });
  const b = queue.insert(row("b", 4), { chain: "b", follows: true });
  equal(await a1, 1);
  const refused = await clash.then(() => null, (e) => e);
  ok(refused instanceof Error);
  await rejects(a3, (e) => e === refused);
  equal(await b, 1);
  deepEqual(await rows(db), [["taken", 0], ["a1", 1], ["b", 4]]);
});

forEachStore("more neighbouring rows than one INSERT takes are all written", async (db) => {
  await table(db);
  const queue = new GroupCommit(db);
  const n = 150;
  await Promise.all(Array.from({ length: n }, (_, i) => queue.insert(row(`k${i}`, i))));
  deepEqual(await rows(db), Array.from({ length: n }, (_, i) => [`k${i}`, i]));
});

forEachStore(
  "a unit's rows are stored whole or not at all; neighbouring units share an INSERT per table",
  async (db) => {
    await table(db);
    await db.execute("CREATE TABLE gc_other (k TEXT PRIMARY KEY)");
    await db.execute("INSERT INTO gc_other (k) VALUES ('taken')");
    const s = statements(db);
    const queue = new GroupCommit(s.db);
    const other = (k: string) => ({ table: "gc_other", columns: "k", values: [k] });
    const u1 = queue.insertAll([row("u1", 1), other("o1")]);
    const u2 = queue.insertAll([row("u2", 2), other("o2")]);
    const u3 = queue.insertAll([row("u3", 3), other("o3")]);
    deepEqual(await Promise.all([u1, u2, u3]), [2, 2, 2]);
    // Two statements for three units: every gc_rows row, then every gc_other row.
    equal(s.count(), 2);
    // A unit whose last row is refused leaves none of its rows, in the batch (rolled back with
    // it) and retried alone (in a transaction of its own); its neighbours' rows are stored.
    const before = s.count();
    const lone = queue.insert(row("k4", 4));
    const refused = queue.insertAll([row("u5", 5), other("taken")]).then(() => null, (e) => e);
    const after = queue.insertAll([row("u6", 6), other("o6")]);
    equal(await lone, 1);
    ok(await refused instanceof Error);
    equal(await after, 2);
    // The batch (3 statements, the last refused), then the units alone: 2 refused, 2 stored
    // (the lone row, outside a transaction, is not counted).
    equal(s.count() - before, 7);
    deepEqual((await rows(db)).map(([k]) => k), ["u1", "u2", "u3", "k4", "u6"]);
    deepEqual(
      (await db.query<{ k: string }>("SELECT k FROM gc_other ORDER BY k")).map((r) => r.k),
      [
        "o1",
        "o2",
        "o3",
        "o6",
        "taken",
      ],
    );
  },
);

forEachStore("one queue per store", async (db) => {
  equal(groupCommit(db), groupCommit(db));
  await Promise.resolve();
});
