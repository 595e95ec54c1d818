/**
 * Request input: JSON bodies read defensively (malformed → 400, wrong media type → 415), then
 * path, query and body validated by the route's zod schemas. A validation failure names the field.
 */
import type { z } from "zod";
import { AppError } from "../errors/mod.ts";
import type { AppContext } from "./context.ts";
import type { ConnectionEnv } from "./listener.ts";

function fieldPath(path: PropertyKey[]): string {
  return path.map(String).join(".");
}

/** Validates `value`; a failure becomes `pipeline.execution.invalid_parameter_type` naming the field. */
export function validate<T extends z.ZodType>(
  schema: T,
  value: unknown,
  location: string,
): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new AppError("pipeline.execution.invalid_parameter_type", {
    field: fieldPath(issue.path) || location,
    location,
    reason: issue.message,
  });
}

/**
 * `read`, a read of the request body, bounded by `service.http.body-timeout-seconds`: a body still
 * arriving then fails with 408 `request.body_timeout` (listener.ts). Every body is read through
 * here. Without the listener (`app.request` in tests) the read is not bounded.
 */
export function bodyWithin<T>(c: AppContext, read: Promise<T>): Promise<T> {
  const env = c.env as Partial<ConnectionEnv> | undefined;
  return env?.bodyWithin ? env.bodyWithin(read) : read;
}

/** The parsed JSON body; undefined when the body is empty. */
export async function readJson(c: AppContext): Promise<unknown> {
  const text = await bodyWithin(c, c.req.text());
  if (text.trim() === "") return undefined;
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/([a-z0-9.+-]+\+)?json\b/i.test(type)) {
    throw new AppError("request.unsupported_media_type", {
      content_type: type || "(none)",
      expected: "application/json",
    });
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError("request.malformed_json", { reason: (e as Error).message });
  }
}

/**
 * The fields of a browser post: a JSON object's, or a form's (urlencoded or multipart). JSON that
 * is no object, and a body of any other type, give no fields, so the route's own checks name what
 * is missing (Hono's `parseBody` reads only form bodies and answers `{}` for the rest).
 */
export async function postFields(c: AppContext): Promise<Record<string, unknown>> {
  if (/^application\/json/i.test(c.req.header("content-type") ?? "")) {
    const body = await readJson(c);
    return typeof body === "object" && body !== null ? body as Record<string, unknown> : {};
  }
  return await bodyWithin(c, c.req.parseBody()) as Record<string, unknown>;
}

/**
 * The text fields of a browser form post (urlencoded or multipart); an uploaded file reads as an
 * empty string, since no UI form takes one.
 */
export async function formText(c: AppContext): Promise<Record<string, string>> {
  const body = await bodyWithin(c, c.req.parseBody());
  return Object.fromEntries(
    Object.entries(body).map(([k, v]) => [k, typeof v === "string" ? v : ""]),
  );
}
