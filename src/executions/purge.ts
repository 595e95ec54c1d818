/**
 * What a pipeline purge takes from the executions
 * (docs/decisions.md#purging-a-draft-takes-its-runs: a purged draft goes with its executions; a
 * sole version takes the entity with it): a hook on the pipelines' lifecycle, run inside the
 * purge's transaction, so the runs go with the version or not at all.
 *
 * Decided here:
 * - The runs of the purged version go (every run of the pipeline when the entity goes), with their
 *   durable events and the child runs they started, at any depth: a child run is part of its
 *   parent's run tree, and left behind it would name a root that no longer exists. A child
 *   pipeline's own runs stay.
 * - Not retention: record retention (`service.executions.record-retention-days`) ages out the
 *   history of what still exists; a purged number returns to the pool, so runs kept under it
 *   would be credited to the next draft of that number.
 * - A run still RUNNING refuses the purge with 409 `pipeline.version.running`: its executor still
 *   writes its frames and final record. Cancel it (or let it end), then purge.
 * - An Idempotency-Key retry of a purged run answers 404 `result.execution_not_found` (see
 *   IdempotencyCache.forget): the key is not freed, so a retry never runs the request twice.
 * - The audit row of the purge carries `executions_purged`.
 */
import { AppError } from "../errors/mod.ts";
import type { LifecycleHook } from "../versions/mod.ts";
import type { IdempotencyCache } from "./idempotency.ts";
import { ExecutionRepo } from "./repo.ts";

export function purgeRuns(idempotency: IdempotencyCache, now: () => number): LifecycleHook {
  return async (tx, ctx) => {
    const repo = new ExecutionRepo(tx);
    const version = ctx.takes_entity ? undefined : ctx.version.version;
    const runs = await repo.runTrees(ctx.entity.id, version);
    const running = runs.filter((r) => r.status === "RUNNING").length;
    if (running > 0) {
      throw new AppError("pipeline.version.running", {
        pipeline_id: ctx.entity.id,
        version: ctx.version.version,
        running,
      });
    }
    if (runs.length === 0) return { executions_purged: 0 };
    await idempotency.forget(runs, now());
    return { executions_purged: await repo.deleteRunTrees(ctx.entity.id, version) };
  };
}
