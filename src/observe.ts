/**
 * Wiring of the instance's metrics (`service.metrics.enabled`, docs/operations.md): the domains
 * report through hooks of their own, handed these methods when their services are built
 * (services.ts); what is read at scrape time (pools, component health) and the store's group
 * commit are joined here once everything stands.
 */
import type { ResolvedConfig } from "./config/mod.ts";
import type { PoolManager } from "./datasources/mod.ts";
import type { BuildInfo, HealthService } from "./health/mod.ts";
import { type Db, groupCommit } from "./store/mod.ts";
import { type Metrics, openRegistry } from "./telemetry/mod.ts";

/**
 * The registry, or undefined when metrics are off (then no hook is handed anywhere, and
 * prom-client is never loaded).
 */
export async function openMetrics(
  config: ResolvedConfig,
  build: BuildInfo,
): Promise<Metrics | undefined> {
  return config.metrics.enabled ? await openRegistry(build) : undefined;
}

/** The endpoint server's hook over the metrics. */
export function onServed(metrics: Metrics | undefined) {
  return metrics &&
    ((endpoint: string, status: number, seconds: number) =>
      metrics.endpointServed(endpoint, status, seconds));
}

/** Joins what the metrics read at scrape time, and the store's group commit. */
export function watchInstance(
  metrics: Metrics | undefined,
  parts: { db: Db; health: HealthService; pools: PoolManager },
): void {
  if (!metrics) return;
  groupCommit(parts.db).observe((writes, seconds) => metrics.groupCommitted(writes, seconds));
  metrics.watchPools(() => parts.pools.usage());
  metrics.watchHealth(async () => (await parts.health.check()).components);
}
