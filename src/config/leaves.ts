/**
 * The configuration tree flattened into leaves, read off the schema's JSON Schema so the
 * environment mapping and the docs/configuration.md reference can never drift from what is validated.
 */
import { z } from "zod";
import { configSchema } from "./schema.ts";

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  default?: unknown;
  description?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
};

/** One configurable property. `path` uses `[]` for a list item, e.g. `service.auth.oidc.providers[].name`. */
export interface Leaf {
  path: string;
  /** Environment variable name; `{i}` stands for a list index. */
  env: string;
  type: "string" | "integer" | "number" | "boolean" | "string_list";
  default?: unknown;
  description: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
}

/**
 * `service.auth.jwt.ttl-hours` → `SERVICE_AUTH_JWT_TTL_HOURS` (docs/decisions.md#setting-names).
 */
export function envName(path: string): string {
  return path.replace(/\[\]/g, ".{i}").replace(/[.-]/g, "_").toUpperCase().replace(
    /_\{I\}/g,
    "_{i}",
  );
}

function walk(node: JsonSchema, path: string, out: Leaf[]): void {
  const schema = node.anyOf?.find((s) => s.type !== "null") ?? node;
  if (schema.type === "object" && schema.properties) {
    for (const [key, child] of Object.entries(schema.properties)) {
      walk(child, `${path}.${key}`, out);
    }
    return;
  }
  if (schema.type === "array" && schema.items?.type === "object") {
    walk(schema.items, `${path}[]`, out);
    return;
  }
  const type = schema.type === "array" ? "string_list" : (schema.type ?? "string");
  out.push({
    path: path.slice(1),
    env: envName(path.slice(1)),
    type: type as Leaf["type"],
    default: node.default ?? schema.default,
    description: node.description ?? schema.description ?? "",
    enum: schema.enum,
    minimum: schema.minimum,
    maximum: schema.maximum,
  });
}

let cached: Leaf[] | undefined;

/** Every leaf of the configuration tree, in schema order. */
export function leaves(): Leaf[] {
  if (!cached) {
    const json = z.toJSONSchema(configSchema, { io: "input", unrepresentable: "any" });
    cached = [];
    walk(json as JsonSchema, "", cached);
  }
  return cached;
}
