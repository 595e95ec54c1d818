/**
 * An execution's trace rows through the store's group commit (store/group_commit.ts): its record, a
 * row per frame (progress samples included, docs/decisions.md#every-event-is-durable) and its final
 * record, written in emission order with every other run's rows of the same turn, each run a chain
 * so a refused frame (the reaper stored the run's ending first) stops its later frames. Followers
 * are woken once per run and batch, after the rows are stored. Record and frame rows are queued as
 * rows, so neighbouring ones share an INSERT.
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
import { eventRow, ExecutionRepo, executionRow } from "./repo.ts";
import { PendingEndings, type Settled, type Store, type Unstored } from "./settle.ts";
import type { ExecutionRecord } from "./types.ts";

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
    await this.#insert(id, null, () => executionRow(record, instanceId, at), { chain: id });
  }

  async event(executionId: string, frame: EventFrame, at: string): Promise<void> {
    await this.#insert(executionId, frame.id, () => eventRow(executionId, frame, at), {
      chain: executionId,
      follows: true,
    });
    this.#announce(this.#events, executionId);
  }

  /**
   * Queues a row made now; a refused one is kept for the run's ending (refusals settle in queue
   * order, so the kept rows are in emission order). One that cannot be made (a payload that is no
   * JSON) fails in its place in the chain, so the run's later frames are refused as after any
   * refused row; it is not kept.
   */
  #insert(
    executionId: string,
    frameId: number | null,
    row: () => RowInsert,
    options: ChainOptions,
  ): Promise<number> {
    let made: RowInsert;
    try {
      made = row();
    } catch (error) {
      return this.#queue.write(() => Promise.reject(error), options);
    }
    const written = this.#queue.insert(made, options);
    written.catch(() => this.#open.get(executionId)?.push({ frameId, row: made }));
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
      const unstored = this.#open.get(id) ?? [];
      this.#endings.add(record, unstored);
      const settled = await this.#endings.settle(id).catch((e) => {
        if (e instanceof Unavailable) throw e;
        throw error;
      });
      return settled === "written";
    }
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
