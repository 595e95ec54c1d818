/**
 * Push payloads for the promotion receiver tests: released template and pipeline entries with
 * their real body hashes (docs/decisions.md#body-hash: `sha256:` of the canonical JSON of the
 * hashed content).
 */
import { bodyHash } from "../../src/lib/canonical_json.ts";
import type { Json } from "./harness.ts";

/** A released sql template version as a push carries it. */
export function templateEntry(
  id: string,
  version: number,
  body: string,
  imports: { id: string; version: number; alias: string }[] = [],
): Json {
  const content = { id, type: "sql", dialect: "SQLITE", imports, body };
  return {
    ...content,
    display_name: id.split("/").at(-1),
    description: null,
    version,
    body_hash: bodyHash(content),
    released_at: "2026-01-01T00:00:00.000Z",
  };
}

/** A released pipeline version as a push carries it (`id` kept, as the sender's). */
export function pipelineEntry(id: string, version: number, body: Json): Json {
  return {
    ...body,
    id,
    version,
    body_hash: bodyHash(body),
    released_at: "2026-01-01T00:00:00.000Z",
  };
}

/** A readable pipeline over datasource `wh` and template `lib/orders`@`tv`. */
export function ordersPipeline(name: string, tv: number, extra: Json = {}): Json {
  return {
    name,
    parameters: { customer_id: { type: "integer", required: true } },
    nodes: [{
      id: "orders",
      type: "DQL",
      source: "wh",
      template: { id: "lib/orders", version: tv },
    }],
    ...extra,
  };
}

export function pushBody(
  workspace: string,
  templates: Json[],
  pipelines: Json[],
  extra: Json = {},
) {
  return { source_env: "development", workspace, templates, pipelines, ...extra };
}

/** One correlation id for every failing request, so 401 bodies can be compared byte for byte. */
export const FIXED_CORRELATION = "00000000-0000-4000-8000-000000000001";
