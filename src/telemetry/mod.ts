/**
 * Metrics and traces (docs/operations.md "Metrics and traces"): the prom-client registry behind
 * `GET /metrics`, and the bearer check that guards it. Traces need no module of their own: spans
 * are made through `src/lib/tracing.ts` over `@opentelemetry/api`, which Deno's built-in
 * OpenTelemetry exports when `OTEL_DENO=true`.
 */
// Types only: the registry (and prom-client under it) is loaded by src/observe.ts when metrics
// are on, so an instance with them off never loads it.
export type { ComponentHealth, Metrics, PoolUsage } from "./metrics.ts";
export { BearerCheck } from "./bearer.ts";
