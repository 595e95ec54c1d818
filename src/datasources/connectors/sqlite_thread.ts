/**
 * A SQLite connection that runs in a worker (`sqlite_worker.ts`), so node:sqlite's synchronous
 * statements never hold the server's event loop: a long statement costs only the execution that
 * waits for it. An abort terminates the worker (the request fails with the signal's reason at
 * once, the connection is gone, and the pool opens a fresh one on the next lease).
 *
 * Limit: terminating a worker stops it at its next JavaScript step. A read returns to JavaScript
 * at every row, so it stops at once; a statement that computes for long before its first row
 * (an aggregate over a huge recursive CTE) keeps its thread busy until SQLite returns, though
 * nothing waits for it and its connection is already replaced (node:sqlite has no interrupt).
 */
import type { SQLInputValue } from "node:sqlite";
import { assets } from "../../lib/assets.ts";
import type { ColumnSchema, WireValue } from "./types.ts";

export type SqliteRequest =
  | { op: "open"; path: string; readOnly: boolean; busyTimeout: number }
  | {
    op: "query";
    sql: string;
    values: SQLInputValue[];
    batchRows: number;
    readOnly: boolean;
    /** SQLite's own length limit for the statement (SQLITE_LIMIT_LENGTH). */
    maxCellBytes: number;
  }
  | { op: "next"; cursor: number; rows: number }
  | { op: "close"; cursor: number }
  | { op: "exec"; sql: string }
  | { op: "run"; sql: string; values: SQLInputValue[] }
  | { op: "all"; sql: string; values: SQLInputValue[] }
  | { op: "batch"; statements: { sql: string; values: SQLInputValue[] }[] }
  | { op: "shut" };

/** An error as it crosses from the worker: node:sqlite's fields kept for classification. */
export interface WorkerError {
  name: string;
  message: string;
  code?: string;
  errcode?: number;
  errstr?: string;
  /** Why SQLite's authorizer refused the statement (`sqlite_policy.ts`). */
  refused?: string;
}

/** A cursor's next batch; `ended` says the read is complete (a batch cut by bytes is shorter). */
export interface NextBatch {
  rows: WireValue[][];
  ended: boolean;
}

export interface Opened {
  /** 0 when `rows` is the whole result. */
  cursor: number;
  schema: ColumnSchema[];
  rows: WireValue[][];
}

type Reply = { id: number; ok: true; value: unknown; tx: boolean } | {
  id: number;
  ok: false;
  error: WorkerError;
  tx: boolean;
};

const WORKER_URL = assets.url("src/datasources/connectors/sqlite_worker.ts");

interface ThreadSpec {
  path: string;
  readOnly?: boolean;
  busyTimeout?: number;
}

/** Every SQLite worker not yet ended, for `SqliteThread.stats()`. */
const threads = new Set<SqliteThread>();

export class SqliteThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  readonly #opened: Promise<unknown>;
  #seq = 0;
  #ended: unknown;
  #inTransaction = false;
  /** The worker has started and opened its database. */
  #open = false;

  readonly #spec: ThreadSpec;

  /**
   * Starts the worker (or takes over `worker`, see `reopen`) and opens `path` there; `ready()`
   * tells whether that worked.
   */
  constructor(spec: ThreadSpec, worker?: Worker) {
    threads.add(this);
    this.#spec = spec;
    this.#worker = worker ?? new Worker(WORKER_URL, { type: "module", name: "sqlite" });
    this.#worker.onmessage = (event: MessageEvent<Reply>) => this.#settle(event.data);
    this.#worker.onerror = (event) => {
      event.preventDefault();
      this.terminate(new Error(`the SQLite worker failed: ${event.message}`));
    };
    this.#opened = this.request({
      op: "open",
      path: spec.path,
      readOnly: spec.readOnly === true,
      busyTimeout: spec.busyTimeout ?? 5000,
    });
    this.#opened.then(() => (this.#open = true), () => {});
  }

  /** Resolves once the database is open; rejects with why it could not be (and ends the worker). */
  async ready(signal?: AbortSignal): Promise<this> {
    try {
      await this.#abortable(this.#opened, signal);
      return this;
    } catch (error) {
      this.terminate(error);
      throw error;
    }
  }

  /** Workers in this process: started and not ended, and of those, the ones running SQL. */
  static stats(): { live: number; busy: number } {
    let busy = 0;
    for (const t of threads) if (t.#open && t.#pending.size > 0) busy++;
    return { live: threads.size, busy };
  }

  get alive(): boolean {
    return this.#ended === undefined;
  }

  /** Whether the connection is inside a transaction, as of its last answer. */
  get inTransaction(): boolean {
    return this.alive && this.#inTransaction;
  }

  /** Sends one request; `signal` aborting terminates the worker and rejects with its reason. */
  request<T>(request: SqliteRequest, signal?: AbortSignal): Promise<T> {
    if (!this.alive) return Promise.reject(this.#ended);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = ++this.#seq;
    const reply = new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    });
    this.#worker.postMessage({ ...request, id });
    return this.#abortable(reply, signal);
  }

  /** Ends the worker now, whatever it is doing; every waiting request fails with `reason`. */
  terminate(reason: unknown = new Error("the SQLite connection is closed")): void {
    if (!this.alive) return;
    this.#ended = reason;
    threads.delete(this);
    this.#worker.terminate();
    for (const p of this.#pending.values()) p.reject(reason);
    this.#pending.clear();
  }

  /**
   * Closes this connection's database but keeps its worker, whose start costs far more than a
   * database (the SQLite staging pool reuses it): answers a new connection on the same worker
   * with the same database path opened afresh, or undefined when the worker cannot go on (it
   * ended, or a request was still under way). This connection ends either way, so a request made
   * through it later fails instead of reaching the next database; the worker keeps nothing of
   * the closed one (its cursors and prepared statements go with it: `shut`).
   */
  async reopen(): Promise<SqliteThread | undefined> {
    const idle = () => this.alive && this.#pending.size === 0;
    const shut = idle() && await this.request({ op: "shut" }).then(() => true, () => false);
    if (!shut || !idle()) {
      this.terminate();
      return undefined;
    }
    this.#ended = new Error("the SQLite connection is closed");
    threads.delete(this);
    return new SqliteThread(this.#spec, this.#worker);
  }

  /** Closes the database in the worker, then ends the worker. */
  async close(): Promise<void> {
    if (!this.alive) return;
    try {
      await this.request({ op: "shut" });
    } catch {
      // Ending the worker closes its database anyway.
    }
    this.terminate();
  }

  #abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
    if (!signal) return promise;
    const onAbort = () => this.terminate(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    return promise.finally(() => signal.removeEventListener("abort", onAbort));
  }

  #settle(reply: Reply): void {
    const waiting = this.#pending.get(reply.id);
    if (!waiting) return;
    this.#pending.delete(reply.id);
    this.#inTransaction = reply.tx;
    if (reply.ok) waiting.resolve(reply.value);
    else waiting.reject(toError(reply.error));
  }
}

function toError(e: WorkerError): Error {
  const error = new Error(e.message);
  error.name = e.name;
  const { code, errcode, errstr, refused } = e;
  return Object.assign(error, {
    ...(code !== undefined ? { code } : {}),
    ...(errcode !== undefined ? { errcode } : {}),
    ...(errstr !== undefined ? { errstr } : {}),
    ...(refused !== undefined ? { refused } : {}),
  });
}
