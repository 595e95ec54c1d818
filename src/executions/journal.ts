/**
 * An execution's trace rows through the store's group commit (store/group_commit.ts): its record,
 * its frames (progress samples included, docs/decisions.md#every-event-is-durable) and its final
 * record, written in emission order with every other run's rows of the same turn, each run a chain
 * so a refused batch (the reaper stored the run's ending first) stops its later frames. Followers
 * are woken once per run and batch, after the rows are stored.
 *
 * Rows are made when their batch is written, not when queued: a run's frames join ONE row per
 * batch (frame_batch.ts) until the group commit takes it, and a run that ends before its record was
 * written is written once, in its final state, with its frames.
 *
 * A run nobody reads while it runs (an endpoint's, `hold`) keeps its rows here, not in the queue,
 * for up to `HOLD_MS`: one that ends by then is stored as ONE unit, its final record, one frames
 * row and the rows its caller asked to go with its ending (`EndingRows`: an endpoint's
 * `endpoint.served` row), in one transaction, all or nothing. A run still going then is queued as
 * any other (its record readable, its heartbeat effective); so is a held parent once a child run
 * starts (the child's record names it).
 *
 * A run whose rows the store refused (an outage of the metadata store) keeps them here, each
 * frame with the instant it was observed, and its ending goes to `PendingEndings` (settle.ts):
 * written with them in one transaction once the store is back. Until then this instance holds the
 * run (`held`), so its heartbeat keeps it from the reaper; a run it gives up stops being held.
 */
import type { Logger } from "../lib/log.ts";
import { Unavailable } from "../lib/unavailable.ts";
import {
  type ChainOptions,
  type GroupCommit,
  groupCommit,
  type RowInsert,
  rowInsertSql,
} from "../store/mod.ts";
import type { EventFrame } from "./event_order.ts";
import { FrameBatch, frameTuple, ROW_BYTES, type RunConstants } from "./frame_batch.ts";
import { ExecutionRepo, executionRow } from "./repo.ts";
import { PendingEndings, type Settled, type Store, type Unstored } from "./settle.ts";
import type { ExecutionRecord } from "./types.ts";

interface OpenBatch {
  batch: FrameBatch;
  written: Promise<number>;
  /** What each of its frames' callers gets: one promise for the batch, not one per frame. */
  announced?: Promise<void>;
}

/**
 * How long a held run keeps its rows back: a serve ends well within it, even on a loaded machine;
 * a run that takes longer gets its record stored this late at most. No later: an endpoint's
 * timeout, after which its 202 hands the execution id out (and waits for the record), is at
 * least a second.
 */
export const HOLD_MS = 1000;

/**
 * How many frames rows a run inserts before its next batches extend its last row: a short run's
 * few batches stay rows of their own (joined with other runs' rows in one INSERT, not a statement
 * per run), a long run's progress samples then share rows.
 */
export const SHORT_RUN_ROWS = 4;

/** A run's last frames row as written, and how many rows it inserted. */
interface Tail {
  row: FrameBatch;
  inserted: number;
}

/** A held run: its record and frames, not queued yet. */
interface HeldRun {
  record: ExecutionRecord;
  instanceId: string;
  at: string;
  batch: FrameBatch;
  /** Settles once its rows are stored (as one unit, or queued after the hold). */
  stored: PromiseWithResolvers<void>;
  /** What each of its frames' callers gets: one promise for the run, not one per frame. */
  announced?: Promise<void>;
  timer: ReturnType<typeof setTimeout>;
}

export interface InsertOptions {
  /** Nobody reads the run while it runs: its rows may wait for its end (see above). */
  hold?: boolean;
  /** Rows to store with the run's final record, in its transaction. */
  ending?: EndingRows;
}

/**
 * Rows a caller wants stored in the same transaction as a run's final record (an endpoint's
 * `endpoint.served` row, which names the run's outcome). The journal takes them when it queues
 * the ending; they are stored with it, or, when that write fails or the run ended elsewhere,
 * not at all, and the caller writes its own. A caller that must answer before the run ends
 * withdraws them first.
 */
export class EndingRows {
  #state: "open" | "taken" | "stored" | "dropped" | "withdrawn" = "open";

  constructor(readonly make: (record: ExecutionRecord) => RowInsert[]) {}

  /** The rows for `record`, once; none after a withdrawal. */
  take(record: ExecutionRecord): RowInsert[] {
    if (this.#state !== "open") return [];
    this.#state = "taken";
    return this.make(record);
  }

  /** Tells whether the taken rows were stored. */
  settle(stored: boolean): void {
    if (this.#state === "taken") this.#state = stored ? "stored" : "dropped";
  }

  /**
   * True when the rows will not go with the ending (withdrawn now, or their write failed);
   * false once they are on their way or stored: the run has ended, its outcome is theirs.
   */
  withdraw(): boolean {
    if (this.#state === "open") this.#state = "withdrawn";
    return this.#state === "withdrawn" || this.#state === "dropped";
  }

  /** True once stored with the run's final record. */
  get stored(): boolean {
    return this.#state === "stored";
  }
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
  /** Per run, its last frames row as written, which its next batch may extend (frame_batch.ts). */
  readonly #tails = new Map<string, Tail>();
  /** Per run, its record row while not yet taken: a run ending before then is written once. */
  readonly #unwritten = new Map<string, { record: ExecutionRecord; written: Promise<number> }>();
  /** Runs whose rows wait for their end (see `HOLD_MS`). */
  readonly #held = new Map<string, HeldRun>();
  /** Per run, what its frames' payloads repeat (cut from the stored frames, frame_batch.ts). */
  readonly #constants = new Map<string, RunConstants>();
  /** Per run, what its caller wants stored with its ending. */
  readonly #endingRows = new Map<string, EndingRows>();
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

  async insert(
    record: ExecutionRecord,
    instanceId: string,
    at: string,
    options: InsertOptions = {},
  ): Promise<void> {
    const id = record.execution_id;
    this.#open.set(id, []);
    this.#constants.set(id, {
      execution_id: id,
      pipeline_id: record.pipeline_id,
      correlation_id: record.correlation_id,
    });
    const parent = record.parent_execution_id;
    // A child's record references its parent's row: that one is queued first.
    if (parent !== null) this.#release(parent);
    else if (options.ending) this.#endingRows.set(id, options.ending);
    if (options.hold && parent === null) {
      const held: HeldRun = {
        record,
        instanceId,
        at,
        batch: new FrameBatch(id),
        stored: Promise.withResolvers<void>(),
        timer: setTimeout(() => this.#release(id), HOLD_MS),
      };
      held.stored.promise.catch(() => {});
      this.#held.set(id, held);
      await held.stored.promise;
      return;
    }
    await this.#queueRecord(record, instanceId, at);
  }

  /** Queues the record row, made when its batch is written (so possibly final by then). */
  #queueRecord(record: ExecutionRecord, instanceId: string, at: string): Promise<number> {
    const id = record.execution_id;
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
    return pending.written;
  }

  /** A held run's rows go to the queue as any run's: its hold is over, it is not ending yet. */
  #release(id: string): void {
    const held = this.#held.get(id);
    if (!held) return;
    this.#held.delete(id);
    clearTimeout(held.timer);
    const written = [this.#queueRecord(held.record, held.instanceId, held.at)];
    if (!held.batch.empty) written.push(this.#queueBatch(id, held.batch).written);
    Promise.all(written).then(() => held.stored.resolve(), held.stored.reject);
  }

  event(executionId: string, frame: EventFrame, at: string): Promise<void> {
    const run = this.#constants.get(executionId);
    const held = this.#held.get(executionId);
    let tuple: string;
    try {
      tuple = frameTuple(frame, at, run);
    } catch (error) {
      // A payload that is no JSON fails in its place in the chain: later frames are refused.
      this.#release(executionId);
      this.#batches.delete(executionId);
      const options = { chain: executionId, follows: true };
      return this.#queue.write(() => Promise.reject(error), options).then(() => {});
    }
    if (held) {
      held.batch.add(frame.id, tuple, at);
      return held.announced ??= held.stored.promise.then(() =>
        this.#announce(this.#events, executionId)
      );
    }
    const open = this.#batches.get(executionId) ?? this.#queueBatch(executionId);
    open.batch.add(frame.id, tuple, at);
    return open.announced ??= open.written.then(() => this.#announce(this.#events, executionId));
  }

  /**
   * Queues a frames row, made when its batch is written; frames join it until then. The run's
   * last row takes it while that row is small (frame_batch.ts, `ROW_BYTES`).
   */
  #queueBatch(executionId: string, batch = new FrameBatch(executionId)): OpenBatch {
    const taken: OpenBatch = { batch, written: Promise.resolve(0) };
    const take = () => {
      if (this.#batches.get(executionId) === taken) this.#batches.delete(executionId);
    };
    const options = { chain: executionId, follows: true };
    const tail = this.#tails.get(executionId);
    if (tail && tail.inserted >= SHORT_RUN_ROWS && tail.row.bytes < ROW_BYTES) {
      let row: FrameBatch | undefined;
      // Refused, its frames are kept as a row of their own (settle.ts inserts them), made when
      // read: frames of the run that follow a refusal join it (as they join a refused insert).
      const own = lazyRow(() => {
        take();
        return batch.row();
      });
      const write = this.#queue.write(async (q) => {
        // Made once: a failing batch's retry writes the same row.
        if (!row) {
          take();
          row = tail.row.extended(batch);
          this.#tails.set(executionId, { row, inserted: tail.inserted });
        }
        if (await row.writeOver(q, tail.row)) return 1;
        // That row is gone: this batch is a row of its own, and the one later batches extend.
        if (this.#tails.get(executionId)?.row === row) {
          this.#tails.set(executionId, { row: batch, inserted: tail.inserted + 1 });
        }
        return await q.execute(rowInsertSql(own), own.values);
      }, options);
      taken.written = this.#keepRefused(executionId, () => batch.lastId, own, write);
    } else {
      const row = lazyRow(() => {
        take();
        const inserted = (this.#tails.get(executionId)?.inserted ?? 0) + 1;
        this.#tails.set(executionId, { row: batch, inserted });
        return batch.row();
      });
      taken.written = this.#insert(executionId, () => batch.lastId, row, options);
    }
    this.#batches.set(executionId, taken);
    return taken;
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
    return this.#keepRefused(executionId, lastFrameId, row, written);
  }

  #keepRefused(
    executionId: string,
    lastFrameId: (() => number) | null,
    row: RowInsert,
    written: Promise<number>,
  ): Promise<number> {
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
    this.#constants.delete(id);
    this.#tails.delete(id);
    const ending = this.#endingRows.get(id);
    this.#endingRows.delete(id);
    const held = this.#held.get(id);
    if (held) return await this.#finishHeld(held, record, ending);
    const unwritten = this.#unwritten.get(id);
    if (unwritten) {
      // Its record row is still queued: it goes in once, as the final record, in the same batch
      // as its frames. What goes with the ending is left to its caller (the rows are queued).
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
    const extra = ending?.take(record) ?? [];
    try {
      const written = await this.#queue.write(async (q) => {
        const finished = await new ExecutionRepo(q).finish(record);
        // Not over a stored ending (the reaper's): its caller then writes its own rows.
        if (finished) { for (const row of extra) await q.execute(rowInsertSql(row), row.values); }
        return finished;
      }, { chain: id, ends: true, follows: true, atomic: extra.length > 0 });
      ending?.settle(written);
      this.#open.delete(id);
      this.#announce(this.#finished, id);
      return written;
    } catch (error) {
      ending?.settle(false);
      return await this.#settleRefused(record, error);
    }
  }

  /**
   * A held run's ending: its final record, its frames and its caller's rows as one unit. Refused,
   * the record and frames are kept for the pending ending as any run's (settle.ts), and the
   * caller's rows are dropped (the caller writes its own).
   */
  async #finishHeld(
    held: HeldRun,
    record: ExecutionRecord,
    ending: EndingRows | undefined,
  ): Promise<boolean> {
    const id = record.execution_id;
    this.#held.delete(id);
    clearTimeout(held.timer);
    const unstored: Unstored[] = [{
      frameId: null,
      row: executionRow(record, held.instanceId, held.at),
    }];
    if (!held.batch.empty) unstored.push({ frameId: held.batch.lastId, row: held.batch.row() });
    const rows = [...unstored.map((u) => u.row), ...(ending?.take(record) ?? [])];
    try {
      await this.#queue.insertAll(rows, { chain: id, ends: true });
      ending?.settle(true);
      held.stored.resolve();
      this.#open.delete(id);
      this.#announce(this.#finished, id);
      return true;
    } catch (error) {
      ending?.settle(false);
      held.stored.reject(error);
      this.#open.get(id)?.push(...unstored);
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
