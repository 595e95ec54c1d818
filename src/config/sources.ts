/**
 * Reads the raw tree from an optional YAML/JSON file and the environment (which wins), and
 * remembers where every value came from so a refusal can name its origin.
 */
import { parse as parseYaml } from "yaml";
import { type Leaf, leaves } from "./leaves.ts";

/** Environment variables that are not `service.*` properties but are still ours. */
export const ENV_ONLY = new Set([
  "SERVICE_CONFIG",
  "SERVICE_JWT_SECRET",
  "SERVICE_ENCRYPTION_KEY",
  "SERVICE_TEST_REQUIRE_SERVICES",
]);

export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartupError";
  }
}

export interface RawConfig {
  tree: Record<string, unknown>;
  /** dotted path (`service.http.port`, `service.auth.oidc.providers[0].name`) → origin text. */
  origins: Map<string, string>;
}

type Tree = Record<string, unknown>;

function isTree(v: unknown): v is Tree {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function recordOrigins(value: unknown, path: string, origin: string, origins: Map<string, string>) {
  if (isTree(value)) {
    for (const [k, v] of Object.entries(value)) recordOrigins(v, `${path}.${k}`, origin, origins);
  } else if (Array.isArray(value) && value.some(isTree)) {
    value.forEach((v, i) => recordOrigins(v, `${path}[${i}]`, origin, origins));
  } else {
    origins.set(path.slice(1), origin);
  }
}

/** Deep-merges `over` into `under` (maps merge, everything else replaces). */
function merge(under: Tree, over: Tree): Tree {
  for (const [k, v] of Object.entries(over)) {
    under[k] = isTree(v) && isTree(under[k]) ? merge(under[k] as Tree, v) : v;
  }
  return under;
}

/** Parses a config file's text (YAML or JSON; JSON is YAML). */
export function parseConfigFile(text: string, name: string): Tree {
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (e) {
    throw new StartupError(`config file ${name}: not valid YAML or JSON: ${(e as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isTree(parsed)) throw new StartupError(`config file ${name}: the top level must be a map`);
  return parsed;
}

function coerce(leaf: Leaf, raw: string): unknown {
  const text = raw.trim();
  switch (leaf.type) {
    case "integer":
    case "number":
      return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : raw;
    case "boolean":
      if (/^(true|false)$/i.test(text)) return text.toLowerCase() === "true";
      return raw;
    case "string_list":
      return text === "" ? [] : text.split(",").map((s) => s.trim()).filter((s) => s !== "");
    default:
      return raw;
  }
}

function setPath(tree: Tree, segments: (string | number)[], value: unknown): void {
  let node: Tree | unknown[] = tree;
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    const container = node as Record<string | number, unknown>;
    if (last) {
      container[seg] = value;
      return;
    }
    const nextIsIndex = typeof segments[i + 1] === "number";
    const existing = container[seg];
    if (nextIsIndex ? !Array.isArray(existing) : !isTree(existing)) {
      container[seg] = nextIsIndex ? [] : {};
    }
    node = container[seg] as Tree | unknown[];
  });
}

/** Maps one environment variable to its leaf and list index, or undefined for an unknown name. */
function matchEnv(name: string): { leaf: Leaf; index?: number } | undefined {
  for (const leaf of leaves()) {
    if (!leaf.env.includes("{i}")) {
      if (leaf.env === name) return { leaf };
      continue;
    }
    const [before, after] = leaf.env.split("{i}");
    if (name.startsWith(before) && name.endsWith(after)) {
      const index = name.slice(before.length, name.length - after.length);
      if (/^\d{1,3}$/.test(index)) return { leaf, index: Number(index) };
    }
  }
  return undefined;
}

/**
 * Builds the raw tree: file first, then every `SERVICE_*` variable on top. An unknown variable is a
 * startup refusal naming it.
 */
export function readSources(
  env: Record<string, string>,
  file?: { name: string; text: string },
  base: Tree = {},
): RawConfig {
  const origins = new Map<string, string>();
  const fromFile: Tree = file ? parseConfigFile(file.text, file.name) : {};
  if (file) recordOrigins(fromFile, "", `config file ${file.name}`, origins);
  const tree = merge(structuredClone(base), fromFile);

  for (const [name, value] of Object.entries(env).sort(([a], [b]) => a.localeCompare(b))) {
    if (!name.startsWith("SERVICE_") || ENV_ONLY.has(name)) continue;
    const match = matchEnv(name);
    if (!match) {
      throw new StartupError(`${name}: unknown configuration key (environment variable)`);
    }
    const segments: (string | number)[] = [];
    for (const part of match.leaf.path.split(".")) {
      if (part.endsWith("[]")) segments.push(part.slice(0, -2), match.index!);
      else segments.push(part);
    }
    setPath(tree, segments, coerce(match.leaf, value));
    const dotted = match.leaf.path.replace("[]", `[${match.index}]`);
    origins.set(dotted, `environment variable ${name}`);
  }
  return { tree, origins };
}
