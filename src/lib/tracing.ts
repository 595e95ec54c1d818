/**
 * Spans for traces (docs/operations.md "Metrics and traces"). Deno's built-in OpenTelemetry
 * (`OTEL_DENO=true`, exported over OTLP) hooks into `@opentelemetry/api`, so code makes spans
 * through that API and Deno's own spans (`Deno.serve`, `fetch`) become their parents. When it is
 * off, `tracing` is false and `inSpan` only calls its function: no span, no context switch.
 *
 * Every span carries the request's correlation id (`svc.correlation_id`) when it runs inside one,
 * read from the log context, so a trace can be found from an error envelope or a log line.
 */
import type { Attributes, Span } from "@opentelemetry/api";
import { requestContext } from "./log.ts";
import { redactUrl } from "./redact.ts";

/** The attribute naming the request's correlation id on every span. */
export const CORRELATION_ATTRIBUTE = "svc.correlation_id";

function enabled(): boolean {
  try {
    // Deno reads the same variable, at startup, and accepts only true or false.
    return Deno.env.get("OTEL_DENO")?.toLowerCase() === "true";
  } catch {
    return false; // no permission to read the environment: nothing can export either
  }
}

/** True when this process exports traces. */
export const tracing: boolean = enabled();

// Loaded only when tracing: the API's CommonJS build is a measurable part of startup otherwise.
const api = tracing ? await import("@opentelemetry/api") : undefined;
const tracer = api?.trace.getTracer("pipeline-service");

/**
 * Runs `fn` inside a span named `name`, a child of the active span; an error marks the span and
 * is thrown on. Without tracing, just `fn()`.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  if (!api || !tracer) return fn();
  const correlationId = requestContext.getStore()?.correlationId;
  if (correlationId) attributes = { ...attributes, [CORRELATION_ATTRIBUTE]: correlationId };
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn();
    } catch (error) {
      span.setStatus({
        code: api.SpanStatusCode.ERROR,
        message: redactUrl(error instanceof Error ? error.message.slice(0, 200) : String(error)),
      });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The span of the code running now (the request's, inside a handler), when tracing. */
export function activeSpan(): Span | undefined {
  return api?.trace.getActiveSpan();
}
