/**
 * Housekeeping of executions: this instance's heartbeat on its RUNNING rows; the reaper, which
 * marks ABORTED the runs whose instance stopped beating (it died without its shutdown hook); and
 * the retention sweep of durable events. The reaper and the sweep act as the system actor and say
 * so in the audit log. Each step is callable directly; `start()` runs them on intervals.
 */
import { recordAudit } from "../audit/mod.ts";
import { SYSTEM_PROVIDER, type SystemActor } from "../identity/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { SharedStore } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import { ExecutionRepo, type StoredExecution } from "./repo.ts";
import { RetentionSweeps, type SweepCounts } from "./retention.ts";
import { REPLAY_WINDOW_MS } from "./service.ts";
import { eventsChannel } from "./sink.ts";
import type { EventFrame } from "./event_order.ts";
import type { AbortReason, ExecutionRecord, NodeStat } from "./types.ts";

export interface HousekeepingOptions {
  db: Db;
  shared: SharedStore;
  systemActor: SystemActor;
  logger: Logger;
  instanceId: string;
  retentionDays: number;
  /** Execution records are kept this long; 0 keeps them forever (retention.ts). */
  recordRetentionDays?: number;
  /** A finished run's stream is replayable this long (the service's window). */
  replayWindowMs?: number;
  /** This instance proves it is alive this often. */
  heartbeatMs?: number;
  /** A RUNNING row whose heartbeat is older than this belongs to a dead instance. */
  staleAfterMs?: number;
  /**
   * The runs this instance still holds (runs them, or keeps their ending for the store): only
   * those are beaten for, and its own stale records it does not hold are reaped like a dead
   * instance's. Without it, every RUNNING record of the instance counts as held.
   */
  runs?: HeldRuns;
  now?: () => number;
}

/** What an instance holds of its executions (the executions journal). */
export interface HeldRuns {
  held(): string[];
  holds(executionId: string): boolean;
}

/** A RUNNING record whose heartbeat is older than this belongs to a dead instance (default). */
export const DEFAULT_STALE_AFTER_MS = 60_000;

const DAY_MS = 86_400_000;

/** Event rows per retention batch (a packed run is one row; a run in its window a dozen). */
const EVENT_BATCH = 5_000;

export class ExecutionHousekeeping {
  readonly #o: HousekeepingOptions;
  readonly #repo: ExecutionRepo;
  readonly #now: () => number;
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  #missedBeat = false;
  #quietUntil = -Infinity;

  constructor(options: HousekeepingOptions) {
    this.#o = options;
    this.#repo = new ExecutionRepo(options.db);
    this.#now = options.now ?? Date.now;
  }

  get heartbeatMs(): number {
    return this.#o.heartbeatMs ?? 10_000;
  }

  get staleAfterMs(): number {
    // Several missed beats, so a slow store or a long pause is not mistaken for death.
    return this.#o.staleAfterMs ?? this.heartbeatMs * 6;
  }

  async heartbeat(): Promise<void> {
    try {
      await this.#repo.heartbeat(this.#o.instanceId, this.#iso(this.#now()), this.#o.runs?.held());
    } catch (error) {
      this.#missedBeat = true;
      throw error;
    }
    if (this.#missedBeat) {
      // The store was out of reach from here, so likely from the other instances too: their
      // beats failed as well. None is judged dead until they had a stale limit's time to beat.
      this.#missedBeat = false;
      this.#quietUntil = this.#now() + this.staleAfterMs;
    }
  }

  /**
   * Aborts every RUNNING execution whose instance stopped beating: the record ends ABORTED
   * (reason `shutdown`: its instance went away), stamped by the system actor, and the stored
   * stream gets the terminal `execution_aborted` it never received, so a replay ends properly.
   */
  async reap(): Promise<string[]> {
    const now = this.#now();
    if (now < this.#quietUntil) return [];
    const runs = this.#o.runs;
    const me = this.#o.instanceId;
    // Its own records too when it knows what it holds: one it gave up on has no one else.
    const stale = (await this.#repo.staleRunning(
      this.#iso(now - this.staleAfterMs),
      runs ? "" : me,
    )).filter((s) => s.instanceId !== me || !runs!.holds(s.record.execution_id));
    const reaped: string[] = [];
    for (const stored of stale) {
      const systemActor = this.#o.systemActor.id;
      const done = await abortAbandoned(this.#o.db, this.#o.shared, stored, {
        reason: "shutdown",
        by: systemActor,
        systemActor,
        at: now,
      });
      if (done) reaped.push(stored.record.execution_id);
    }
    if (reaped.length > 0) this.#o.logger.warn("reaped executions of a dead instance", { reaped });
    return reaped;
  }

  /**
   * Deletes durable events older than the retention period, in batches of EVENT_BATCH rows, each
   * its own transaction; returns how many went.
   */
  async sweep(): Promise<number> {
    const cutoff = this.#iso(this.#now() - this.#o.retentionDays * DAY_MS);
    let deleted = 0;
    for (;;) {
      const n = await this.#repo.deleteEventsBefore(cutoff, EVENT_BATCH);
      deleted += n;
      if (n < EVENT_BATCH) break;
    }
    if (deleted > 0) {
      await recordAudit(this.#o.db, {
        event: "execution.events_swept",
        userId: this.#o.systemActor.id,
        provider: SYSTEM_PROVIDER,
        details: { deleted, cutoff },
      });
    }
    return deleted;
  }

  /**
   * Deletes the records past their retention, compacts the `data_ready` frames past their replay
   * window and gives the embedded store's free pages back (retention.ts), in bounded batches.
   */
  async sweepGrowth(): Promise<SweepCounts> {
    const counts = await new RetentionSweeps(this.#o.db, {
      recordRetentionDays: this.#o.recordRetentionDays ?? 0,
      replayWindowMs: this.#o.replayWindowMs ?? REPLAY_WINDOW_MS,
      now: this.#now,
    }).sweep();
    if (counts.records > 0) {
      await recordAudit(this.#o.db, {
        event: "execution.records_swept",
        userId: this.#o.systemActor.id,
        provider: SYSTEM_PROVIDER,
        details: { deleted: counts.records, retention_days: this.#o.recordRetentionDays },
      });
    }
    return counts;
  }

  /** Beats, reaps and sweeps on intervals until `stop()`. A failed round is logged, not fatal. */
  start(): void {
    const every = (ms: number, name: string, step: () => Promise<unknown>) => {
      const timer = setInterval(() => {
        step().catch((e) =>
          this.#o.logger.error(`executions ${name} failed`, { error: String(e) })
        );
      }, ms);
      Deno.unrefTimer(timer);
      this.#timers.push(timer);
    };
    every(this.heartbeatMs, "heartbeat", () => this.heartbeat());
    every(this.staleAfterMs / 2, "reaper", () => this.reap());
    every(3_600_000, "retention", () => this.sweep());
    // Often enough that a busy endpoint's data_ready rows do not pile up past their window.
    every(300_000, "growth", () => this.sweepGrowth());
  }

  stop(): void {
    for (const t of this.#timers) clearInterval(t);
    this.#timers.length = 0;
  }

  #iso(ms: number): string {
    return new Date(ms).toISOString();
  }
}

/**
 * Ends a RUNNING record no instance runs any more (the reaper: its instance died; a cancel: it
 * was abandoned): the record ABORTED with `reason`, `aborted_by` the one who ended it, and the
 * stored stream gets the terminal `execution_aborted` it never received, so a replay ends
 * properly; audited by the system actor as `execution.reaped`. Followers on live instances wake
 * at once. False when the record was already terminal (its ending stands).
 */
export async function abortAbandoned(
  db: Db,
  shared: SharedStore,
  stored: StoredExecution,
  options: { reason: AbortReason; by: string; systemActor: string; at: number },
): Promise<boolean> {
  const done = await abortStored(db, stored, options);
  if (done) {
    await shared.publish(eventsChannel(stored.record.execution_id), '{"finished":true}')
      .catch(() => {});
  }
  return done;
}

async function abortStored(
  db: Db,
  { record, instanceId }: StoredExecution,
  options: { reason: AbortReason; by: string; systemActor: string; at: number },
): Promise<boolean> {
  const iso = (ms: number) => new Date(ms).toISOString();
  const { reason, by, at } = options;
  return await db.transaction(async (tx) => {
    const repo = new ExecutionRepo(tx);
    const events = await repo.events(record.execution_id);
    const final: ExecutionRecord = {
      ...record,
      status: "ABORTED",
      completed_at: iso(at),
      duration_ms: Math.max(0, at - Date.parse(record.started_at)),
      abort_reason: reason,
      node_stats: reapedStats(
        await repo.nodeIds(record.pipeline_id, record.pipeline_version),
        events,
      ),
    };
    if (!await repo.finish(final, by)) return false;
    const last = events.at(-1);
    await repo.appendEvent(record.execution_id, {
      id: (last?.id ?? 0) + 1,
      event: "execution_aborted",
      data: {
        execution_id: record.execution_id,
        pipeline_id: record.pipeline_id,
        correlation_id: record.correlation_id,
        aborted_at: final.completed_at,
        reason,
        status: "ABORTED",
        node_stats: final.node_stats,
      },
    }, final.completed_at!);
    await recordAudit(tx, {
      event: "execution.reaped",
      userId: options.systemActor,
      provider: SYSTEM_PROVIDER,
      workspaceId: record.workspace_id,
      details: {
        execution_id: record.execution_id,
        instance_id: instanceId,
        reason,
        ...(by === options.systemActor ? {} : { aborted_by: by }),
      },
    });
    return true;
  });
}

/**
 * The per-node stats of a reaped run, as its own ending would have reported them: what its
 * stored events prove (a completed node SUCCESS with its counts, a failed one FAILED with its
 * code), every other node ABORTED — in body order, then any node only the events name.
 */
export function reapedStats(bodyNodes: string[], events: EventFrame[]): NodeStat[] {
  const stats = new Map<string, NodeStat>();
  const aborted = (id: string): NodeStat => ({
    node_id: id,
    duration_ms: null,
    rows_out: null,
    bytes_out: null,
    status: "ABORTED",
  });
  for (const id of bodyNodes) stats.set(id, aborted(id));
  for (const { event, data } of events) {
    const id = typeof data.node_id === "string" ? data.node_id : undefined;
    if (!id) continue;
    const stat = stats.get(id) ?? aborted(id);
    stats.set(id, stat);
    if (event === "node_progress" && stat.status === "ABORTED") {
      stat.rows_out = data.rows_written ?? stat.rows_out;
    } else if (event === "node_completed") {
      Object.assign(stat, {
        status: "SUCCESS",
        duration_ms: data.duration_ms ?? null,
        rows_out: data.rows_out ?? null,
        bytes_out: data.bytes_out ?? null,
      });
    } else if (event === "node_failed") {
      Object.assign(stat, {
        status: "FAILED",
        duration_ms: data.duration_ms ?? null,
        error_code: data.error?.code,
      });
    }
  }
  return [...stats.values()];
}
