/**
 * A run's ending after the store refused some of its rows (an outage of the metadata store, most
 * often): everything the store did not take, its record, its frames in order up to the terminal
 * sequence, and its final record, written in one transaction once the store takes writes again,
 * retried with backoff until then. The stored stream ends the way the live one did: the frames the
 * live readers got, with their ids, each once (those already stored are skipped), so the event
 * order holds and exactly one terminal sequence is stored. A run that meanwhile ended elsewhere
 * (reaped) keeps that ending.
 */
import { Unavailable } from "../lib/unavailable.ts";
import { type Db, type Queryable, type RowInsert, rowInsertSql } from "../store/mod.ts";
import { ExecutionRepo } from "./repo.ts";
import type { ExecutionRecord } from "./types.ts";

/** A row the store did not take: the run's record (`frameId` null) or one of its frames. */
export interface Unstored {
  frameId: number | null;
  row: RowInsert;
}

/** The ending was written; another one stood already (reaped); or no record of the run exists. */
export type Settled = "written" | "ended_elsewhere" | "absent";

/** Rows per INSERT, as the group commit joins them. */
const ROWS_PER_INSERT = 64;

/** A store, or a connection already inside a transaction (a test's). */
export type Store = Queryable & Partial<Pick<Db, "transaction">>;

/** Writes `record` as the run's ending, with the `unstored` rows the store lacks, atomically. */
export async function settleRun(
  db: Store,
  record: ExecutionRecord,
  unstored: readonly Unstored[],
): Promise<Settled> {
  const atOnce = <T>(fn: (tx: Queryable) => Promise<T>) =>
    db.transaction ? db.transaction(fn) : fn(db);
  return await atOnce(async (tx) => {
    const repo = new ExecutionRepo(tx);
    const id = record.execution_id;
    const stored = await repo.get(id);
    if (stored && stored.record.status !== "RUNNING") return "ended_elsewhere";
    if (!stored) {
      const started = unstored.find((u) => u.frameId === null);
      if (!started) return "absent";
      await tx.execute(rowInsertSql(started.row), started.row.values);
    }
    const after = stored ? await repo.lastEventId(id) : -1;
    const frames = unstored.filter((u) => u.frameId !== null && u.frameId > after);
    for (let i = 0; i < frames.length; i += ROWS_PER_INSERT) {
      const chunk = frames.slice(i, i + ROWS_PER_INSERT);
      await tx.execute(
        rowInsertSql(chunk[0].row, chunk.length),
        chunk.flatMap((u) => u.row.values),
      );
    }
    await repo.finish(record);
    return "written";
  });
}

export interface PendingEndingsOptions {
  db: Store;
  /** Told once per run no longer pending: its ending is written, or another one stands. */
  settled(executionId: string): void;
  /** Told once per run given up: the store refused its ending for a reason other than an outage. */
  abandoned(executionId: string, error: unknown): void;
  /** The first retry's delay; it doubles up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

interface Pending {
  record: ExecutionRecord;
  unstored: readonly Unstored[];
}

/**
 * Endings waiting for the store: retried, oldest first, with backoff while the store is still
 * unavailable; an ending the store refuses for another reason is given up (the reaper then takes
 * the run: its instance no longer beats for it).
 */
export class PendingEndings {
  readonly #o: PendingEndingsOptions;
  readonly #pending = new Map<string, Pending>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #delayMs: number;
  #round: Promise<void> | undefined;
  #closed = false;

  constructor(options: PendingEndingsOptions) {
    this.#o = options;
    this.#delayMs = options.firstDelayMs ?? 200;
  }

  has(executionId: string): boolean {
    return this.#pending.has(executionId);
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Keeps an ending the store could not take; retried from now on. */
  add(record: ExecutionRecord, unstored: readonly Unstored[]): void {
    this.#pending.set(record.execution_id, { record, unstored });
    this.#schedule();
  }

  /**
   * Tries one run's ending now (a cancel asks): its stored status once written or found ended;
   * the store's error while it is still down.
   */
  async settle(executionId: string): Promise<Settled | undefined> {
    const pending = this.#pending.get(executionId);
    if (!pending) return undefined;
    return await this.#try(executionId, pending);
  }

  /** One round over every pending ending; stops at the first outage (the store is still down). */
  async retry(): Promise<void> {
    this.#round ??= this.#retry().finally(() => this.#round = undefined);
    await this.#round;
  }

  async #retry(): Promise<void> {
    for (const [id, pending] of [...this.#pending]) {
      if (this.#pending.get(id) !== pending) continue;
      try {
        await this.#try(id, pending);
      } catch (error) {
        if (error instanceof Unavailable) return;
      }
    }
  }

  async #try(id: string, pending: Pending): Promise<Settled> {
    try {
      const settled = await settleRun(this.#o.db, pending.record, pending.unstored);
      this.#pending.delete(id);
      this.#o.settled(id);
      this.#delayMs = this.#o.firstDelayMs ?? 200;
      return settled;
    } catch (error) {
      if (!(error instanceof Unavailable)) {
        this.#pending.delete(id);
        this.#o.abandoned(id, error);
      }
      throw error;
    }
  }

  #schedule(): void {
    if (this.#closed || this.#timer !== undefined || this.#pending.size === 0) return;
    this.#timer = setTimeout(async () => {
      await this.retry();
      this.#timer = undefined;
      if (this.#pending.size > 0) {
        this.#delayMs = Math.min(this.#delayMs * 2, this.#o.maxDelayMs ?? 5_000);
      }
      this.#schedule();
    }, this.#delayMs);
  }

  /** Stops retrying (shutdown): what is still pending stays RUNNING in the store, for the reaper. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#round;
  }
}
