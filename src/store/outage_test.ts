/**
 * Issue 22 finding 4 at the store: an outage leaves either adapter as lib's `Unavailable` (503
 * `service.unavailable` to every front end), at once while the store is out, and a statement's
 * own failure does not (errors/app_error_test.ts: `toAppError` answers it 503). PostgreSQL goes out through a proxy the test cuts, or by
 * `pg_terminate_backend` on the test's own database; SQLite by a lock held past the busy timeout.
 */
import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { Unavailable } from "../lib/unavailable.ts";
import { POSTGRES_ADMIN_URL, skipUnless } from "../../tests/support/services.ts";
import { freshStore, type TestStore } from "../../tests/support/stores.ts";
import { startTcpProxy } from "../../tests/support/tcp_proxy.ts";
import { eventually } from "../../tests/support/wait.ts";
import { OutageGate, PROBE_HELD_MAX_MS } from "./outage.ts";
import { PostgresDb } from "./postgres.ts";
import { SqliteDb } from "./sqlite.ts";

/** Far below the connect timeout (5 s) and the driver's old backoff (up to 20 s). */
const PROMPT_MS = 1_000;

async function elapsed(fn: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  const error = await fn().then(() => undefined, (e) => e);
  return { ms: performance.now() - started, error };
}

/** A PostgreSQL test on a fresh store of its own, disposed afterwards. */
function pgStoreTest(name: string, fn: (store: TestStore) => Promise<void>): void {
  Deno.test({
    name: `[postgres] ${name}`,
    ignore: skipUnless("postgres"),
    async fn() {
      const store = await freshStore("postgres");
      try {
        await fn(store);
      } finally {
        await store.dispose();
      }
    },
  });
}

pgStoreTest(
  "issue 22 finding 4: a store that is out is Unavailable at once, statements and transactions alike, until it is back",
  async (store) => {
    const url = new URL(store.url);
    const proxy = startTcpProxy({ hostname: url.hostname, port: Number(url.port || 5432) });
    url.port = String(proxy.port);
    const db = new PostgresDb(url.toString());
    try {
      equal((await db.first<{ n: number }>("SELECT 1 AS n"))?.n, 1);
      await proxy.cut();
      const started = performance.now();
      for (let i = 0; i < 30; i++) {
        const statement = await elapsed(() => db.first("SELECT 1"));
        ok(statement.error instanceof Unavailable, String(statement.error));
        ok(statement.ms < PROMPT_MS, `statement ${i} took ${Math.round(statement.ms)} ms`);
        const tx = await elapsed(() => db.transaction((q) => q.execute("SELECT 1")));
        ok(tx.error instanceof Unavailable, String(tx.error));
        ok(tx.ms < PROMPT_MS, `transaction ${i} took ${Math.round(tx.ms)} ms`);
      }
      ok(performance.now() - started < 5_000, `${Math.round(performance.now() - started)} ms`);
      const outage = await db.first("SELECT 1").then(() => undefined, (e) => e);
      ok(outage instanceof Unavailable);
      ok(!outage.reason.includes(String(proxy.port)), "the reason names no address");
      proxy.restore();
      await eventually(() => db.first("SELECT 1").then(() => true, () => false), 10_000);
      // A statement's own failure is the statement's: not an outage.
      await rejects(db.execute("SELECT * FROM no_such_table"), (e) => !(e instanceof Unavailable));
    } finally {
      proxy.restore();
      await db.close();
      await proxy.cut();
    }
  },
);

pgStoreTest(
  "issue 22 finding 4: a statement whose backend is terminated is Unavailable, and the next one runs",
  async (store) => {
    const db = new PostgresDb(store.url);
    const admin = postgres(POSTGRES_ADMIN_URL, { max: 1, onnotice: () => {} });
    const database = new URL(store.url).pathname.slice(1);
    try {
      const sleeping = db.first("SELECT pg_sleep(30) /* issue22-terminate */")
        .then(() => undefined, (e) => e);
      // Only the service's own connection to the test's database: never another session.
      const others = `FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()
        AND query LIKE '%issue22-terminate%'`;
      await eventually(
        async () => (await admin.unsafe(`SELECT pid ${others}`, [database])).length === 1,
        10_000,
      );
      await admin.unsafe(`SELECT pg_terminate_backend(pid) ${others}`, [database]);
      const error = await sleeping;
      ok(error instanceof Unavailable, String(error));
      equal((await db.first<{ n: number }>("SELECT 1 AS n"))?.n, 1);
    } finally {
      await admin.end();
      await db.close();
    }
  },
);

Deno.test("[sqlite] issue 22 finding 4: a store locked past the busy timeout is Unavailable; a bad statement is not", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc_outage_" });
  const db = await SqliteDb.open(`sqlite:${dir}/service.db`);
  const locker = new DatabaseSync(`${dir}/service.db`);
  try {
    await db.execute("CREATE TABLE t (a INTEGER)");
    // The service waits 5 s for a lock another process holds; the test needs no such patience.
    await db.execute("PRAGMA busy_timeout = 20");
    locker.exec("BEGIN IMMEDIATE");
    await rejects(db.execute("INSERT INTO t VALUES (1)"), Unavailable);
    await rejects(db.transaction((tx) => tx.execute("INSERT INTO t VALUES (1)")), Unavailable);
    const outage = await db.execute("INSERT INTO t VALUES (1)").catch((e) => e);
    ok(outage instanceof Unavailable && outage.reason.includes("SQLITE_BUSY"));
    locker.exec("ROLLBACK");
    equal(await db.execute("INSERT INTO t VALUES (1)"), 1);
    await rejects(
      db.execute("INSERT INTO no_such_table VALUES (1)"),
      (e) => !(e instanceof Unavailable),
    );
  } finally {
    locker.close();
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a probe that never settles keeps the gate shut for PROBE_HELD_MAX_MS only", () => {
  let now = 0;
  const gate = new OutageGate(() => now);
  const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
  ok(gate.settled(gate.enter(), refused) instanceof Unavailable);
  now += 300;
  // This probe's statement hangs in the driver and never settles.
  equal(gate.enter(), true);
  now += 300;
  throws(() => gate.enter(), Unavailable);
  now += PROBE_HELD_MAX_MS;
  // Past the bound another probe goes to the driver; its success opens the gate.
  const probe = gate.enter();
  equal(probe, true);
  equal(gate.settled(probe), undefined);
  equal(gate.enter(), false);
  equal(gate.down, undefined);
});

pgStoreTest(
  "the driver's write to a closed socket does not end the process: the pool is renewed and serves",
  async (store) => {
    const reasons: string[] = [];
    const db = new PostgresDb(store.url, { onRenew: (reason) => reasons.push(reason) });
    try {
      equal((await db.first<{ n: number }>("SELECT 1 AS n"))?.n, 1);
      // What postgres.js 3.4.9 throws from its flush when the connection closed first
      // (porsager/postgres#1154): uncaught, from a setImmediate, with its own file in the stack.
      const thrown = new TypeError("Cannot read properties of null (reading 'write')");
      thrown.stack = `${thrown.name}: ${thrown.message}\n    at Immediate.nextWrite ` +
        "(file:///cache/npm/registry.npmjs.org/postgres/3.4.9/src/connection.js:255:22)";
      setImmediate(() => {
        throw thrown;
      });
      await eventually(() => db.renewals === 1, { what: "the pool to be renewed", ms: 2_000 });
      deepEqual(reasons, ["a connection's write failed after it closed"]);
      equal((await db.first<{ n: number }>("SELECT 2 AS n"))?.n, 2);
    } finally {
      await db.close();
    }
  },
);

Deno.test({
  name: "[postgres] a connect that times out renews the pool, at most once per interval",
  ignore: skipUnless("postgres"),
  async fn() {
    // A server that accepts and never answers: every connect times out.
    const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    const reasons: string[] = [];
    const accepting = (async () => {
      for await (const conn of silent) held.push(conn);
    })();
    const db = new PostgresDb(`postgres://u@127.0.0.1:${(silent.addr as Deno.NetAddr).port}/x`, {
      connectTimeoutSeconds: 1,
      onRenew: (reason) => reasons.push(reason),
    });
    try {
      for (let i = 0; i < 3; i++) await db.first("SELECT 1").catch(() => {});
      equal(db.renewals, 1);
      deepEqual(reasons, ["a connect timed out while the server answered"]);
    } finally {
      await db.close();
      silent.close();
      for (const conn of held) conn.close();
      await accepting.catch(() => {});
    }
  },
});
