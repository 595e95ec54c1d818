/**
 * Which driver errors mean "the metadata store is unavailable right now" rather than "this
 * statement is wrong": the one list of them, for both adapters. Those errors leave the store as
 * lib's `Unavailable`, which every front end answers 503 `service.unavailable` (see
 * errors/`toAppError`) and the executions journal keeps retrying through.
 */
import { Unavailable } from "../lib/unavailable.ts";

/** postgres.js's own connection codes, and Node's socket and name-resolution ones. */
const PG_CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** Failures of opening a connection: the server is down, starting, full or out of reach. */
const PG_CONNECT_CODES = new Set([
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "57P03", // cannot_connect_now: starting up or shutting down
  "53300", // too_many_connections
  "08001", // sqlclient_unable_to_establish_sqlconnection
  "08004", // sqlserver_rejected_establishment_of_sqlconnection
]);

/** SQLSTATEs of a server that went away under a connection: class 08 and the shutdowns. */
function pgStateIsOutage(state: string): boolean {
  return state.startsWith("08") || state === "57P01" || state === "57P02" ||
    state === "57P03" || state === "53300";
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * The PostgreSQL driver's error as an outage, or undefined when the store answered (a constraint,
 * a syntax error: the statement's own failure). The reason names the code, never the address.
 */
export function postgresOutage(error: unknown): Unavailable | undefined {
  if (error instanceof Unavailable) return error;
  const code = codeOf(error);
  if (code === undefined) return undefined;
  if (!PG_CONNECTION_CODES.has(code) && !pgStateIsOutage(code)) return undefined;
  return new Unavailable(`the metadata store is unreachable (${code})`);
}

/** True when the error says no connection could be opened at all (see `OutageGate`). */
export function postgresCannotConnect(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && PG_CONNECT_CODES.has(code);
}

/** SQLite primary result codes that say the file cannot be used right now, not the statement. */
const SQLITE_OUTAGE: Record<number, string> = {
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  8: "SQLITE_READONLY",
  10: "SQLITE_IOERR",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
};

/** SQLite's own texts for those codes: `exec()` (BEGIN, COMMIT) reports no code, only them. */
const SQLITE_OUTAGE_TEXT: Record<string, number> = {
  "database is locked": 5,
  "database table is locked": 6,
  "attempt to write a readonly database": 8,
  "disk I/O error": 10,
  "database or disk is full": 13,
  "unable to open database file": 14,
};

/** The embedded store's error as an outage (locked past the busy timeout, I/O, disk full). */
export function sqliteOutage(error: unknown): Unavailable | undefined {
  if (error instanceof Unavailable) return error;
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (e?.code !== "ERR_SQLITE_ERROR") return undefined;
  const text = String(e.message);
  const code = typeof e.errcode === "number" ? e.errcode & 0xff : SQLITE_OUTAGE_TEXT[text];
  const name = code === undefined ? undefined : SQLITE_OUTAGE[code];
  if (!name) return undefined;
  return new Unavailable(`the metadata store cannot be used (${name}: ${text})`);
}

/** How long a store that could not be reached is not asked again, but for one probe. */
const PROBE_INTERVAL_MS = 250;

/**
 * How long one probe may keep the others out. The driver bounds its connect (5 s), but a query
 * queued while the server closes connections during its start can stay pending for good
 * (postgres.js 3.4.9, porsager/postgres#1193): a probe that never settled kept the gate shut, so
 * the store stayed down, and the replica unready, after the server was back.
 */
export const PROBE_HELD_MAX_MS = 6_000;

/**
 * Fails fast while the store is known to be unreachable. After a connection could not be opened,
 * calls fail at once with that outage instead of each waiting for the driver's connect timeout or
 * reconnect backoff, except one probe at a time (at most one per PROBE_INTERVAL_MS), which goes to
 * the driver: the first success opens the gate again. A statement that failed on a connection the
 * server dropped does not close the gate: the next one may find a good connection.
 */
export class OutageGate {
  #down: Unavailable | undefined;
  /** When the probe under way began; undefined when none is. */
  #probingSince: number | undefined;
  #nextProbeAt = 0;
  readonly #now: () => number;

  constructor(now: () => number = performance.now.bind(performance)) {
    this.#now = now;
  }

  /** The outage while the store is known down, else undefined. */
  get down(): Unavailable | undefined {
    return this.#down;
  }

  /**
   * Before a call: throws the outage while the store is down and this call may not probe; true
   * when this call is the probe (hand it back to `settled`).
   */
  enter(): boolean {
    const down = this.#down;
    if (down === undefined) return false;
    const now = this.#now();
    const probing = this.#probingSince !== undefined &&
      now - this.#probingSince < PROBE_HELD_MAX_MS;
    if (probing || now < this.#nextProbeAt) throw down;
    this.#probingSince = now;
    this.#nextProbeAt = now + PROBE_INTERVAL_MS;
    return true;
  }

  /**
   * After a call (`error` undefined for a success): what the caller should throw, the outage for
   * a driver's outage error. Any answer of the server, a refusal included, opens the gate.
   */
  settled(probe: boolean, error?: unknown): unknown {
    if (probe) this.#probingSince = undefined;
    const outage = error === undefined ? undefined : postgresOutage(error);
    if (outage === undefined) {
      this.#down = undefined;
      return error;
    }
    if (postgresCannotConnect(error)) {
      this.#down = outage;
      this.#nextProbeAt = this.#now() + PROBE_INTERVAL_MS;
    }
    return outage;
  }
}
