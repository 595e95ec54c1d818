/**
 * Endpoint path patterns (docs/endpoints.md#paths) and the endpoint tree's nodes bindings name.
 *
 * A pattern is 1 to 10 segments, each a literal `[a-z0-9][a-z0-9_.-]{0,63}` or a variable
 * `{name}`; at most 200 characters, leading `/`, no trailing slash. A variable matches any one
 * non-empty URL segment, so two patterns conflict exactly when they have as many segments and, at
 * every position, the segments are equal literals or at least one is a variable.
 */
import { AppError } from "../errors/mod.ts";

export const PATH_MAX_CHARS = 200;
export const PATH_MAX_SEGMENTS = 10;
const LITERAL = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
const VARIABLE = /^\{([a-z_][a-z0-9_]*)\}$/;

/** One parsed segment: a literal, or a variable by name. */
export type Segment = { literal: string } | { variable: string };

export interface Pattern {
  /** The text as published (the pattern's identity). */
  text: string;
  segments: Segment[];
  /** Variable names in order of appearance. */
  variables: string[];
}

function invalid(path: string, reason: string): AppError {
  return new AppError("endpoint.validation.path_invalid", { path: path.slice(0, 300), reason });
}

function parseSegment(path: string, s: string): Segment {
  if (LITERAL.test(s)) return { literal: s };
  const v = VARIABLE.exec(s);
  if (v) return { variable: v[1] };
  throw invalid(
    path,
    `segment ${JSON.stringify(s.slice(0, 80))} is neither a literal [a-z0-9][a-z0-9_.-]{0,63} ` +
      "nor a variable {name}",
  );
}

/** Parses a pattern by the path grammar; `endpoint.validation.path_invalid` names the defect. */
export function parsePattern(value: unknown): Pattern {
  if (typeof value !== "string") throw invalid(String(value ?? ""), "must be a string");
  const path = value;
  if (path.length > PATH_MAX_CHARS) throw invalid(path, `longer than ${PATH_MAX_CHARS} characters`);
  if (!path.startsWith("/")) throw invalid(path, "must start with /");
  if (path === "/") throw invalid(path, "needs at least one segment");
  if (path.endsWith("/")) throw invalid(path, "must not end with /");
  const raw = path.slice(1).split("/");
  if (raw.length > PATH_MAX_SEGMENTS) {
    throw invalid(path, `more than ${PATH_MAX_SEGMENTS} segments`);
  }
  const segments = raw.map((s) => {
    if (s === "") throw invalid(path, "empty segment");
    return parseSegment(path, s);
  });
  const variables: string[] = [];
  for (const s of segments) {
    if (!("variable" in s)) continue;
    if (variables.includes(s.variable)) {
      throw invalid(path, `variable {${s.variable}} appears twice`);
    }
    variables.push(s.variable);
  }
  return { text: path, segments, variables };
}

/**
 * Paths under `/api/x` the product answers itself, which no published pattern may take: a
 * literal pattern equal to one is refused at publish. A variable pattern such as `/{x}` may be
 * published; it serves every other one-segment path, since these routes answer first.
 */
export const RESERVED_PATHS = ["/openapi.json"];

/** Publish's pattern check: the grammar, and no reserved path. */
export function publishablePattern(value: unknown): Pattern {
  const pattern = parsePattern(value);
  if (RESERVED_PATHS.includes(pattern.text)) {
    throw invalid(pattern.text, "reserved: the product serves this path under /api/x itself");
  }
  return pattern;
}

/**
 * True when some URL path matches both patterns (docs/decisions.md#endpoint-paths-never-overlap).
 */
export function conflicts(a: Segment[], b: Segment[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((s, i) => {
    const t = b[i];
    return "variable" in s || "variable" in t || s.literal === t.literal;
  });
}

/**
 * A node of the endpoint tree, as a binding names it: `/` (the root) or a pattern prefix. Its key
 * is the path with variable names dropped (`/orders/{}`), because a variable's name does not
 * change which URLs lie under a node.
 */
export interface TreeNode {
  text: string;
  key: string;
  segments: Segment[];
}

/** Parses a binding path: `/` or 1 to 10 segments of the pattern grammar. */
export function parseNode(value: unknown): TreeNode {
  if (value === "/") return { text: "/", key: "/", segments: [] };
  const p = parsePattern(value);
  return { text: p.text, key: nodeKey(p.segments), segments: p.segments };
}

/** The tree key of a pattern prefix. */
export function nodeKey(segments: Segment[]): string {
  if (segments.length === 0) return "/";
  return segments.map((s) => "/" + ("variable" in s ? "{}" : s.literal)).join("");
}

/**
 * Whether a binding on `node` applies to some URL the pattern matches: the node is no deeper than
 * the pattern and some URL lies under both (`/p/lit/secret` applies to `/p/lit/{v}`, and
 * `/p/{x}` to `/p/lit/{v}`).
 */
export function appliesTo(node: Segment[], pattern: Segment[]): boolean {
  return node.length <= pattern.length && conflicts(node, pattern.slice(0, node.length));
}

/**
 * Splits a request path (after `/api/x`) into decoded segments, or null when it cannot name an
 * endpoint (empty, trailing slash, empty segment, too long, undecodable).
 */
export function splitRequestPath(path: string): string[] | null {
  if (!path.startsWith("/") || path.length < 2 || path.endsWith("/")) return null;
  const raw = path.slice(1).split("/");
  if (raw.length > PATH_MAX_SEGMENTS) return null;
  const out: string[] = [];
  for (const s of raw) {
    if (s === "") return null;
    try {
      out.push(decodeURIComponent(s));
    } catch {
      return null;
    }
  }
  return out;
}
