/**
 * An execution's trace rows through the store's group commit (store/group_commit.ts): its record,
 * its frames (progress samples included, docs/decisions.md#every-event-is-durable) and its final
 * record, written in emission order with every other run's rows of the same turn, each run a chain
 * so a refused batch (the reaper stored the run's ending first) stops its later frames. Followers
 * are woken once per run and batch, after the rows are stored.
 *
 * Rows are made when their batch is written, not when queued: a run's frames join ONE row per
 * batch (frame_batch.ts) until the group commit takes it, and a run that ends before its record was
 * written is written once, in its final state, with its frames. A serve's durable work is then one
 * execution row, one frames row and its `endpoint.served` row, in one transaction.
 *
 * A run whose rows the store refused (an outage of the metadata store) keeps them here, each
 * frame with the instant it was observed, and its ending goes to `PendingEndings` (settle.ts):
 * written with them in one transaction once the store is back. Until then this instance holds the
 * run (`held`), so its heartbeat keeps it from the reaper; a run it gives up stops being held.
 */
import type { Logger } from "../lib/log.ts";
import { Unavailable } from "../lib/unavailable.ts";
import { type ChainOptions, type GroupCommit, groupCommit, type RowInsert } from "../store/mod.ts";
import type { EventFrame } from "./event_order.ts";
import { FrameBatch, frameTuple } from "./frame_batch.ts";
import { ExecutionRepo, executionRow } from "./repo.ts";
import { PendingEndings, type Settled, type Store, type Unstored } from "./settle.ts";
import type { ExecutionRecord } from "./types.ts";

interface OpenBatch {
  batch: FrameBatch;
  written: Promise<number>;
}

/** The ids of runs that got frames stored, and of runs whose final record was stored. */
export type StoredListener = (events: Set<string>, finished: Set<string>) => void;

export interface JournalOptions {
  logger?: Logger;
  /** The first retry of an unstored ending (see `PendingEndings`). */
  retryDelayMs?: number;
}

export class ExecutionJournal {
  readonly #queue: GroupCommit;
  readonly #stored: StoredListener;
  readonly #logger: Logger | undefined;
  /** Runs started here whose ending is not stored yet: what the store refused of each, in order. */
  readonly #open = new Map<string, Unstored[]>();
  readonly #endings: PendingEndings;
  /** Per run, the frames batch the group commit has not taken yet, and its write. */
  readonly #batches = new Map<string, OpenBatch>();
  /** Per run, its record row while not yet taken: a run ending before then is written once. */
  readonly #unwritten = new Map<string, { record: ExecutionRecord; written: Promise<number> }>();
  #events = new Set<string>();
  #finished = new Set<string>();
  #announcing = false;

  constructor(db: Store, stored: StoredListener, options: JournalOptions = {}) {
    this.#queue = groupCommit(db);
    this.#stored = stored;
    this.#logger = options.logger;
    this.#endings = new PendingEndings({
      db,
      firstDelayMs: options.retryDelayMs,
      settled: (id) => {
        this.#open.delete(id);
        this.#announce(this.#finished, id);
      },
      abandoned: (id, error) => {
        this.#open.delete(id);
        this.#logger?.error("an execution's ending was refused; the reaper will end it", {
          execution_id: id,
          error: error instanceof Error ? error.message : String(error),
        });
      },
    });
  }

  async insert(record: ExecutionRecord, instanceId: string, at: string): Promise<void> {
    const id = record.execution_id;
    this.#open.set(id, []);
    const pending = { record, written: Promise.resolve(0) };
    this.#unwritten.set(id, pending);
    pending.written = this.#insert(
      id,
      null,
      lazyRow(() => {
        if (this.#unwritten.get(id) === pending) this.#unwritten.delete(id);
        return executionRow(pending.record, instanceId, at);
      }),
      { chain: id },
    );
    await pending.written;
  }

  event(executionId: string, frame: EventFrame, at: string): Promise<void> {
    let tuple: string;
    try {
      tuple = frameTuple(frame, at);
    } catch (error) {
      // A payload that is no JSON fails in its place in the chain: later frames are refused.
      this.#batches.delete(executionId);
      const options = { chain: executionId, follows: true };
      return this.#queue.write(() => Promise.reject(error), options).then(() => {});
    }
    let open = this.#batches.get(executionId);
    if (!open) {
      const batch = new FrameBatch(executionId);
      const taken: OpenBatch = { batch, written: Promise.resolve(0) };
      taken.written = this.#insert(
        executionId,
        () => batch.lastId,
        lazyRow(() => {
          if (this.#batches.get(executionId) === taken) this.#batches.delete(executionId);
          return batch.row();
        }),
        { chain: executionId, follows: true },
      );
      this.#batches.set(executionId, open = taken);
    }
    open.batch.add(frame.id, tuple, at);
    return open.written.then(() => this.#announce(this.#events, executionId));
  }

  /**
   * Queues a row made when its batch is written; a refused one is kept for the run's ending
   * (refusals settle in queue order, so the kept rows are in emission order).
   */
  #insert(
    executionId: string,
    lastFrameId: (() => number) | null,
    row: RowInsert,
    options: ChainOptions,
  ): Promise<number> {
    const written = this.#queue.insert(row, options);
    written.catch(() =>
      this.#open.get(executionId)?.push({ frameId: lastFrameId?.() ?? null, row })
    );
    return written;
  }

  /**
   * True when the final record was written; false when the run was already terminal. A run the
   * store refused rows of is not finished by its record alone (its stored stream would lack its
   * ending): the final record is refused with the chain, and the whole ending is written at once,
   * now or, while the store is unavailable, by the pending endings' retries (this then rejects
   * with the store's error).
   */
  async finish(record: ExecutionRecord): Promise<boolean> {
    const id = record.execution_id;
    const unwritten = this.#unwritten.get(id);
    if (unwritten) {
      // Its record row is still queued: it goes in once, as the final record, in the same batch
      // as its frames.
      unwritten.record = record;
      try {
        await unwritten.written;
        await this.#batches.get(id)?.written;
        this.#open.delete(id);
        this.#announce(this.#finished, id);
        return true;
      } catch (error) {
        this.#queue.end(id);
        return await this.#settleRefused(record, error);
      }
    }
    try {
      const written = await this.#queue.write((q) => new ExecutionRepo(q).finish(record), {
        chain: id,
        ends: true,
        follows: true,
      });
      this.#open.delete(id);
      this.#announce(this.#finished, id);
      return written;
    } catch (error) {
      return await this.#settleRefused(record, error);
    }
  }

  async #settleRefused(record: ExecutionRecord, error: unknown): Promise<boolean> {
    const id = record.execution_id;
    const unstored = this.#open.get(id) ?? [];
    this.#endings.add(record, unstored);
    const settled = await this.#endings.settle(id).catch((e) => {
      if (e instanceof Unavailable) throw e;
      throw error;
    });
    return settled === "written";
  }

  /** The first refused write of this run, once known. */
  failure(executionId: string): unknown {
    return this.#queue.failure(executionId);
  }

  /** True while this instance runs the execution or keeps its ending for the store. */
  holds(executionId: string): boolean {
    return this.#open.has(executionId);
  }

  /** Every execution this instance holds (see `holds`): what its heartbeat proves alive. */
  held(): string[] {
    return [...this.#open.keys()];
  }

  /** True while the run's ending waits for the store. */
  pending(executionId: string): boolean {
    return this.#endings.has(executionId);
  }

  /**
   * Writes a pending ending now (a cancel asks): undefined when none is pending here; the store's
   * `Unavailable` while it still cannot take it.
   */
  async settle(executionId: string): Promise<Settled | undefined> {
    return await this.#endings.settle(executionId);
  }

  /** Shutdown: one last try for pending endings; what the store still refuses is left to the reaper. */
  async close(): Promise<void> {
    await this.#endings.retry().catch(() => {});
    await this.#endings.close();
    if (this.#endings.size > 0) {
      this.#logger?.warn("execution endings not stored at shutdown; the reaper will end them", {
        pending: this.#endings.size,
      });
    }
  }

  /** One wake-up per run for everything a batch stored (its writes settle together). */
  #announce(into: Set<string>, id: string): void {
    into.add(id);
    if (this.#announcing) return;
    this.#announcing = true;
    queueMicrotask(() => {
      const events = this.#events;
      const finished = this.#finished;
      this.#events = new Set();
      this.#finished = new Set();
      this.#announcing = false;
      this.#stored(events, finished);
    });
  }
}

/**
 * A row whose values are made the first time the group commit reads them (when its batch is
 * written) and kept from then on: a retry, or the ending written after an outage, writes the
 * same row.
 */
function lazyRow(make: () => RowInsert): RowInsert {
  let made: RowInsert | undefined;
  const get = () => made ??= make();
  return {
    get table() {
      return get().table;
    },
    get columns() {
      return get().columns;
    },
    get values() {
      return get().values;
    },
  };
}
