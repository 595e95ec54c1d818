import { deepEqual, equal, notEqual, ok, rejects } from "node:assert/strict";
import postgres from "postgres";
import { AppError } from "../../errors/mod.ts";
import { createLogger } from "../../lib/log.ts";
import { skipUnless } from "../../../tests/support/services.ts";
import { freshPostgresDatabase } from "../../../tests/support/stores.ts";
import { Pool } from "./pool.ts";
import { resolvePoolSettings } from "./pool_settings.ts";
import { type PgConn, postgresDriver } from "./postgres_driver.ts";
import { eventually } from "../../../tests/support/wait.ts";

// The pool against real PostgreSQL connections. Time-based rules (idle timeout, lifetime,
// validation after idling) are decided by the pool's clock, which these tests move forward.

const ignore = skipUnless("postgres");

async function withPool(
  hikari: Record<string, unknown>,
  fn: (
    ctx: { pool: Pool<PgConn>; clock: { now: number }; admin: postgres.Sql; lines: string[] },
  ) => Promise<void>,
) {
  const db = await freshPostgresDatabase();
  const url = new URL(db.url);
  const clock = { now: Date.now() };
  const lines: string[] = [];
  const pool = new Pool<PgConn>({
    name: "pooled",
    settings: resolvePoolSettings("POSTGRES", hikari).settings,
    driver: postgresDriver({
      host: url.hostname,
      port: Number(url.port),
      database: url.pathname.slice(1),
      user: "postgres",
      max: 1,
      onnotice: () => {},
    }),
    logger: createLogger("debug", (line) => lines.push(line)),
    now: () => clock.now,
  });
  const admin = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    await fn({ pool, clock, admin, lines });
  } finally {
    await pool.close();
    await admin.end();
    await db.drop();
  }
}

const pid = async (conn: PgConn) =>
  (await conn.sql`SELECT pg_backend_pid() AS pid`)[0].pid as number;

Deno.test({
  name:
    "[postgres] Pool caps connections at maximumPoolSize and times out a lease that waits too long",
  ignore,
  async fn() {
    await withPool({ maximumPoolSize: 2, connectionTimeout: 400 }, async ({ pool }) => {
      const a = await pool.acquire();
      const b = await pool.acquire();
      const waiting = pool.acquire();
      await eventually(() => pool.stats.waiting === 1, {
        what: "the third lease to wait",
        ms: 10_000,
      });
      a.release();
      const c = await waiting;
      equal(c.conn, a.conn, "the released connection went to the waiter");
      const started = Date.now();
      const error = await pool.acquire().catch((e) => e);
      ok(error instanceof AppError);
      equal(error.details.error_class, "timeout");
      ok(Date.now() - started >= 390);
      b.release();
      c.release();
      deepEqual(pool.stats, { idle: 2, leased: 0, connecting: 0, waiting: 0 });
    });
  },
});

Deno.test({
  name: "[postgres] Pool closes idle connections above minimumIdle after idleTimeout, then refills",
  ignore,
  async fn() {
    await withPool(
      { maximumPoolSize: 3, minimumIdle: 1, idleTimeout: 10_000, maxLifetime: 60_000 },
      async ({ pool, clock }) => {
        const leases = [await pool.acquire(), await pool.acquire(), await pool.acquire()];
        for (const lease of leases) lease.release();
        equal(pool.size, 3);
        clock.now += 9_000;
        await pool.housekeep();
        equal(pool.size, 3, "not idle long enough yet");
        clock.now += 2_000;
        await pool.housekeep();
        equal(pool.size, 1, "kept minimumIdle");
        // Past maxLifetime even the minimum is replaced by a fresh connection.
        const old = await pid((await pool.acquire().then((l) => (l.release(), l))).conn);
        clock.now += 60_000;
        await pool.housekeep();
        equal(pool.size, 1);
        const lease = await pool.acquire();
        notEqual(await pid(lease.conn), old);
        lease.release();
      },
    );
  },
});

Deno.test({
  name: "[postgres] Pool validates a connection that sat idle and replaces a dead one",
  ignore,
  async fn() {
    await withPool({}, async ({ pool, clock, admin }) => {
      const first = await pool.acquire();
      const killed = await pid(first.conn);
      first.release();
      await admin`SELECT pg_terminate_backend(${killed})`;
      clock.now += 1_000;
      const next = await pool.acquire();
      notEqual(await pid(next.conn), killed);
      next.release();
      equal(pool.size, 1);
    });
  },
});

Deno.test({
  name: "[postgres] Pool logs a lease held past leakDetectionThreshold as a warning",
  ignore,
  async fn() {
    await withPool({ leakDetectionThreshold: 2_000 }, async ({ pool, lines }) => {
      const lease = await pool.acquire();
      const line = await eventually(() => lines.find((l) => l.includes("leakDetection")), {
        what: "the leak warning",
        ms: 10_000,
      });
      const parsed = JSON.parse(line!);
      deepEqual([parsed.level, parsed.datasource], ["warn", "pooled"]);
      ok(parsed.held_ms >= 2_000);
      lease.release();
    });
  },
});

Deno.test({
  name: "[postgres] Pool.close() waits for leases until the deadline, then closes them",
  ignore,
  async fn() {
    await withPool({}, async ({ pool, admin }) => {
      const held = await pool.acquire();
      const backend = await pid(held.conn);
      const closing = pool.close(new Date(Date.now() + 60_000));
      await rejects(pool.acquire(), /closed/);
      held.release();
      await closing;
      await eventually(
        async () =>
          (await admin`SELECT 1 FROM pg_stat_activity WHERE pid = ${backend}`).length === 0,
        { what: "the backend to leave", ms: 10_000 },
      );
    });
    await withPool({}, async ({ pool, admin }) => {
      const held = await pool.acquire();
      const backend = await pid(held.conn);
      await pool.close(new Date(Date.now() + 200));
      await eventually(
        async () =>
          (await admin`SELECT 1 FROM pg_stat_activity WHERE pid = ${backend}`).length === 0,
        { what: "the backend to leave", ms: 10_000 },
      );
      held.release();
    });
  },
});

Deno.test({
  name: "[postgres] Pool opens minimumIdle connections at its first lease, none before",
  ignore,
  async fn() {
    await withPool({ maximumPoolSize: 4, minimumIdle: 2 }, async ({ pool }) => {
      equal(pool.size, 0, "building a pool opens nothing");
      const lease = await pool.acquire();
      await eventually(() => pool.stats.idle === 2, {
        what: "minimumIdle to be opened",
        ms: 10_000,
      });
      equal(pool.size, 3);
      lease.release();
    });
  },
});

Deno.test({
  name: "[postgres] Pool opens no connection in place of one being handed over or checked",
  ignore,
  async fn() {
    await withPool({ maximumPoolSize: 1 }, async ({ pool, clock }) => {
      (await pool.acquire()).release();
      const leaseAll = () =>
        Promise.all([1, 2, 3].map(async () => {
          const lease = await pool.acquire();
          ok(pool.size <= 1, `${pool.size} connections open`);
          const id = await pid(lease.conn);
          lease.release();
          return id;
        }));
      // The idle connection is taken without a check, then handed from owner to waiter.
      equal(new Set(await leaseAll()).size, 1);
      // Idle long enough to be checked first: the check must not let a second one open either.
      clock.now += 60_000;
      equal(new Set(await leaseAll()).size, 1);
      equal(pool.size, 1);
    });
  },
});
