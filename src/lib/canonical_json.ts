/**
 * Canonical JSON and the body hash (docs/decisions.md#body-hash): object keys sorted by Unicode
 * code point, no whitespace, numbers in ECMAScript's shortest round-trip form (`-0` is `0`),
 * strings escaped as `JSON.stringify` escapes them (lone surrogates as `\udXXX`). The same value
 * always gives the same text, so the same content always gives the same hash on every instance;
 * that is what lets an export be imported elsewhere with its hash intact and an `If-Match` be
 * compared.
 *
 * Only JSON values are accepted: null, booleans, finite numbers, strings, arrays and plain objects.
 * `undefined` (also as an object member), functions, symbols, bigints, NaN, ±Infinity, class
 * instances (Date, Map…) and cycles are refused with a {@link CanonicalJsonError} naming the path,
 * because silently dropping or coercing them would make two different inputs hash alike.
 */
import { sha256HexSync } from "./hashing.ts";

/** A value canonical JSON accepts. */
export type JsonValue = null | boolean | number | string | JsonValue[] | {
  [key: string]: JsonValue;
};

/** Raised for a value that has no JSON form; `path` is where, e.g. `$.nodes[2].id`. */
export class CanonicalJsonError extends TypeError {
  readonly path: string;

  constructor(path: string, what: string) {
    super(`${path} is ${what}, which has no JSON form`);
    this.name = "CanonicalJsonError";
    this.path = path;
  }
}

/**
 * Orders strings by code point. The default sort compares UTF-16 code units, which puts an astral
 * character (surrogate pair, 0xD800…) before U+E000–U+FFFF; code point order does not.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    // Only when exactly one side is a surrogate does code-unit order disagree with code points.
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function describe(value: unknown): string | null {
  switch (typeof value) {
    case "undefined":
      return "undefined";
    case "function":
      return "a function";
    case "symbol":
      return "a symbol";
    case "bigint":
      return "a bigint";
    case "number":
      return Number.isFinite(value) ? null : String(value);
    default:
      return null;
  }
}

function write(value: unknown, path: string, seen: Set<object>, out: string[]): void {
  const bad = describe(value);
  if (bad) throw new CanonicalJsonError(path, bad);
  if (value === null || typeof value === "boolean") {
    out.push(String(value));
    return;
  }
  if (typeof value === "number") {
    // Number::toString is the shortest round-trip form; it spells -0 as "0".
    out.push(String(value));
    return;
  }
  if (typeof value === "string") {
    out.push(JSON.stringify(value));
    return;
  }
  const obj = value as object;
  if (seen.has(obj)) throw new CanonicalJsonError(path, "a cycle");
  seen.add(obj);
  if (Array.isArray(obj)) {
    out.push("[");
    for (let i = 0; i < obj.length; i++) {
      if (i > 0) out.push(",");
      // A hole would be written as null by JSON.stringify; it is not a JSON value either.
      if (!(i in obj)) throw new CanonicalJsonError(`${path}[${i}]`, "an array hole");
      write(obj[i], `${path}[${i}]`, seen, out);
    }
    out.push("]");
  } else {
    const proto = Object.getPrototypeOf(obj);
    if (proto !== Object.prototype && proto !== null) {
      throw new CanonicalJsonError(path, `an instance of ${proto?.constructor?.name ?? "a class"}`);
    }
    const record = obj as Record<string, unknown>;
    const keys = Object.keys(record).sort(compareCodePoints);
    out.push("{");
    keys.forEach((key, i) => {
      if (i > 0) out.push(",");
      out.push(JSON.stringify(key), ":");
      write(record[key], `${path}.${key}`, seen, out);
    });
    out.push("}");
  }
  seen.delete(obj);
}

/** The canonical JSON text of `value`; throws {@link CanonicalJsonError} for non-JSON values. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, "$", new Set(), out);
  return out.join("");
}

/** `sha256:` + lowercase hex SHA-256 of an already canonical text's UTF-8 bytes. */
export function hashCanonical(text: string): string {
  return `sha256:${sha256HexSync(text)}`;
}

/** The body hash of a value: `sha256:` + hex SHA-256 of its canonical JSON. */
export function bodyHash(value: unknown): string {
  return hashCanonical(canonicalJson(value));
}

/** The syntactic form of a body hash: `sha256:` and 64 lowercase hex digits. */
export const BODY_HASH_RE = /^sha256:[0-9a-f]{64}$/;
