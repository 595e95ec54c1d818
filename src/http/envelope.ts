/**
 * The response envelopes (docs/decisions.md#envelopes), as zod schemas (for OpenAPI) and as
 * builders (for handlers). Every JSON response but raw documents goes through these.
 */
import { z } from "zod";
import { AppError, errorBody } from "../errors/mod.ts";
import type { AppContext } from "./context.ts";
import { pageOf } from "../lib/paged_view.ts";

export const SCHEMA_VERSION = 1;

export const errorEnvelopeSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  correlation_id: z.uuid(),
  error: z.object({
    code: z.string().describe("lowercase, dot-separated"),
    message: z.string().describe("English, technical, specific"),
    user_message: z.string().describe("safe for end users"),
    details: z.record(z.string(), z.unknown()).describe("code-specific"),
    doc_url: z.string().describe("link to the public page for the code"),
  }),
}).meta({ id: "ErrorEnvelope" });

/** The success envelope around a route's `data` schema. */
export function successEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ schema_version: z.literal(SCHEMA_VERSION), correlation_id: z.uuid(), data });
}

/** The paged list shape for `data` (lib/paged_view.ts, shared with the tools). */
export { pagedView as pagedData } from "../lib/paged_view.ts";

/** Answers the success envelope. */
export function ok<T>(c: AppContext, data: T, status: 200 | 201 | 202 = 200): Response {
  return c.json(
    { schema_version: SCHEMA_VERSION, correlation_id: c.get("correlationId"), data },
    status,
  );
}

/** Answers a paged list envelope. */
export function paged<T>(
  c: AppContext,
  items: T[],
  page: { offset: number; limit: number; total: number },
): Response {
  return ok(c, pageOf(items, page, page.total));
}

/**
 * Answers the error envelope for an AppError, with its extra headers. Built on the context so
 * headers an earlier step set (a cleared session cookie, say) survive the error.
 */
export function errorResponse(c: AppContext, error: AppError, baseUrl: string): Response {
  const body = {
    schema_version: SCHEMA_VERSION,
    correlation_id: c.get("correlationId"),
    error: errorBody(error, baseUrl),
  };
  // deno-lint-ignore no-explicit-any
  return c.json(body, error.status as any, error.headers);
}
