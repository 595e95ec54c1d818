/**
 * An execution's trace rows through the store's group commit (store/group_commit.ts): its
 * record, a row per frame (progress samples included, spec 2 §6) and its final record, written
 * in emission order with every other run's rows of the same turn, each run a chain so a refused
 * frame (the reaper stored the run's ending first) stops its later frames. Followers are woken
 * once per run and batch, after the rows are stored. Record and frame rows are queued as rows, so
 * neighbouring ones share an INSERT.
 */
import {
  type ChainOptions,
  type Db,
  type GroupCommit,
  groupCommit,
  type Queryable,
  type RowInsert,
} from "../store/mod.ts";
import type { EventFrame } from "./event_order.ts";
import { eventRow, ExecutionRepo, executionRow } from "./repo.ts";
import type { ExecutionRecord } from "./types.ts";

/** The ids of runs that got frames stored, and of runs whose final record was stored. */
export type StoredListener = (events: Set<string>, finished: Set<string>) => void;

export class ExecutionJournal {
  readonly #queue: GroupCommit;
  readonly #stored: StoredListener;
  #events = new Set<string>();
  #finished = new Set<string>();
  #announcing = false;

  constructor(db: Queryable & Partial<Pick<Db, "transaction">>, stored: StoredListener) {
    this.#queue = groupCommit(db);
    this.#stored = stored;
  }

  async insert(record: ExecutionRecord, instanceId: string, at: string): Promise<void> {
    await this.#insert(() => executionRow(record, instanceId, at), {
      chain: record.execution_id,
    });
  }

  async event(executionId: string, frame: EventFrame, at: string): Promise<void> {
    await this.#insert(() => eventRow(executionId, frame, at), {
      chain: executionId,
      follows: true,
    });
    this.#announce(this.#events, executionId);
  }

  /**
   * Queues a row made now. One that cannot be made (a payload that is no JSON) fails in its place
   * in the chain, so the run's later frames are refused as after any refused row.
   */
  #insert(row: () => RowInsert, options: ChainOptions): Promise<number> {
    let made: RowInsert;
    try {
      made = row();
    } catch (error) {
      return this.#queue.write(() => Promise.reject(error), options);
    }
    return this.#queue.insert(made, options);
  }

  /** True when the final record was written; false when the run was already terminal. */
  async finish(record: ExecutionRecord): Promise<boolean> {
    const id = record.execution_id;
    const written = await this.#queue.write((q) => new ExecutionRepo(q).finish(record), {
      chain: id,
      ends: true,
    });
    this.#announce(this.#finished, id);
    return written;
  }

  /** The first refused write of this run, once known. */
  failure(executionId: string): unknown {
    return this.#queue.failure(executionId);
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
