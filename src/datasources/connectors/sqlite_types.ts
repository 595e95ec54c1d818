/**
 * SQLite is dynamically typed: a column's declared type only gives it an affinity. The wire type
 * follows the declared type by SQLite's affinity rules, refined by the common type names people
 * declare (BOOLEAN, DATE, DATETIME, JSON, UUID). An expression column has no declared type, so it
 * takes the storage class of its first non-null value. Values that do not fit their column's
 * type (a text in an INTEGER column) are converted where that is exact, else sent as text.
 */
import type { WireType, WireValue } from "./types.ts";

type Raw = bigint | number | string | Uint8Array | null;

export function sqliteWireType(declared: string): { type: WireType; lossy: boolean } {
  const t = declared.toUpperCase();
  if (/BOOL/.test(t)) return { type: "boolean", lossy: false };
  if (/INT/.test(t)) return { type: "bigint", lossy: false };
  if (/^(DATETIME|TIMESTAMP)/.test(t)) return { type: "timestamp", lossy: false };
  if (/^DATE/.test(t)) return { type: "date", lossy: false };
  if (/^TIME/.test(t)) return { type: "time", lossy: false };
  if (/^JSON/.test(t)) return { type: "json", lossy: false };
  if (/^UUID/.test(t)) return { type: "uuid", lossy: false };
  if (/CHAR|CLOB|TEXT/.test(t)) return { type: "string", lossy: false };
  // No declared type: anything goes in, so only text holds every value.
  if (t === "") return { type: "string", lossy: true };
  if (/BLOB/.test(t)) return { type: "binary", lossy: false };
  if (/REAL|FLOA|DOUB/.test(t)) return { type: "double", lossy: false };
  if (/DEC|NUM/.test(t)) return { type: "decimal", lossy: false };
  return { type: "string", lossy: true };
}

/** The wire type of an expression column, from a value's storage class. */
export function storageClassType(value: Raw): { type: WireType; source: string } {
  if (typeof value === "bigint") return { type: "bigint", source: "INTEGER" };
  if (typeof value === "number") return { type: "double", source: "REAL" };
  if (value instanceof Uint8Array) return { type: "binary", source: "BLOB" };
  return { type: "string", source: value === null ? "NULL" : "TEXT" };
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

const asText = (v: Raw): string => v instanceof Uint8Array ? decoder.decode(v) : String(v);

/** Converts one raw value (integers read as bigint) into its column's wire form. */
export function sqliteConverter(type: WireType): (v: Raw) => WireValue {
  switch (type) {
    case "boolean":
      return (v) =>
        v === null
          ? null
          : typeof v === "bigint" || typeof v === "number"
          ? Number(v) !== 0
          : asText(v);
    case "bigint":
      return (v) =>
        typeof v === "number" && Number.isInteger(v)
          ? BigInt(v)
          : v === null || typeof v === "bigint"
          ? v
          : asText(v);
    case "double":
      return (v) =>
        typeof v === "bigint" ? Number(v) : v === null || typeof v === "number" ? v : asText(v);
    case "decimal":
      return (v) => v === null ? null : asText(v);
    case "timestamp":
      return (v) =>
        typeof v === "string" && v[10] === " "
          ? `${v.slice(0, 10)}T${v.slice(11)}`
          : v === null
          ? null
          : asText(v);
    case "binary":
      return (v) =>
        typeof v === "string"
          ? encoder.encode(v)
          : v === null || v instanceof Uint8Array
          ? v
          : encoder.encode(String(v));
    default:
      return (v) => v === null ? null : asText(v);
  }
}

/** `DECIMAL(10,2)` → precision 10, scale 2. */
export function declaredPrecision(declared: string): { precision?: number; scale?: number } {
  const m = /\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/.exec(declared);
  if (!m || !/DEC|NUM/i.test(declared)) return {};
  return { precision: Number(m[1]), ...(m[2] !== undefined ? { scale: Number(m[2]) } : {}) };
}
