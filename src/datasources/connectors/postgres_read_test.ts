/**
 * The POSTGRES read path's economies, each against what it must not cost: a statement whose own
 * LIMIT fits one batch is read whole and pipelined with its read-only transaction, statements
 * are prepared per connection, and a read's ROLLBACK leaves with the connection's next
 * statement. None may let a statement run outside BEGIN READ ONLY, leave a transaction open for
 * long or to the next lease, or stop a cancel from reaching the server.
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { drain, pgConnectorTest } from "../../../tests/support/datasources.ts";
import type { PostgresConnector } from "./postgres.ts";
import type { QueryOptions, Statement } from "./types.ts";
import { eventually } from "../../../tests/support/wait.ts";

/** A fresh database, a connector on it with one pooled connection, and an admin handle. */
const pgTest = (name: string, fn: Parameters<typeof pgConnectorTest>[1]) =>
  pgConnectorTest(name, fn, { maximumPoolSize: 1 });

const rows = async (c: PostgresConnector, statement: Statement, options: QueryOptions = {}) =>
  (await drain(await c.query(statement, options))).rows;

const failure = (c: PostgresConnector, statement: Statement, options: QueryOptions = {}) =>
  c.query(statement, options).then(drain).then(() => null, (e) => e);

/** True when the pooled connection is in no transaction: now() moves between statements. */
async function outsideTransaction(c: PostgresConnector): Promise<boolean> {
  const [[a]] = await rows(c, { sql: "SELECT now()::text" });
  await rows(c, { sql: "SELECT pg_sleep(0.01)" });
  const [[b]] = await rows(c, { sql: "SELECT now()::text" });
  return a !== b;
}

pgTest(
  "a read whose LIMIT fits one batch still runs inside BEGIN READ ONLY",
  async ({ c, admin }) => {
    await admin.unsafe("CREATE TABLE t (n int); INSERT INTO t VALUES (1), (2), (3)");
    const readOnly = (params: Record<string, unknown>) =>
      rows(c, {
        sql: "SELECT current_setting('transaction_read_only'), :k::int AS k LIMIT 1",
        params,
      }, { readOnly: true });
    // Several queued at once on one connection: each runs between its own BEGIN and ROLLBACK.
    deepEqual(await Promise.all([1, 2, 3].map((k) => readOnly({ k }))), [
      [["on", 1]],
      [["on", 2]],
      [["on", 3]],
    ]);
    for (
      const sql of [
        "WITH d AS (DELETE FROM t RETURNING n) SELECT n FROM d LIMIT 5",
        "WITH d AS (DELETE FROM t WHERE n > :min RETURNING n) SELECT n FROM d LIMIT 5",
      ]
    ) {
      const refused = await failure(c, { sql, params: { min: 0 } }, { readOnly: true });
      match(String(refused?.message), /read-only transaction/, sql);
    }
    equal((await admin.unsafe("SELECT count(*)::int AS n FROM t"))[0].n, 3);
    deepEqual(await rows(c, { sql: "SELECT n FROM t ORDER BY n LIMIT 2" }, { readOnly: true }), [
      [1],
      [2],
    ]);
    ok(await outsideTransaction(c), "every ROLLBACK ran");
    equal(c.pool.stats.leased, 0);
  },
);

pgTest(
  "a prepared statement the session lost is never retried outside BEGIN READ ONLY",
  async ({ c, admin }) => {
    await admin.unsafe("CREATE TABLE t (n int); INSERT INTO t VALUES (1), (2), (3)");
    // postgres.js re-runs a prepared statement the server no longer knows; the re-run must
    // still be inside the read-only transaction, not after the ROLLBACK that follows it.
    for (
      const sql of [
        "WITH d AS (DELETE FROM t WHERE n > :min RETURNING n) SELECT n FROM d LIMIT 5",
        "WITH d AS (DELETE FROM t WHERE n > :min RETURNING n) SELECT n FROM d",
      ]
    ) {
      for (let round = 0; round < 2; round++) {
        const refused = await failure(c, { sql, params: { min: 0 } }, { readOnly: true });
        ok(refused, sql);
        await rows(c, { sql: "DEALLOCATE ALL" }, { readOnly: true });
      }
      equal((await admin.unsafe("SELECT count(*)::int AS n FROM t"))[0].n, 3, sql);
    }
    ok(await outsideTransaction(c));
  },
);

pgTest("a failing read leaves its connection clean for the next lease", async ({ c }) => {
  const [[pid]] = await rows(c, { sql: "SELECT pg_backend_pid()" });
  for (const sql of ["SELECT 1 / (:n::int - :n::int) LIMIT 1", "SELECT 1 / (:n::int - :n::int)"]) {
    for (const readOnly of [true, false]) {
      const failed = await failure(c, { sql, params: { n: 1 } }, { readOnly });
      match(String(failed?.message), /division by zero/, sql);
      equal(c.pool.stats.leased, 0);
      deepEqual(await rows(c, { sql: "SELECT current_setting('transaction_read_only')" }), [[
        "off",
      ]]);
      ok(await outsideTransaction(c), sql);
    }
  }
  deepEqual(await rows(c, { sql: "SELECT pg_backend_pid()" }), [[pid]], "the same connection");
});

pgTest("a prepared read sees a column added since it was prepared", async ({ c, admin }) => {
  await admin.unsafe("CREATE TABLE t (a int); INSERT INTO t VALUES (1)");
  for (const sql of ["SELECT * FROM t WHERE a = :a LIMIT 5", "SELECT * FROM t WHERE a = :a"]) {
    const before = await c.query({ sql, params: { a: 1 } }, { readOnly: true });
    deepEqual(before.schema.map((col) => col.name), ["a"]);
    await drain(before);
  }
  await admin.unsafe("ALTER TABLE t ADD COLUMN b text DEFAULT 'x'");
  for (const sql of ["SELECT * FROM t WHERE a = :a LIMIT 5", "SELECT * FROM t WHERE a = :a"]) {
    const after = await c.query({ sql, params: { a: 1 } }, { readOnly: true });
    deepEqual(after.schema.map((col) => col.name), ["a", "b"], sql);
    deepEqual((await drain(after)).rows, [[1, "x"]]);
  }
  ok(await outsideTransaction(c));
});

pgTest("a connection prepares a bounded number of statements", async ({ c }) => {
  for (let k = 0; k < 110; k++) await rows(c, { sql: `SELECT :k::int + ${k}`, params: { k } });
  const [[prepared]] = await rows(c, {
    sql: "SELECT count(*)::int FROM pg_prepared_statements WHERE statement NOT LIKE :p",
    params: { p: "%pg_prepared_statements%" },
  });
  ok((prepared as number) <= 100, `${prepared} statements prepared`);
});

pgTest("a whole read aborted mid-statement is cancelled on the server", async ({ c, admin }) => {
  const [[pid]] = await rows(c, { sql: "SELECT pg_backend_pid()" });
  for (const readOnly of [true, false]) {
    const controller = new AbortController();
    const running = c.query({ sql: "SELECT pg_sleep(60) LIMIT 1" }, {
      signal: controller.signal,
      readOnly,
    });
    await eventually(async () =>
      (await admin.unsafe(
        "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state LIKE 'active%' AND query LIKE '%pg_sleep%'",
        [pid as number],
      )).length > 0, { what: "pg_sleep to run", ms: 10_000 });
    controller.abort();
    await rejects(running, (e: Error) => e.name === "AbortError");
    const [activity] = await admin.unsafe("SELECT state FROM pg_stat_activity WHERE pid = $1", [
      pid as number,
    ]);
    equal(activity.state, "idle", "the backend stopped running the statement");
    equal(c.pool.stats.idle, 1);
    ok(await outsideTransaction(c));
  }
});

pgTest(
  "a read's transaction ends with the next use of its connection, or soon on its own",
  async ({ c, admin }) => {
    await admin.unsafe("CREATE TABLE t (n int)");
    const [[pid]] = await rows(c, { sql: "SELECT pg_backend_pid()" });
    const started = () => rows(c, { sql: "SELECT now()::text LIMIT 1" }, { readOnly: true });
    const [[first]] = await started();
    await rows(c, { sql: "SELECT pg_sleep(0.01)" }, { readOnly: true });
    const [[second]] = await started();
    ok(first !== second, "each read-only read has a transaction of its own");
    // A write right after a read-only read commits: it does not run in the read's transaction.
    await c.write([{ sql: "INSERT INTO t VALUES (1)" }]);
    equal((await admin.unsafe("SELECT count(*)::int AS n FROM t"))[0].n, 1);
    await rows(c, { sql: "SELECT n FROM t" }, { readOnly: true });
    deepEqual((await c.columns("t")).map((col) => col.name), ["n"]);
    await rows(c, { sql: "SELECT n FROM t LIMIT 1" }, { readOnly: true });
    // Nobody takes the connection: the transaction still ends, it is not left idle in it.
    await eventually(async () => {
      const [activity] = await admin.unsafe("SELECT state FROM pg_stat_activity WHERE pid = $1", [
        pid as number,
      ]);
      return activity.state === "idle";
    }, { what: "the transaction to end", ms: 10_000 });
  },
);
