/**
 * Turns the raw tree into the ResolvedConfig every part of the service reads: validated, defaults
 * filled, derived values computed, keys in camelCase.
 */
import type { z } from "zod";
import { OBSOLETE_KEYS, REFUSALS } from "./refusals.ts";
import { configSchema, type RawServiceConfig } from "./schema.ts";
import { type RawConfig, StartupError } from "./sources.ts";

type Camel<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}`
  : S;
type DeepCamel<T> = T extends readonly (infer U)[] ? DeepCamel<U>[]
  : T extends object ? { [K in keyof T as K extends string ? Camel<K> : K]: DeepCamel<T[K]> }
  : T;

type Base = DeepCamel<RawServiceConfig>;

export type StoreKind = "sqlite" | "postgres";

/** The validated configuration with defaults and derived values. */
export type ResolvedConfig = Omit<Base, "store" | "sharedStore"> & {
  store: Base["store"] & { url: string; kind: StoreKind };
  sharedStore: Base["sharedStore"] & { kind: "memory" | "redis" };
};

function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map((
      [k, v],
    ) => [k.replace(/-([a-z])/g, (_, c) => c.toUpperCase()), camelKeys(v)]),
  );
}

function hasPath(tree: unknown, path: string): boolean {
  let node = tree;
  for (const seg of path.split(".")) {
    if (typeof node !== "object" || node === null || !(seg in node)) return false;
    node = (node as Record<string, unknown>)[seg];
  }
  return true;
}

function pathText(path: PropertyKey[]): string {
  return path.reduce<string>(
    (acc, seg) =>
      typeof seg === "number" ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg),
    "",
  );
}

function describeIssue(issue: z.core.$ZodIssue, raw: RawConfig): string {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) => `${pathText([...issue.path, k])}: unknown configuration key`).join(
      "; ",
    );
  }
  const at = pathText(issue.path);
  const origin = raw.origins.get(at);
  return `${at}: ${issue.message}${origin ? ` (from ${origin})` : ""}`;
}

/** Validates the raw tree; throws StartupError with one line naming every bad key. */
export function resolveConfig(raw: RawConfig, env: Record<string, string>): ResolvedConfig {
  for (const [key, reason] of Object.entries(OBSOLETE_KEYS)) {
    if (hasPath(raw.tree, key)) throw new StartupError(`${key}: obsolete key, ${reason}`);
  }
  // One parse per process: zod's compiled fast path costs far more to build than it saves here.
  const parsed = configSchema.safeParse(raw.tree, { jitless: true });
  if (!parsed.success) {
    throw new StartupError(parsed.error.issues.map((i) => describeIssue(i, raw)).join("; "));
  }
  const base = camelKeys(parsed.data.service) as Base;
  const storeUrl = base.store.url ?? `sqlite:${base.dataDir.replace(/\/+$/, "")}/service.db`;
  const config: ResolvedConfig = {
    ...base,
    store: {
      ...base.store,
      url: storeUrl,
      kind: storeUrl.startsWith("sqlite:") ? "sqlite" : "postgres",
    },
    sharedStore: {
      ...base.sharedStore,
      kind: base.sharedStore.url.startsWith("memory:") ? "memory" : "redis",
    },
  };
  const refusals = REFUSALS.map((rule) => rule({ config, env })).filter((r): r is string => !!r);
  if (refusals.length > 0) throw new StartupError(refusals.join("; "));
  return config;
}
