/**
 * PostgreSQL types to canonical wire types. Query results are typed by OID; introspection also
 * knows the type's category, so domains, enums and arrays map by what they are.
 */
import type { WireType } from "./types.ts";

interface PgType {
  name: string;
  wire: WireType;
  /** True when the wire form loses what the source type means (read as text). */
  lossy?: boolean;
}

/** Source type names by OID, grouped by the wire type a value is read as. */
const WIRE_TYPES: Partial<Record<WireType, Record<number, string>>> = {
  boolean: { 16: "bool" },
  binary: { 17: "bytea" },
  string: { 18: "char", 19: "name", 25: "text", 1042: "bpchar", 1043: "varchar" },
  integer: { 21: "int2", 23: "int4" },
  bigint: { 20: "int8", 26: "oid" },
  double: { 700: "float4", 701: "float8" },
  decimal: { 1700: "numeric" },
  json: { 114: "json", 3802: "jsonb" },
  date: { 1082: "date" },
  time: { 1083: "time" },
  timestamp: { 1114: "timestamp" },
  timestamptz: { 1184: "timestamptz" },
  uuid: { 2950: "uuid" },
};

/** Types with no wire form of their own: read as their text, which loses what they mean. */
const LOSSY_TYPES: Record<number, string> = {
  142: "xml",
  650: "cidr",
  790: "money",
  829: "macaddr",
  869: "inet",
  1186: "interval",
  1266: "timetz",
};

const PG_TYPES = new Map<number, PgType>();
for (const [wire, names] of Object.entries(WIRE_TYPES)) {
  for (const [oid, name] of Object.entries(names)) {
    PG_TYPES.set(Number(oid), { name, wire: wire as WireType });
  }
}
for (const [oid, name] of Object.entries(LOSSY_TYPES)) {
  PG_TYPES.set(Number(oid), { name, wire: "string", lossy: true });
}

/** Wire type and source name of a result column's type OID. */
export function pgType(oid: number): PgType {
  return PG_TYPES.get(oid) ?? { name: `oid:${oid}`, wire: "string", lossy: true };
}

/**
 * `2024-01-02 03:04:05.5+00` (the text form under TimeZone=UTC) as `2024-01-02T03:04:05.5Z`.
 * `infinity` and BC values have no ISO form and pass through as sent.
 */
export function pgTimestamptz(text: string): string {
  // The shape the server sends for every four-digit AD year, checked by hand: a value of every
  // row of a read passes here, and the regex cost more than the rest of its conversion.
  const n = text.length;
  if (
    text[4] === "-" && text[10] === " " && text[13] === ":" && text[n - 3] === "+" &&
    text[n - 2] === "0" && text[n - 1] === "0"
  ) {
    return `${text.slice(0, 10)}T${text.slice(11, n - 3)}Z`;
  }
  const m = /^(\d{4,}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)\+00$/.exec(text);
  return m ? `${m[1]}T${m[2]}Z` : text;
}

export function pgTimestamp(text: string): string {
  return text.length > 10 && text[10] === " " ? `${text.slice(0, 10)}T${text.slice(11)}` : text;
}

/**
 * The postgres.js `types` option: every value arrives already in its wire form, so a row needs
 * no second pass. int8 and oid as bigint; dates, times and JSON as the server's text.
 */
export const PG_DRIVER_TYPES = {
  wire_bigint: { to: 20, from: [20, 26], serialize: String, parse: (x: string) => BigInt(x) },
  wire_date: { to: 1082, from: [1082], serialize: String, parse: (x: string) => x },
  wire_timestamp: { to: 1114, from: [1114], serialize: String, parse: pgTimestamp },
  wire_timestamptz: { to: 1184, from: [1184], serialize: String, parse: pgTimestamptz },
  wire_json: { to: 114, from: [114, 3802], serialize: String, parse: (x: string) => x },
};

/** Precision and scale of a `numeric(p,s)` type modifier. */
export function numericTypmod(typmod: number): { precision?: number; scale?: number } {
  if (typmod < 4) return {};
  return { precision: ((typmod - 4) >> 16) & 0xffff, scale: (typmod - 4) & 0xffff };
}
