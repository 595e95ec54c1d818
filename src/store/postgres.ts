/** The production store: PostgreSQL through the `postgres` package. */
import postgres from "postgres";
import { OutageGate, postgresOutage } from "./outage.ts";
import type { Db, Queryable, Row, SqlValue } from "./types.ts";

/** Any fixed number works; it only has to be the same for every replica. */
const MIGRATION_LOCK_KEY = 7_342_001;

type Sql = postgres.Sql | postgres.TransactionSql;

/**
 * Statements of `sql`, their outage errors raised as `Unavailable` (store/outage.ts). `gate` is
 * the pool's: a statement outside a transaction waits for no connection that cannot be had.
 */
function wrap(sql: Sql, gate?: OutageGate, onConnectTimeout?: () => void): Queryable {
  // One async step per statement, as before the gate: the shape is applied inside it.
  const run = async <R>(
    text: string,
    params: SqlValue[] = [],
    shape: (result: postgres.RowList<Row[]>) => R,
  ): Promise<R> => {
    const probe = gate?.enter() ?? false;
    try {
      const result = await sql.unsafe(
        text,
        params.map((p) => (p === undefined ? null : p)) as postgres.ParameterOrJSON<never>[],
      );
      gate?.settled(probe);
      return shape(result);
    } catch (error) {
      if ((error as { code?: unknown })?.code === "CONNECT_TIMEOUT") onConnectTimeout?.();
      throw gate ? gate.settled(probe, error) : postgresOutage(error) ?? error;
    }
  };
  return {
    dialect: "postgres",
    query: <T>(text: string, params?: SqlValue[]) => run(text, params, (r) => [...r] as T[]),
    first: <T>(text: string, params?: SqlValue[]) =>
      run(text, params, (r) => r[0] as T | undefined),
    execute: (text: string, params?: SqlValue[]) => run(text, params, (r) => r.count ?? 0),
  };
}

/** Thrown from postgres.js's connection code (its file, in a checkout or a compiled program). */
const fromDriver = (stack: unknown) => /postgres[^\n]*connection\.js/.test(String(stack));

/** The stores of this process, renewed when a driver connection broke its own state. */
const stores = new Set<PostgresDb>();

/**
 * Two races of postgres.js 3.4.9 with a server that closes connections (a restart, a
 * `pg_terminate_backend`), neither fixed upstream:
 * - it may write to a socket whose server has just ended it; Deno's node:net then raises EPIPE
 *   after postgres.js has taken its listeners off the closed socket, as an unhandled rejection
 *   that would end the process. The connection is closed and its statements failed already: that
 *   rejection carries nothing more.
 * - it flushes small writes from a `setImmediate`; when the connection closes first, the flush
 *   writes to a null socket (porsager/postgres#1154, denoland/deno#34667), an uncaught TypeError
 *   that ended the process (a replica of the soak died so, and never came back ready). Caught
 *   here; that connection can never flush again (its write timer is left set), so every store
 *   renews its pool.
 */
let guardInstalled = false;
function guardDriverRaces(): void {
  if (guardInstalled) return;
  guardInstalled = true;
  globalThis.addEventListener("unhandledrejection", (event) => {
    const reason = event.reason as { code?: unknown; stack?: unknown } | null;
    if (reason?.code === "EPIPE" && fromDriver(reason.stack)) event.preventDefault();
  });
  globalThis.addEventListener("error", (event) => {
    const error = event.error;
    if (!(error instanceof TypeError) || !/reading 'write'/.test(error.message)) return;
    if (!fromDriver(error.stack)) return;
    event.preventDefault();
    for (const db of stores) db.renew("a connection's write failed after it closed");
  });
}

/** At most one renewal per this long: a server that is really out would otherwise churn pools. */
const RENEW_INTERVAL_MS = 10_000;

export interface PostgresOptions {
  poolSize?: number;
  connectTimeoutSeconds?: number;
  onRenew?: (reason: string) => void;
}

export class PostgresDb implements Db {
  readonly dialect = "postgres" as const;
  #sql: postgres.Sql;
  #q: Queryable;
  readonly #gate = new OutageGate();
  readonly #open: () => postgres.Sql;
  #renewedAt = -Infinity;
  /** How many times the pool was replaced (see `renew`). */
  renewals = 0;

  /** Told each time the pool is replaced, with why: an operator's log line. */
  readonly #onRenew: (reason: string) => void;

  constructor(url: string, options: PostgresOptions = {}) {
    guardDriverRaces();
    this.#onRenew = options.onRenew ?? (() => {});
    this.#open = () =>
      postgres(url, {
        max: options.poolSize ?? 10,
        connect_timeout: options.connectTimeoutSeconds ?? 5,
        // The driver's own backoff grows to 20 s across failed connects, and a statement queued
        // for a connection waits it out: during an outage that was a request blocked ~10 s
        // before its error. Short and bounded, with the gate taking the load off the server.
        backoff: (retries: number) => Math.min(0.01 * 2 ** retries, 0.25),
        idle_timeout: 60,
        onnotice: () => {},
        // int8 (counts, sums) as numbers: every value we store fits a double.
        types: { int8: { to: 20, from: [20], serialize: String, parse: Number } },
        connection: { application_name: "pipeline-service", TimeZone: "UTC" },
      });
    this.#sql = this.#open();
    this.#q = this.#wrap();
    stores.add(this);
  }

  #wrap(): Queryable {
    // A connect that timed out while the server is up is a connection left unable to send (see
    // guardDriverRaces): the pool is renewed, at most once per RENEW_INTERVAL_MS.
    return wrap(this.#sql, this.#gate, () => {
      if (performance.now() - this.#renewedAt >= RENEW_INTERVAL_MS) {
        this.renew("a connect timed out while the server answered");
      }
    });
  }

  /**
   * Replaces the driver's pool with a new one: what is under way on the old one finishes there
   * (it is ended in the background), every later statement takes a fresh connection.
   */
  renew(reason: string): void {
    if (!stores.has(this)) return;
    const old = this.#sql;
    this.#sql = this.#open();
    this.#q = this.#wrap();
    this.#renewedAt = performance.now();
    this.renewals++;
    this.#onRenew(reason);
    old.end({ timeout: 5 }).catch(() => {});
  }

  query<T = Row>(sql: string, params?: SqlValue[]): Promise<T[]> {
    return this.#q.query<T>(sql, params);
  }

  first<T = Row>(sql: string, params?: SqlValue[]): Promise<T | undefined> {
    return this.#q.first<T>(sql, params);
  }

  execute(sql: string, params?: SqlValue[]): Promise<number> {
    return this.#q.execute(sql, params);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return await this.#begin((tx) => fn(wrap(tx)));
  }

  async withMigrationLock<T>(
    fn: (tx: Queryable & { script(sql: string): Promise<void> }) => Promise<T>,
  ): Promise<T> {
    return await this.#begin(async (tx) => {
      // Transaction-scoped: a replica that starts at the same moment waits here until this one has
      // committed, then finds every migration applied.
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      return await fn({
        ...wrap(tx),
        script: async (sql: string) => {
          await tx.unsafe(sql);
        },
      });
    });
  }

  /** A transaction through the gate; its own failures (BEGIN, COMMIT, a lost connection) too. */
  async #begin<T>(fn: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
    const probe = this.#gate.enter();
    try {
      const result = await this.#sql.begin(fn) as T;
      this.#gate.settled(probe);
      return result;
    } catch (error) {
      throw this.#gate.settled(probe, error);
    }
  }

  async ping(): Promise<void> {
    await this.#q.first("SELECT 1");
  }

  async close(): Promise<void> {
    stores.delete(this);
    await this.#sql.end({ timeout: 5 });
  }
}
