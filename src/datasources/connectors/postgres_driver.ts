/**
 * The postgres.js side of the POSTGRES connector: driver options from a parsed `jdbc_url`, and
 * the pool driver that opens, checks and closes single-connection handles.
 */
import type postgres from "postgres";
import type { Credential } from "./definition.ts";
import type { DriverOptions, JdbcTarget } from "./jdbc_url.ts";
import type { PoolDriver } from "./pool.ts";
import type { PoolSettings } from "./pool_settings.ts";
import { PG_DRIVER_TYPES } from "./postgres_types.ts";
import { BatchTooLarge, rowBytes } from "./value_bounds.ts";

export type PgTarget = Extract<JdbcTarget, { dialect: "POSTGRES" }>;

export interface PgConn {
  sql: postgres.Sql;
  /** The statement running now, so a closing pool can cancel it on the server. */
  running?: { cancel(): unknown };
  /** Statement texts `query()` prepares on this connection. */
  prepared: Set<string>;
  /**
   * What author SQL may have left on the session (a read's read-only transaction, advisory
   * locks, settings): the reset the next user sends first (see `resetLeftOver`).
   */
  leftOver?: SessionReset;
  /** The bounds of the read under way, applied to each row as the driver builds it. */
  guard?: RowGuard;
}

/**
 * A read's bounds inside the driver: a value over `maxCellBytes` fails the read as its row is
 * built, and so does a batch past `MAX_BATCH_BYTES` (a statement read whole, or a cursor's first
 * batch of rows too wide for it). `bytes` and `rows` count the batch under way.
 */
export interface RowGuard {
  maxCellBytes: number;
  bytes: number;
  rows: number;
  /** The read's query, whose columns name the one refused. */
  query?: { statement?: { columns?: { name: string }[] } };
}

/** The most one batch may hold before the read fails (the V8 heap is ~4 GB). */
export const MAX_BATCH_BYTES = 512 * 1024 * 1024;

export function rowGuard(maxCellBytes = Infinity): RowGuard {
  return { maxCellBytes, bytes: 0, rows: 0 };
}

function guarded(conn: PgConn, row: unknown): unknown {
  const guard = conn.guard;
  if (!guard || !Array.isArray(row)) return row;
  guard.bytes += rowBytes(row, guard.maxCellBytes, guard.query?.statement?.columns);
  guard.rows++;
  if (guard.bytes > MAX_BATCH_BYTES) throw new BatchTooLarge(guard.rows, MAX_BATCH_BYTES);
  return row;
}

/**
 * Session state author SQL can leave on a pooled connection, ended before anyone else uses it.
 * `ROLLBACK` ends a read's read-only transaction, or one the SQL opened itself (outside a
 * transaction it is a warning, which is ignored); a session-level advisory lock
 * (`pg_advisory_lock`) outlives it, so `pg_advisory_unlock_all()` follows. Inside a read-only
 * transaction that is all that survives: its settings, `LISTEN` and cursors end with the
 * ROLLBACK, and it can create nothing. SQL run outside one (reads on a writable datasource,
 * writes) can also change settings, role, `LISTEN`, hold cursors and make temporary tables:
 * `full` is `DISCARD ALL` without `DEALLOCATE ALL` and `DISCARD PLANS`, which would drop the
 * statements postgres.js has prepared on the connection and cached by name. Settings the
 * connection started with (time zone, date style, search path) are the session's defaults, so
 * `RESET ALL` keeps them. One simple-protocol query either way.
 */
export const SESSION_RESET = {
  readOnly: "ROLLBACK; SELECT pg_advisory_unlock_all()",
  full: "ROLLBACK; CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; UNLISTEN *; " +
    "SELECT pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES",
} as const;
export type SessionReset = (typeof SESSION_RESET)[keyof typeof SESSION_RESET];

export function postgresOptions(
  target: PgTarget,
  credential: Credential,
  options: DriverOptions,
  settings: PoolSettings,
): postgres.Options<Record<string, postgres.PostgresType>> {
  const sslmode = options.sslmode ?? (options.ssl === "true" ? "require" : "disable");
  const ssl = sslmode === "disable"
    ? false
    : sslmode === "verify-ca" || sslmode === "verify-full"
    ? "verify-full"
    : sslmode as "allow" | "prefer" | "require";
  const connectSeconds = Math.min(
    settings.connectionTimeout / 1000,
    options.connectTimeout ? Number(options.connectTimeout) : Infinity,
  );
  return {
    host: target.host,
    port: target.port,
    database: target.database,
    user: credential.username ?? "postgres",
    pass: credential.kind === "none" ? undefined : credential.secret ?? undefined,
    ssl,
    max: 1,
    idle_timeout: null as unknown as undefined,
    max_lifetime: null,
    connect_timeout: connectSeconds,
    fetch_types: false,
    prepare: true,
    onnotice: () => {},
    types: PG_DRIVER_TYPES as unknown as Record<string, postgres.PostgresType>,
    connection: {
      application_name: options.applicationName ?? "pipeline-service",
      TimeZone: "UTC",
      DateStyle: "ISO, MDY",
      ...(options.currentSchema ? { search_path: options.currentSchema } : {}),
    },
  };
}

/** postgres.js, loaded with the first connection: most instances never open a PostgreSQL pool. */
let loaded: Promise<typeof postgres> | undefined;
const driver = () => loaded ??= import("postgres").then((m) => m.default);

/** The pool driver: one single-connection postgres.js handle per pooled connection. */
export function postgresDriver(
  driverOptions: postgres.Options<Record<string, postgres.PostgresType>>,
): PoolDriver<PgConn> {
  return {
    async connect(signal) {
      const postgres = await driver();
      signal.throwIfAborted(); // aborted while the driver loaded: no listener would see it
      const conn = { prepared: new Set() } as unknown as PgConn;
      const sql = conn.sql = postgres(
        {
          ...driverOptions,
          transform: { row: { from: (row: unknown) => guarded(conn, row) } },
        } as typeof driverOptions,
      );
      const abort = () => void sql.end({ timeout: 0 });
      signal.addEventListener("abort", abort, { once: true });
      try {
        await sql.unsafe("SELECT 1");
        return conn;
      } catch (error) {
        await sql.end({ timeout: 0 }).catch(() => {});
        throw error;
      } finally {
        signal.removeEventListener("abort", abort);
      }
    },
    async validate(conn, timeoutMs) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const check = conn.sql.unsafe("SELECT 1");
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => {
          Promise.resolve(check.cancel()).catch(() => {});
          resolve(false);
        }, timeoutMs);
      });
      try {
        return await Promise.race([check.then(() => true, () => false), timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close(conn) {
      // A statement still running when the pool closes is stopped on the server, not orphaned.
      await Promise.resolve(conn.running?.cancel()).catch(() => {});
      await conn.sql.end({ timeout: 0 });
    },
  };
}

/**
 * Statements prepared on one connection at most. A prepared statement skips the describe round
 * trip (postgres.js otherwise sends Parse and Describe, waits, then binds); postgres.js keeps
 * each one until its connection closes, so past this many a connection prepares nothing more.
 */
const MAX_PREPARED = 100;

/** The server's routines behind a prepared statement gone stale (postgres.js's retry list). */
export const STALE_PREPARED = new Set([
  "FetchPreparedStatement",
  "RevalidateCachedQuery",
  "transformAssignedExpr",
]);

/** Whether `query()` prepares `sql` on `conn` (see MAX_PREPARED). */
export function prepares(conn: PgConn, sql: string): boolean {
  if (conn.prepared.has(sql)) return true;
  if (conn.prepared.size >= MAX_PREPARED) return false;
  conn.prepared.add(sql);
  return true;
}

/**
 * Queues the reset the previous user left for the connection's next user (see the connector's
 * `#releaseLeftOver`), ahead of what that user queues in the same tick, so both leave in one
 * socket write. False when it failed.
 */
export function resetLeftOver(conn: PgConn): Promise<boolean> | undefined {
  const reset = conn.leftOver;
  if (!reset) return undefined;
  conn.leftOver = undefined;
  return conn.sql.unsafe(reset).then(() => true, () => false);
}
