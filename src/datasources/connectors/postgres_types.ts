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

export const PG_TYPES: Record<number, PgType> = {
  16: { name: "bool", wire: "boolean" },
  17: { name: "bytea", wire: "binary" },
  18: { name: "char", wire: "string" },
  19: { name: "name", wire: "string" },
  20: { name: "int8", wire: "bigint" },
  21: { name: "int2", wire: "integer" },
  23: { name: "int4", wire: "integer" },
  25: { name: "text", wire: "string" },
  26: { name: "oid", wire: "bigint" },
  114: { name: "json", wire: "json" },
  142: { name: "xml", wire: "string", lossy: true },
  700: { name: "float4", wire: "double" },
  701: { name: "float8", wire: "double" },
  790: { name: "money", wire: "string", lossy: true },
  869: { name: "inet", wire: "string", lossy: true },
  650: { name: "cidr", wire: "string", lossy: true },
  829: { name: "macaddr", wire: "string", lossy: true },
  1042: { name: "bpchar", wire: "string" },
  1043: { name: "varchar", wire: "string" },
  1082: { name: "date", wire: "date" },
  1083: { name: "time", wire: "time" },
  1114: { name: "timestamp", wire: "timestamp" },
  1184: { name: "timestamptz", wire: "timestamptz" },
  1186: { name: "interval", wire: "string", lossy: true },
  1266: { name: "timetz", wire: "string", lossy: true },
  1700: { name: "numeric", wire: "decimal" },
  2950: { name: "uuid", wire: "uuid" },
  3802: { name: "jsonb", wire: "json" },
};

/** Wire type and source name of a result column's type OID. */
export function pgType(oid: number): PgType {
  return PG_TYPES[oid] ?? { name: `oid:${oid}`, wire: "string", lossy: true };
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
