/**
 * What a route says it answers, and the check that it does (on in tests, see `checkResponses`).
 * A route's answers are its success status with its `response` schema, plus `alsoAnswers`; the
 * check parses a JSON body with the schema of its status and also refuses fields the schema does
 * not name (zod would silently drop them), so the declaration, and the API document made from
 * it, describe every field a client receives.
 */
import type { z } from "zod";
import { successEnvelope } from "./envelope.ts";
import type { RouteSpec } from "./routing.ts";

/** The line a mismatch is logged and thrown with; tests assert it never appears. */
export const MISMATCH = "response does not match its declared schema";

/** Each success status the route declares, with its body schema (null: no JSON body). */
export function answers(spec: RouteSpec): [number, z.ZodType | null][] {
  const main = spec.status ?? 200;
  const also = Object.entries(spec.alsoAnswers ?? {}).map(([s, schema]) =>
    [Number(s), schema] as [number, z.ZodType | null]
  );
  return [[main, spec.response ?? null], ...also];
}

/**
 * Every answer of the route is described: a body schema, or no content (204), or a declared
 * non-JSON body (an event stream) at the main status.
 */
export function declaresEveryAnswer(spec: RouteSpec): boolean {
  const main = spec.status ?? 200;
  return answers(spec).every(([status, schema]) =>
    schema !== null || status === 204 || (status === main && (spec.produces ?? []).length > 0)
  );
}

const envelopes = new WeakMap<z.ZodType, z.ZodType>();

/** The whole body at a status: `schema` itself for `raw`, else the success envelope around it. */
function bodyOf(spec: RouteSpec, schema: z.ZodType): z.ZodType {
  if (spec.kind === "raw") return schema;
  let whole = envelopes.get(schema);
  if (!whole) envelopes.set(schema, whole = successEnvelope(schema));
  return whole;
}

/** The OpenAPI `responses` entries of the route's success answers. */
export function describeAnswers(
  spec: RouteSpec,
  jsonSchema: (schema: z.ZodType) => unknown,
): Record<string, unknown> {
  const main = spec.status ?? 200;
  return Object.fromEntries(
    answers(spec).map(([status, schema]) => {
      const content: Record<string, unknown> = {};
      if (schema) content["application/json"] = { schema: jsonSchema(bodyOf(spec, schema)) };
      if (status === main) {
        for (const type of spec.produces ?? []) content[type] = { schema: { type: "string" } };
      }
      const description = status === 204 ? "No content" : "Success";
      return [
        String(status),
        Object.keys(content).length ? { description, content } : { description },
      ];
    }),
  );
}

/** Throws when a success answer is not what the route declares. */
export async function checkResponse(spec: RouteSpec, response: Response): Promise<void> {
  const where = `${spec.method.toUpperCase()} ${spec.path} answered ${response.status}`;
  const fail = (why: string) => new Error(`${MISMATCH}: ${where}: ${why}`);
  const declared = answers(spec).find(([status]) => status === response.status);
  if (!declared) throw fail("a status it does not declare");
  const [, schema] = declared;
  const type = (response.headers.get("content-type") ?? "").split(";")[0].trim();
  if (type === "application/json") {
    if (!schema) throw fail("a JSON body where it declares none");
    const body = await response.clone().json();
    const parsed = bodyOf(spec, schema).safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw fail(`${issue.path.join(".") || "(body)"}: ${issue.message}`);
    }
    const extra = undeclared(body, parsed.data, "");
    if (extra !== null) throw fail(`${extra}: a field the schema does not name`);
    return;
  }
  if (response.body === null) {
    if (schema) throw fail("no body where it declares one");
    return;
  }
  if (!(spec.produces ?? []).includes(type)) throw fail(`a ${type || "untyped"} body`);
}

/** The path of the first field of `sent` that parsing dropped, or null. */
function undeclared(sent: unknown, kept: unknown, at: string): string | null {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    for (let i = 0; i < sent.length; i++) {
      const found = undeclared(sent[i], kept[i], `${at}${i}.`);
      if (found !== null) return found;
    }
    return null;
  }
  if (!isObject(sent) || !isObject(kept)) return null;
  for (const [key, value] of Object.entries(sent)) {
    if (!(key in kept)) return `${at}${key}`;
    const found = undeclared(value, kept[key], `${at}${key}.`);
    if (found !== null) return found;
  }
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
