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
import type { ExecutionRecord } from "./types.ts";

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
    const stale = await this.#repo.staleRunning(this.#iso(now - this.staleAfterMs));
    const reaped: string[] = [];
    for (const { record, instanceId } of stale) {
      const done = await this.#o.db.transaction(async (tx) => {
        const repo = new ExecutionRepo(tx);
        const final: ExecutionRecord = {
          ...record,
          status: "ABORTED",
          completed_at: this.#iso(now),
          duration_ms: Math.max(0, now - Date.parse(record.started_at)),
          abort_reason: "shutdown",
          node_stats: record.node_stats ?? [],
        };
        if (!await repo.finish(final, this.#o.systemActor.id)) return false;
        const last = (await repo.events(record.execution_id)).at(-1);
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
