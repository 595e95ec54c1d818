/**
 * Group commit: small writes queued by independent requests in one turn of the event loop (or,
 * while the store is busy, within a couple of milliseconds) are written in one transaction. A short pipeline run writes about fourteen rows (its record, a frame
 * per event, the final record, its `endpoint.served` audit row); one autocommit statement each was
 * most of its cost, and a commit per row is what the store charges for.
 *
 * What a caller keeps:
 * - Writes happen in the order they were queued; a write's promise settles once its row is
 *   committed (or refused). A caller that must not go on before the row is stored awaits it.
 * - A chain (a run's id) keeps its rows consistent: after one of its writes fails, its later
 *   writes marked `follows` are refused with that error instead of written (no gap in a stored
 *   stream); `ends` closes the chain.
 * - A failing batch is retried write by write, so one caller's refusal costs no one else a row.
 *
 * One queue per store (`groupCommit(db)`), so every domain's rows share the transaction.
 */
import { setImmediate } from "node:timers";
import type { Db, Queryable } from "./types.ts";

export interface ChainOptions {
  /** The chain this write belongs to. */
  chain?: string;
  /** Refused when an earlier write of the chain failed. */
  follows?: boolean;
  /** The chain's last write: its failure record is dropped afterwards. */
  ends?: boolean;
}

interface Queued extends ChainOptions {
  // deno-lint-ignore no-explicit-any
  fn: (q: Queryable) => Promise<any>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** How long a batch waits for more writes when the store is busy. */
const WINDOW_MS = 2;
/** Busy: the previous batch began less than this long ago (100 batches a second or more). */
const BUSY_MS = 10;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

type Store = Queryable & Partial<Pick<Db, "transaction">>;

export class GroupCommit {
  readonly #db: Store;
  #queue: Queued[] = [];
  #scheduled = false;
  #flushing: Promise<void> = Promise.resolve();
  readonly #failed = new Map<string, unknown>();
  #lastFlushAt = -Infinity;
  readonly #windowMs: number;
  readonly #busyMs: number;

  constructor(db: Store, options: { windowMs?: number; busyMs?: number } = {}) {
    this.#db = db;
    this.#windowMs = options.windowMs ?? WINDOW_MS;
    this.#busyMs = options.busyMs ?? BUSY_MS;
  }

  /** Queues `fn` for the next batch; settles with its result once committed. */
  write<T>(fn: (q: Queryable) => Promise<T>, options: ChainOptions = {}): Promise<T> {
    const done = new Promise<T>((resolve, reject) =>
      this.#queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, ...options })
    );
    if (!this.#scheduled) {
      this.#scheduled = true;
      const flush = () => {
        this.#flushing = this.#flushing.then(() => this.#flush());
      };
      // Idle: after the microtasks already queued, so a burst of writes lands in one batch, and
      // without the nested-timer clamp a setTimeout chain would add. Busy (the last batch began
      // moments ago): wait a little for other requests' rows, since a commit costs about the
      // same for one run's rows as for several runs' (its pages are shared), and under load
      // that cost, not the wait, is what bounds throughput.
      if (performance.now() - this.#lastFlushAt < this.#busyMs) setTimeout(flush, this.#windowMs);
      else setImmediate(flush);
    }
    return done;
  }

  /** The first failed write of a chain not yet ended, once known. */
  failure(chain: string): unknown {
    return this.#failed.get(chain);
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    this.#lastFlushAt = performance.now();
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    const outcomes = await this.#together(batch) ?? await this.#oneByOne(batch);
    batch.forEach((q, i) => {
      if (q.chain !== undefined && q.ends) this.#failed.delete(q.chain);
      const outcome = outcomes[i];
      if (outcome.ok) q.resolve(outcome.value);
      else q.reject(outcome.error);
    });
  }

  /** The whole batch in one transaction; undefined when any write failed (all rolled back). */
  async #together(batch: Queued[]): Promise<Outcome[] | undefined> {
    if (batch.some((q) => q.chain !== undefined && this.#failed.has(q.chain))) return undefined;
    const all = async (tx: Queryable) => {
      const out: Outcome[] = [];
      for (const q of batch) out.push({ ok: true, value: await q.fn(tx) });
      return out;
    };
    try {
      const db = this.#db;
      return db.transaction ? await db.transaction(all) : await all(db);
    } catch {
      return undefined;
    }
  }

  async #oneByOne(batch: Queued[]): Promise<Outcome[]> {
    const out: Outcome[] = [];
    for (const q of batch) {
      const earlier = q.chain === undefined ? undefined : this.#failed.get(q.chain);
      if (earlier !== undefined && q.follows) {
        out.push({ ok: false, error: earlier });
        continue;
      }
      try {
        out.push({ ok: true, value: await q.fn(this.#db) });
      } catch (error) {
        if (q.chain !== undefined && !q.ends && earlier === undefined) {
          this.#failed.set(q.chain, error);
        }
        out.push({ ok: false, error });
      }
    }
    return out;
  }
}

const queues = new WeakMap<object, GroupCommit>();

/** The store's one group-commit queue. */
export function groupCommit(db: Store): GroupCommit {
  let queue = queues.get(db);
  if (!queue) queues.set(db, queue = new GroupCommit(db));
  return queue;
}
