/**
 * What keeps the executions tables flat under a steady load (every endpoint serve adds a run):
 *
 * - Record retention: execution records older than `service.executions.record-retention-days`
 *   go, with any events left (ON DELETE CASCADE); the history starts there.
 * - Packed streams: once a run's replay window has passed, nothing replays its stream live, so
 *   its frames move into one compressed row (packed_events.ts), `data_ready` without `rows` (the
 *   first result page; the result itself has its own TTL in the result store).
 * - The embedded store gives the freed pages back to the file system (incremental vacuum).
 *
 * Every step works in bounded batches, each its own short transaction, so a sweep never holds
 * the store's write lock (SQLite) or a long-lived snapshot (PostgreSQL) for long. Each batch first
 * takes its row of `housekeeping_marks` (FOR UPDATE SKIP LOCKED on PostgreSQL), so of several
 * replicas one sweeps at a time and the others skip the round.
 */
import { toIso } from "../lib/time.ts";
import { type Db, markers, type Queryable, type SqlValue } from "../store/mod.ts";
import { FRAMES, parseBatch } from "./frame_batch.ts";
import { PACKED, packFrames, type StoredFrame } from "./packed_events.ts";
import { idFloor, runConstants } from "./repo.ts";

const DAY_MS = 86_400_000;

/**
 * Runs per batch: with a dozen frames each, a few thousand rows per transaction, and packing them
 * (JSON and Brotli, ~0.2 ms a run) holds the embedded store's write lock some 40 ms at most.
 */
export const SWEEP_BATCH = 200;

/** Pages per `PRAGMA incremental_vacuum` call (4 KiB each): 40 MB a round at most. */
const VACUUM_PAGES = 10_000;

/** The mark below every execution id (UUIDv7, lib/ids.ts). */
const LOWEST_ID = "00000000-0000-0000-0000-000000000000";

export interface RetentionOptions {
  /** 0 keeps records forever. */
  recordRetentionDays: number;
  replayWindowMs: number;
  now: () => number;
  batch?: number;
}

export interface SweepCounts {
  records: number;
  /** Runs whose frames were packed into one row. */
  packed: number;
  pagesFreed: number;
}

export class RetentionSweeps {
  readonly #db: Db;
  readonly #o: RetentionOptions;

  constructor(db: Db, options: RetentionOptions) {
    this.#db = db;
    this.#o = options;
  }

  get #batch(): number {
    return this.#o.batch ?? SWEEP_BATCH;
  }

  /** Every step once: records, then packing the streams, then the embedded store's free pages. */
  async sweep(): Promise<SweepCounts> {
    const records = await this.deleteOldRecords();
    const packed = await this.packStreams();
    const pagesFreed = await reclaimSpace(this.#db);
    return { records, packed, pagesFreed };
  }

  /**
   * Deletes terminal records that started before the retention cutoff, newest first, a batch at
   * a time; returns how many went. Newest first so a child run (minted after its parent) goes in
   * the same batch as its parent or an earlier one; a parent whose child is kept (still within
   * the period, or RUNNING) stays until the child goes.
   */
  async deleteOldRecords(): Promise<number> {
    const days = this.#o.recordRetentionDays;
    if (days <= 0) return 0;
    const cutoffMs = this.#o.now() - days * DAY_MS;
    const cutoff = new Date(cutoffMs).toISOString();
    // Ids are minted at a run's start: the primary key's range below the cutoff's id (a minute
    // of slack for a clock behind) holds every such record; started_at decides.
    let below = idFloor(cutoffMs + 60_000);
    let deleted = 0;
    for (;;) {
      const step = await this.#locked("execution_records", async (tx) => {
        const ids = (await tx.query<{ id: unknown }>(
          `SELECT id FROM executions WHERE id < $1 AND started_at < $2 AND status <> 'RUNNING'
           ORDER BY id DESC LIMIT ${this.#batch}`,
          [below, cutoff],
        )).map((r) => String(r.id));
        if (ids.length === 0) return { ids, gone: 0 };
        const n = ids.length;
        const gone = await tx.execute(
          `DELETE FROM executions WHERE id IN (${markers(n)}) AND NOT EXISTS (
             SELECT 1 FROM executions c WHERE c.parent_execution_id = executions.id
             AND c.id NOT IN (${markers(n, n + 1)}))`,
          [...ids, ...ids] as SqlValue[],
        );
        return { ids, gone };
      });
      if (!step) return deleted; // another replica sweeps
      deleted += step.gone;
      if (step.ids.length < this.#batch) return deleted;
      below = step.ids.at(-1)!;
    }
  }

  /**
   * Packs the stored frames of each run whose replay window has passed into one row
   * (packed_events.ts), walking execution ids upward from the stored mark; returns how many runs
   * it packed. The walk stops below the oldest RUNNING run (its frames are still coming) and at
   * the first run still inside its window, so no run is passed over.
   */
  async packStreams(): Promise<number> {
    let packed = 0;
    for (;;) {
      const step = await this.#locked("packed_events", async (tx, mark) => {
        const windowEnd = this.#o.now() - this.#o.replayWindowMs;
        const running = await tx.first<{ id: unknown }>(
          // Few rows, all in executions_running (PostgreSQL has no MIN of a uuid).
          `SELECT id FROM executions WHERE status = 'RUNNING' ORDER BY id LIMIT 1`,
        );
        let upper = idFloor(windowEnd);
        if (running?.id != null && String(running.id) < upper) upper = String(running.id);
        const runs = await tx.query<{ id: unknown; completed_at: unknown }>(
          `SELECT id, completed_at FROM executions WHERE id > $1 AND id < $2
           ORDER BY id LIMIT ${this.#batch}`,
          [mark, upper],
        );
        const ripe: string[] = [];
        for (const run of runs) {
          // Inside its window yet: this run and the ones after it wait.
          if (!(Date.parse(toIso(run.completed_at) ?? "") <= windowEnd)) break;
          ripe.push(String(run.id));
        }
        const done = ripe.length === 0 ? 0 : await packRuns(tx, ripe);
        if (ripe.length > 0) {
          await tx.execute(`UPDATE housekeeping_marks SET mark = $2 WHERE name = $1`, [
            "packed_events",
            ripe.at(-1)!,
          ]);
        }
        return { done, more: ripe.length === this.#batch };
      });
      if (!step) return packed;
      packed += step.done;
      if (!step.more) return packed;
    }
  }

  /**
   * One batch in its own transaction holding the sweep's mark row; undefined when another
   * replica holds it (PostgreSQL). SQLite's write transaction excludes the others already.
   */
  async #locked<T>(
    name: string,
    fn: (tx: Queryable, mark: string) => Promise<T>,
  ): Promise<T | undefined> {
    return await this.#db.transaction(async (tx) => {
      const lock = tx.dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
      const row = await tx.first<{ mark: string }>(
        `SELECT mark FROM housekeeping_marks WHERE name = $1${lock}`,
        [name],
      );
      if (!row) return undefined;
      return await fn(tx, row.mark || LOWEST_ID);
    });
  }
}

/**
 * Gives the embedded store's free pages back to the file system (PRAGMA incremental_vacuum,
 * which needs auto_vacuum = INCREMENTAL: see ensureIncrementalVacuum), then checkpoints the WAL
 * so the shorter file is the database file's too; returns the pages freed. PostgreSQL's
 * autovacuum does its own (docs/operations.md), so there it does nothing.
 */
export async function reclaimSpace(db: Queryable, pages = VACUUM_PAGES): Promise<number> {
  if (db.dialect !== "sqlite") return 0;
  const before = await db.first<{ freelist_count: number }>("PRAGMA freelist_count");
  // Each freed page is a result row of the pragma: query() steps it to the end.
  await db.query(`PRAGMA incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
  const after = await db.first<{ freelist_count: number }>("PRAGMA freelist_count");
  await db.query("PRAGMA wal_checkpoint(PASSIVE)");
  return Number(before?.freelist_count ?? 0) - Number(after?.freelist_count ?? 0);
}

/** Packs the frame rows of `ids` (terminal runs) into one row each; returns how many it packed. */
async function packRuns(tx: Queryable, ids: string[]): Promise<number> {
  const rows = await tx.query<{
    execution_id: unknown;
    event_id: unknown;
    event_type: string;
    data: string;
    observed_at: unknown;
    pipeline_id: unknown;
    correlation_id: unknown;
  }>(
    `SELECT e.execution_id, e.event_id, e.event_type, e.data, e.observed_at, x.pipeline_id,
            x.correlation_id
     FROM execution_events e JOIN executions x ON x.id = e.execution_id
     WHERE e.execution_id IN (${markers(ids.length)}) AND e.event_type <> '${PACKED}'
     ORDER BY e.execution_id, e.event_id`,
    ids,
  );
  const byRun = new Map<string, StoredFrame[]>();
  for (const r of rows) {
    const id = String(r.execution_id);
    const frames = byRun.get(id) ?? [];
    if (r.event_type === FRAMES) frames.push(...parseBatch(r.data, runConstants(id, r)));
    else {
      frames.push({
        id: Number(r.event_id),
        event: r.event_type,
        data: JSON.parse(r.data),
        observedAt: toIso(r.observed_at)!,
      });
    }
    byRun.set(id, frames);
  }
  for (const [id, frames] of byRun) {
    const last = frames.at(-1)!;
    await tx.execute(`DELETE FROM execution_events WHERE execution_id = $1`, [id]);
    await tx.execute(
      `INSERT INTO execution_events (execution_id, event_id, event_type, data, observed_at, packed)
       VALUES ($1, $2, $3, '', $4, $5)`,
      [id, last.id, PACKED, last.observedAt, packFrames(frames)],
    );
  }
  return byRun.size;
}
