/**
 * The executions side of a running instance, built from the configuration: the result store, the
 * executor, the service (history, replay, cancel, limits) and its housekeeping (heartbeat, reaper,
 * event retention). Housekeeping runs from the moment this returns.
 */
import type { ResolvedConfig } from "../config/mod.ts";
import type { DatasourceConnections } from "../datasources/mod.ts";
import type { SystemActor } from "../identity/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { SharedStore } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import { PIPELINE_KIND, TEMPLATE_KIND, VersionLifecycle } from "../versions/mod.ts";
import { Executor, lifecycleCatalog } from "./executor.ts";
import { IdempotencyCache } from "./idempotency.ts";
import { purgeRuns } from "./purge.ts";
import { ExecutionHousekeeping } from "./reaper.ts";
import { ResultStore } from "./result_store.ts";
import { StagingPool } from "./staging_pool.ts";
import { ExecutionService, type ExecutorPort } from "./service.ts";
import type { ExecutionMeter } from "./types.ts";

export interface ExecutionsWiringDeps {
  config: ResolvedConfig;
  db: Db;
  shared: SharedStore;
  logger: Logger;
  systemActor: SystemActor;
  connections: Pick<DatasourceConnections, "forExecution">;
  /** The authoring pipelines' lifecycle: its purges take the purged versions' runs (purge.ts). */
  pipelines?: Pick<VersionLifecycle, "addHook">;
  /** Replaces the real executor (the executions service's own tests script their runs). */
  executor?: ExecutorPort;
  now?: () => number;
  /** Where runs report counts and times (the metrics, when on). */
  meter?: ExecutionMeter;
}

export interface ExecutionsWiring {
  results: ResultStore;
  executor: Executor;
  executions: ExecutionService;
  housekeeping: ExecutionHousekeeping;
  /** Warm staging instances; closed at shutdown, after the last run gave its instance back. */
  stagingPool: StagingPool;
}

export async function openExecutions(deps: ExecutionsWiringDeps): Promise<ExecutionsWiring> {
  const { config, db, shared, logger, now } = deps;
  const results = new ResultStore(shared, { maxBytes: config.result.maxSizeBytes, now });
  const lifecycle = (kind: typeof PIPELINE_KIND) =>
    new VersionLifecycle({ db, kind, authoringEnabled: config.deployment.authoringEnabled });
  // Runs open credentials as the system actor: the run, not a person, holds the connection.
  const runner = { userId: deps.systemActor.id, provider: "system" };
  const stagingPool = new StagingPool({
    size: config.executor.stagingPoolSize,
    memoryMb: config.executor.duckdbMemoryLimitMb,
    logger,
  });
  const executor = new Executor({
    catalog: lifecycleCatalog(lifecycle(PIPELINE_KIND), lifecycle(TEMPLATE_KIND)),
    connect: (workspaceId, name) => deps.connections.forExecution(runner, workspaceId, name),
    results,
    baseUrl: config.auth.baseUrl ?? `http://${config.http.host}:${config.http.port}`,
    errorDetail: config.executor.errorDetail,
    progressIntervalSeconds: config.executor.progressSampleIntervalSeconds,
    parameterCaps: {
      maxListItems: config.executor.maxListItems,
      maxValues: config.executor.maxParameterValues,
    },
    limits: {
      maxCellBytes: config.executor.maxCellBytes,
      duckdbMemoryMb: config.executor.duckdbMemoryLimitMb,
    },
    meter: deps.meter,
    stagingPool,
  });
  const idempotency = new IdempotencyCache(shared, config.idempotency.ttlSeconds);
  deps.pipelines?.addHook("beforePurge", purgeRuns(idempotency, now ?? Date.now));
  // Six missed beats, so a slow store or a long pause is not mistaken for death.
  const heartbeatMs = config.executions.heartbeatIntervalSeconds * 1000;
  const staleAfterMs = heartbeatMs * 6;
  const executions = new ExecutionService({
    db,
    shared,
    results,
    idempotency,
    logger,
    executor: deps.executor ?? executor,
    resultLimits: config.result,
    maxConcurrentPerUser: config.executor.maxConcurrentExecutionsPerUser,
    maxStreamsPerUser: config.sse.maxStreamsPerUser,
    followPollMs: config.sse.heartbeatIntervalSeconds * 1000,
    systemActorId: deps.systemActor.id,
    staleAfterMs,
    now,
  });
  await executions.open();
  const housekeeping = new ExecutionHousekeeping({
    db,
    shared,
    systemActor: deps.systemActor,
    logger,
    instanceId: executions.instanceId,
    retentionDays: config.executions.eventRetentionDays,
    recordRetentionDays: config.executions.recordRetentionDays,
    runs: executions.runs,
    heartbeatMs,
    staleAfterMs,
    now,
  });
  housekeeping.start();
  return { results, executor, executions, housekeeping, stagingPool };
}
