/**
 * Session state author SQL leaves on a pooled connection (issue 22 finding 7): a probe, an
 * executor's read or a write that takes a session-level lock must not leave it held by the idle
 * connection nor hand it to the connection's next user. Each pool holds one connection, so the
 * next read runs on the same session (its backend or connection id proves it).
 */
import { deepEqual, equal, notEqual } from "node:assert/strict";
import postgres from "postgres";
import {
  connectorConfig,
  drain,
  freshMariaDatabase,
  mariaAdmin,
  pgJdbcUrl,
} from "../../tests/support/datasources.ts";
import { skipUnless } from "../../tests/support/services.ts";
import { freshPostgresDatabase } from "../../tests/support/stores.ts";
import { type Connector, openConnector } from "./connectors/mod.ts";
import { probeLimits, runProbe } from "./probe.ts";

const ONE_CONNECTION = { maximumPoolSize: 1, minimumIdle: 1 };
const LOCK = 2207;

async function probe(conn: Connector, sql: string): Promise<unknown[]> {
  const result = await runProbe(conn, { sql }, probeLimits());
  return result.rows[0];
}

async function read(conn: Connector, sql: string): Promise<unknown[]> {
  return (await drain(await conn.query({ sql }))).rows[0];
}

async function withPostgres(
  fn: (conn: Connector, other: postgres.Sql) => Promise<void>,
): Promise<void> {
  const db = await freshPostgresDatabase();
  // A second session, outside the pool, that waits for a lock at most 10 s (lock_timeout).
  const other = postgres(db.url, {
    max: 1,
    onnotice: () => {},
    connection: { lock_timeout: 10_000 },
  });
  const conn = openConnector(
    connectorConfig("POSTGRES", pgJdbcUrl(db.url), { hikari: ONE_CONNECTION }),
  );
  try {
    await fn(conn, other);
  } finally {
    await conn.close();
    await other.end();
    await db.drop();
  }
}

const PG_SESSION = `SELECT pg_backend_pid() AS pid,
  (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())::int AS locks`;

Deno.test({
  name: "[POSTGRES] issue 22 finding 7: a probe's advisory lock is freed once the probe answers",
  ignore: skipUnless("postgres"),
  async fn() {
    await withPostgres(async (conn, other) => {
      const [pid] = await probe(conn, `SELECT pg_backend_pid(), pg_advisory_lock(${LOCK})`);
      // The pooled connection sits idle: another session gets the lock (waiting at most 10 s).
      await other`SELECT pg_advisory_lock(${LOCK})`;
      await other`SELECT pg_advisory_unlock(${LOCK})`;
      // The next pooled user is the same session, holding nothing.
      deepEqual(await probe(conn, PG_SESSION), [pid, 0]);
      // Taken again, and handed straight to the next probe: that one does not hold it either.
      await probe(conn, `SELECT pg_advisory_lock_shared(${LOCK}), pg_advisory_lock(${LOCK + 1})`);
      deepEqual(await probe(conn, PG_SESSION), [pid, 0]);
    });
  },
});

Deno.test({
  name:
    "[POSTGRES] issue 22 finding 7: reads and writes on a writable datasource leave no lock, setting, role, channel or temp table",
  ignore: skipUnless("postgres"),
  async fn() {
    await withPostgres(async (conn, other) => {
      const state = `SELECT pg_backend_pid() AS pid, current_user = session_user AS own_role,
        current_setting('TimeZone') AS tz,
        to_regclass('pg_temp.scratch') IS NULL AS no_temp,
        (SELECT count(*) FROM pg_listening_channels())::int AS channels,
        (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())::int
          AS locks`;
      const [pid] = await read(conn, "SELECT pg_backend_pid()");
      // An executor's read on a writable datasource runs outside a transaction.
      await read(
        conn,
        `SELECT pg_advisory_lock(${LOCK}), set_config('TimeZone', 'Asia/Tokyo', false)`,
      );
      await other`SELECT pg_advisory_lock(${LOCK})`;
      await other`SELECT pg_advisory_unlock(${LOCK})`;
      // The startup's UTC is the session default again; the statement prepared for `state` on
      // its first run survives the reset, so the second run uses it.
      deepEqual(await read(conn, state), [pid, true, "UTC", true, 0, 0]);
      await conn.write([
        { sql: "CREATE TEMP TABLE scratch AS SELECT 1 AS x" },
        { sql: "SET TimeZone = 'Asia/Tokyo'" },
        { sql: "LISTEN somewhere" },
        // A role every superuser (the test's login) is a member of.
        { sql: "SET ROLE pg_read_all_data" },
        { sql: `SELECT pg_advisory_lock(${LOCK})` },
      ]);
      deepEqual(await read(conn, state), [pid, true, "UTC", true, 0, 0]);
      // A write that fails after taking a lock rolls back and frees it too.
      const failed = await conn.write([
        { sql: `SELECT pg_advisory_lock(${LOCK})` },
        { sql: "SELECT 1 / 0" },
      ]).catch((error) => error);
      equal(failed.outcome.rolled_back, true);
      deepEqual(await read(conn, state), [pid, true, "UTC", true, 0, 0]);
    });
  },
});

Deno.test({
  name:
    "[MYSQL] issue 22 finding 7: a probe's GET_LOCK is freed before the connection is reused; a write resets the session",
  ignore: skipUnless("mariadb"),
  async fn() {
    const db = await freshMariaDatabase();
    // Lock names are server-wide: the test's own database name keeps them apart.
    const lock = `'${db.name}'`;
    const other = await mariaAdmin();
    const conn = openConnector(
      connectorConfig("MYSQL", db.url, { username: "root", hikari: ONE_CONNECTION }),
    );
    const session = `SELECT CONNECTION_ID(), IS_USED_LOCK(${lock})`;
    try {
      const [id] = await probe(conn, `SELECT CONNECTION_ID(), GET_LOCK(${lock}, 0)`);
      deepEqual(await probe(conn, session), [id, null]);
      // Another session gets it (waiting at most 10 s), then gives it back.
      const [rows] = await other.query({
        sql: `SELECT GET_LOCK(${lock}, 10), RELEASE_LOCK(${lock})`,
        rowsAsArray: true,
      });
      deepEqual(rows, [[1, 1]]);
      // An executor's read releases its lock as well.
      await read(conn, `SELECT GET_LOCK(${lock}, 0)`);
      deepEqual(await read(conn, session), [id, null]);
      // A write (any statement) ends with the session reset: lock, settings, variables.
      const state = `SELECT CONNECTION_ID(), IS_USED_LOCK(${lock}), @@session.time_zone, @v`;
      await conn.write([
        { sql: "SET time_zone = '+09:00'" },
        { sql: "SET @v = 1" },
        { sql: `SELECT GET_LOCK(${lock}, 0)` },
      ]);
      // The statement prepared for `state` is gone with the reset; mysql2 prepares it again.
      deepEqual(await read(conn, state), [id, null, "+00:00", null]);
      // A read that is no query (a SET) fails, and its session goes with its connection.
      const set = await read(conn, "SET time_zone = '+09:00'").catch((error) => error);
      equal(set.code, "ER_NO_RESULT_SET");
      const [next, , zone] = await read(conn, state);
      notEqual(next, id);
      equal(zone, "+00:00");
    } finally {
      await conn.close();
      await other.end();
      await db.drop();
    }
  },
});
