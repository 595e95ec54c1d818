/**
 * Metrics and traces (docs/operations.md "Metrics and traces"): the prom-client registry behind
 * `GET /metrics`, and the bearer check that guards it. Traces need no module of their own: spans
 * are made through `src/lib/tracing.ts` over `@opentelemetry/api`, which Deno's built-in
 * OpenTelemetry exports when `OTEL_DENO=true`.
 */
import type { Metrics } from "./metrics.ts";

export type { ComponentHealth, Metrics, PoolUsage } from "./metrics.ts";
export { BearerCheck } from "./bearer.ts";

/**
 * The registry, loaded with prom-client only when metrics are on (src/observe.ts asks only then),
 * so an instance with them off never pays for either at startup.
 */
export async function openRegistry(
  build: ConstructorParameters<typeof Metrics>[0],
): Promise<Metrics> {
  const { Metrics } = await import("./metrics.ts");
  return new Metrics(build);
}
