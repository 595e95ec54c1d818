/**
 * Group commit: small writes queued by independent requests are written in one transaction. A
 * batch gathers while the event loop is busy queueing more (each turn brings rows of other
 * requests, for at most a couple of milliseconds) and is written on the first turn that brings
 * none. A short pipeline run once wrote about fourteen rows (its record, a frame per event, the
 * final record, its `endpoint.served` audit row); one autocommit statement each was most of its
 * cost, and a commit per row is what the store charges for. A serve now writes three, as one unit
 * (`insertAll`).
 *
 * What a caller keeps:
 * - Writes happen in the order they were queued; a write's promise settles once its row is
 *   committed (or refused). A caller that must not go on before the row is stored awaits it.
 * - A chain (a run's id) keeps its rows consistent: after one of its writes fails, its later
 *   writes marked `follows` are refused with that error instead of written (no gap in a stored
 *   stream); `ends` closes the chain.
 * - A failing batch is retried write by write, so one caller's refusal costs no one else a row.
 *
 * A row's values are read when its batch is written, not when it is queued: a caller may keep
 * adding to a row until then (the executions journal gathers a run's frames into one).
 *
 * Rows queued with `insert` that are next to each other in the queue and go to the same table
 * and columns are written by one multi-row INSERT: a run's frames mostly arrive in bursts, and a
 * statement per row cost more than the rows themselves. Being adjacent, they keep the order.
 *
 * One queue per store (`groupCommit(db)`), so every domain's rows share the transaction.
 */
import { setImmediate } from "node:timers";
import { markers } from "./listing.ts";
import type { Db, Queryable, SqlValue } from "./types.ts";

export interface ChainOptions {
  /** The chain this write belongs to. */
  chain?: string;
  /** Refused when an earlier write of the chain failed. */
  follows?: boolean;
  /** The chain's last write: its failure record is dropped afterwards. */
  ends?: boolean;
  /**
   * All or nothing even when the batch is retried write by write (a failing batch): the write
   * then runs in a transaction of its own, not statement by statement.
   */
  atomic?: boolean;
}

/** One row of `table`: `values` in the order of `columns`. */
export interface RowInsert {
  table: string;
  /** Column names, comma-separated, as the INSERT lists them. */
  columns: string;
  values: SqlValue[];
}

interface Queued extends ChainOptions {
  // deno-lint-ignore no-explicit-any
  fn: (q: Queryable) => Promise<any>;
  /** Set for `insert`: may join its neighbours' INSERT. */
  row?: RowInsert;
  /** Set for `insertAll`: rows written together or not at all. */
  rows?: readonly RowInsert[];
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** The longest a batch gathers while every turn of the event loop brings more writes. */
const WINDOW_MS = 2;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

type Store = Queryable & Partial<Pick<Db, "transaction">>;

export class GroupCommit {
  readonly #db: Store;
  #queue: Queued[] = [];
  #scheduled = false;
  #flushing: Promise<void> = Promise.resolve();
  readonly #failed = new Map<string, unknown>();
  readonly #windowMs: number;
  #observer?: (writes: number, seconds: number) => void;

  constructor(db: Store, options: { windowMs?: number } = {}) {
    this.#db = db;
    this.#windowMs = options.windowMs ?? WINDOW_MS;
  }

  /** Queues `fn` for the next batch; settles with its result once committed. */
  write<T>(fn: (q: Queryable) => Promise<T>, options: ChainOptions = {}): Promise<T> {
    return this.#enqueue(fn, options);
  }

  /** Queues one row's INSERT (see above); settles with 1 once committed. */
  insert(row: RowInsert, options: ChainOptions = {}): Promise<number> {
    return this.#enqueue((q) => q.execute(rowInsertSql(row), row.values), options, row);
  }

  /**
   * Queues rows of several tables that are stored together or not at all (a run's record, its
   * frames and what goes with its ending); settles with their count once committed. Units of the
   * same shape next to each other in the queue are written table by table, one multi-row INSERT
   * per table, in the units' order of tables (so a row that references an earlier table's row of
   * its unit still comes after it).
   */
  insertAll(rows: readonly RowInsert[], options: ChainOptions = {}): Promise<number> {
    const fn = async (q: Queryable) => {
      for (const row of rows) await q.execute(rowInsertSql(row), row.values);
      return rows.length;
    };
    return this.#enqueue(fn, { ...options, atomic: true }, undefined, rows);
  }

  #enqueue<T>(
    fn: (q: Queryable) => Promise<T>,
    options: ChainOptions,
    row?: RowInsert,
    rows?: readonly RowInsert[],
  ) {
    const done = new Promise<T>((resolve, reject) =>
      this.#queue.push({
        fn,
        row,
        rows,
        resolve: resolve as (v: unknown) => void,
        reject,
        ...options,
      })
    );
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#gather(performance.now(), this.#queue.length);
    }
    return done;
  }

  /**
   * Waits a turn of the event loop at a time (after its I/O) while each turn queues more writes:
   * other requests are under way, and a commit costs about the same for one run's rows as for
   * several runs' (its pages are shared), so under load that cost, not the wait, bounds
   * throughput. The first turn that brings nothing flushes: nobody else's rows are coming, and
   * waiting would only add latency (a fixed timer here cost an idle serve ~3 ms per commit).
   */
  #gather(began: number, seen: number): void {
    setImmediate(() => {
      const queued = this.#queue.length;
      if (queued > seen && performance.now() - began < this.#windowMs) {
        this.#gather(began, queued);
      } else this.#flushing = this.#flushing.then(() => this.#flush());
    });
  }

  /** Tells `observer` each batch's size and how long writing it took (the metrics' hook). */
  observe(observer: (writes: number, seconds: number) => void): void {
    this.#observer = observer;
  }

  /** Ends `chain` without a write of its own: its failure record is dropped. */
  end(chain: string): void {
    this.#failed.delete(chain);
  }

  /** The first failed write of a chain not yet ended, once known. */
  failure(chain: string): unknown {
    return this.#failed.get(chain);
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length === 0) return;
    const began = performance.now();
    const outcomes = await this.#together(batch) ?? await this.#oneByOne(batch);
    this.#observer?.(batch.length, (performance.now() - began) / 1000);
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
      for (let i = 0; i < batch.length;) {
        if (batch[i].rows) {
          const end = runOfUnits(batch, i);
          await insertUnits(tx, batch.slice(i, end));
          for (let j = i; j < end; j++) out.push({ ok: true, value: batch[j].rows!.length });
          i = end;
          continue;
        }
        const end = runOfRows(batch, i);
        if (end - i === 1) out.push({ ok: true, value: await batch[i].fn(tx) });
        else {
          const values: SqlValue[] = [];
          for (let j = i; j < end; j++) values.push(...batch[j].row!.values);
          await tx.execute(rowInsertSql(batch[i].row!, end - i), values);
          for (let j = i; j < end; j++) out.push({ ok: true, value: 1 });
        }
        i = end;
      }
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
        const db = this.#db;
        const atomic = q.atomic && db.transaction;
        out.push({ ok: true, value: await (atomic ? db.transaction!(q.fn) : q.fn(db)) });
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

/** Rows per INSERT: far inside both stores' limits on bound values, and on statement size. */
const MAX_ROWS = 64;

/** Where the run of rows joinable with `batch[from]` ends (exclusive); from + 1 for a write. */
function runOfRows(batch: Queued[], from: number): number {
  const row = batch[from].row;
  let end = from + 1;
  if (!row) return end;
  while (end < batch.length && end - from < MAX_ROWS) {
    const next = batch[end].row;
    if (next?.table !== row.table || next.columns !== row.columns) break;
    end++;
  }
  return end;
}

/** The shape of a unit: its tables and columns in order. */
const shapeOf = (rows: readonly RowInsert[]) =>
  rows.map((r) => `${r.table}(${r.columns})`).join(";");

/** Where the run of units shaped like `batch[from]` ends (exclusive). */
function runOfUnits(batch: Queued[], from: number): number {
  const shape = shapeOf(batch[from].rows!);
  let end = from + 1;
  while (end < batch.length && batch[end].rows && shapeOf(batch[end].rows!) === shape) end++;
  return end;
}

/** Units of one shape: each table's rows of every unit in one INSERT (up to MAX_ROWS). */
async function insertUnits(tx: Queryable, units: Queued[]): Promise<void> {
  const width = units[0].rows!.length;
  for (let t = 0; t < width; t++) {
    for (let i = 0; i < units.length; i += MAX_ROWS) {
      const chunk = units.slice(i, i + MAX_ROWS).map((u) => u.rows![t]);
      await tx.execute(rowInsertSql(chunk[0], chunk.length), chunk.flatMap((r) => r.values));
    }
  }
}

/** The INSERT of `n` rows, built once per shape (the store caches its statements by text). */
const statements = new Map<string, string[]>();
export function rowInsertSql(row: RowInsert, n = 1): string {
  const key = `${row.table}(${row.columns})`;
  let byCount = statements.get(key);
  if (!byCount) statements.set(key, byCount = []);
  const width = row.values.length;
  return byCount[n] ??= `INSERT INTO ${key} VALUES ` + Array.from(
    { length: n },
    (_, r) => `(${markers(width, r * width + 1)})`,
  ).join(", ");
}

const queues = new WeakMap<object, GroupCommit>();

/** The store's one group-commit queue. */
export function groupCommit(db: Store): GroupCommit {
  let queue = queues.get(db);
  if (!queue) queues.set(db, queue = new GroupCommit(db));
  return queue;
}
