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
import { ExecutionRepo } from "./repo.ts";
import { eventsChannel } from "./sink.ts";
import type { EventFrame } from "./event_order.ts";
import type { ExecutionRecord, NodeStat } from "./types.ts";

export interface HousekeepingOptions {
  db: Db;
  shared: SharedStore;
  systemActor: SystemActor;
  logger: Logger;
  instanceId: string;
  retentionDays: number;
  /** This instance proves it is alive this often. */
  heartbeatMs?: number;
  /** A RUNNING row whose heartbeat is older than this belongs to a dead instance. */
  staleAfterMs?: number;
  now?: () => number;
}

const DAY_MS = 86_400_000;

export class ExecutionHousekeeping {
  readonly #o: HousekeepingOptions;
  readonly #repo: ExecutionRepo;
  readonly #now: () => number;
  readonly #timers: ReturnType<typeof setInterval>[] = [];

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
    await this.#repo.heartbeat(this.#o.instanceId, this.#iso(this.#now()));
  }

  /**
   * Aborts every RUNNING execution whose instance stopped beating: the record ends ABORTED
   * (reason `shutdown`: its instance went away), stamped by the system actor, and the stored
   * stream gets the terminal `execution_aborted` it never received, so a replay ends properly.
   */
  async reap(): Promise<string[]> {
    const now = this.#now();
    const stale = await this.#repo.staleRunning(
      this.#iso(now - this.staleAfterMs),
      this.#o.instanceId,
    );
    const reaped: string[] = [];
    for (const { record, instanceId } of stale) {
      const done = await this.#o.db.transaction(async (tx) => {
        const repo = new ExecutionRepo(tx);
        const events = await repo.events(record.execution_id);
        const final: ExecutionRecord = {
          ...record,
          status: "ABORTED",
          completed_at: this.#iso(now),
          duration_ms: Math.max(0, now - Date.parse(record.started_at)),
          abort_reason: "shutdown",
          node_stats: reapedStats(
            await repo.nodeIds(record.pipeline_id, record.pipeline_version),
            events,
          ),
        };
        if (!await repo.finish(final, this.#o.systemActor.id)) return false;
        const last = events.at(-1);
        await repo.appendEvent(record.execution_id, {
          id: (last?.id ?? 0) + 1,
          event: "execution_aborted",
          data: {
            execution_id: record.execution_id,
            pipeline_id: record.pipeline_id,
            correlation_id: record.correlation_id,
            aborted_at: final.completed_at,
            reason: "shutdown",
            status: "ABORTED",
            node_stats: final.node_stats,
          },
        }, final.completed_at!);
        await recordAudit(tx, {
          event: "execution.reaped",
          userId: this.#o.systemActor.id,
          provider: SYSTEM_PROVIDER,
          workspaceId: record.workspace_id,
          details: { execution_id: record.execution_id, instance_id: instanceId },
        });
        return true;
      });
      if (!done) continue;
      reaped.push(record.execution_id);
      // Followers on live instances wake at once instead of at their next poll.
      await this.#o.shared.publish(eventsChannel(record.execution_id), '{"finished":true}')
        .catch(() => {});
    }
    if (reaped.length > 0) this.#o.logger.warn("reaped executions of a dead instance", { reaped });
    return reaped;
  }

  /** Deletes durable events older than the retention period; returns how many went. */
  async sweep(): Promise<number> {
    const cutoff = this.#iso(this.#now() - this.#o.retentionDays * DAY_MS);
    return await this.#o.db.transaction(async (tx) => {
      const deleted = await new ExecutionRepo(tx).deleteEventsBefore(cutoff);
      if (deleted > 0) {
        await recordAudit(tx, {
          event: "execution.events_swept",
          userId: this.#o.systemActor.id,
          provider: SYSTEM_PROVIDER,
          details: { deleted, cutoff },
        });
      }
      return deleted;
    });
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
