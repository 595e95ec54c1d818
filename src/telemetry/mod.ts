/**
 * Metrics and traces (docs/operations.md "Metrics and traces"): the prom-client registry behind
 * `GET /metrics`, and the bearer check that guards it. Traces need no module of their own: spans
 * are made through `src/lib/tracing.ts` over `@opentelemetry/api`, which Deno's built-in
 * OpenTelemetry exports when `OTEL_DENO=true`.
 */
export { type ComponentHealth, Metrics, type PoolUsage } from "./metrics.ts";
export { BearerCheck } from "./bearer.ts";
