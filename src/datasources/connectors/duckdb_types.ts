/**
 * DuckDB types to canonical wire types. Nested types (LIST, STRUCT, MAP, ARRAY, UNION) travel as
 * JSON text, which keeps their structure; INTERVAL, BIT and TIME WITH TIME ZONE have no wire type
 * and are read as text with a warning.
 */
import {
  blobValue,
  type DuckDBDateValue,
  type DuckDBDecimalType,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
  type DuckDBVector,
  JsonDuckDBValueConverter,
} from "@duckdb/node-api";
import { bindValue } from "./common.ts";
import { pgTimestamp, pgTimestamptz } from "./postgres_types.ts";
import type { WireType, WireValue } from "./types.ts";

/** The wire type of each DuckDB type; one absent here is read as text, with a warning. */
const DUCK_WIRE: Partial<Record<DuckDBTypeId, WireType>> = {
  [DuckDBTypeId.BOOLEAN]: "boolean",
  [DuckDBTypeId.TINYINT]: "integer",
  [DuckDBTypeId.SMALLINT]: "integer",
  [DuckDBTypeId.INTEGER]: "integer",
  [DuckDBTypeId.UTINYINT]: "integer",
  [DuckDBTypeId.USMALLINT]: "integer",
  [DuckDBTypeId.UINTEGER]: "bigint",
  [DuckDBTypeId.BIGINT]: "bigint",
  [DuckDBTypeId.UBIGINT]: "bigint",
  [DuckDBTypeId.HUGEINT]: "bigint",
  [DuckDBTypeId.UHUGEINT]: "bigint",
  [DuckDBTypeId.FLOAT]: "double",
  [DuckDBTypeId.DOUBLE]: "double",
  [DuckDBTypeId.DECIMAL]: "decimal",
  [DuckDBTypeId.BIGNUM]: "decimal",
  [DuckDBTypeId.VARCHAR]: "string",
  [DuckDBTypeId.ENUM]: "string",
  [DuckDBTypeId.BLOB]: "binary",
  [DuckDBTypeId.UUID]: "uuid",
  [DuckDBTypeId.DATE]: "date",
  [DuckDBTypeId.TIME]: "time",
  [DuckDBTypeId.TIME_NS]: "time",
  [DuckDBTypeId.TIMESTAMP]: "timestamp",
  [DuckDBTypeId.TIMESTAMP_S]: "timestamp",
  [DuckDBTypeId.TIMESTAMP_MS]: "timestamp",
  [DuckDBTypeId.TIMESTAMP_NS]: "timestamp",
  [DuckDBTypeId.TIMESTAMP_TZ]: "timestamptz",
  [DuckDBTypeId.LIST]: "json",
  [DuckDBTypeId.STRUCT]: "json",
  [DuckDBTypeId.MAP]: "json",
  [DuckDBTypeId.ARRAY]: "json",
  [DuckDBTypeId.UNION]: "json",
};

export function duckdbWireType(type: DuckDBType): { type: WireType; lossy: boolean } {
  const wire = type.alias === "JSON" ? "json" : DUCK_WIRE[type.typeId];
  return wire ? { type: wire, lossy: false } : { type: "string", lossy: true };
}

const json = (v: unknown) => JSON.stringify(v, (_, x) => typeof x === "bigint" ? x.toString() : x);

/** Converts a DuckDB value of `type` (mapped to `wire`) into its wire form. */
export function duckdbConverter(type: DuckDBType, wire: WireType): (v: unknown) => WireValue {
  switch (wire) {
    case "boolean":
      return (v) => v as boolean | null;
    case "integer":
    case "double":
      return (v) => v === null ? null : Number(v);
    case "bigint":
      return (v) => v === null ? null : typeof v === "bigint" ? v : BigInt(v as number);
    case "binary":
      return (v) => v === null ? null : (v as { bytes: Uint8Array }).bytes;
    case "timestamp":
      return (v) => v === null ? null : pgTimestamp(String(v));
    case "timestamptz":
      return (v) => v === null ? null : pgTimestamptz(String(v));
    case "json":
      if (type.alias === "JSON") return (v) => v === null ? null : String(v);
      return (v) =>
        v === null
          ? null
          : json(JsonDuckDBValueConverter(v as never, type, JsonDuckDBValueConverter));
    default:
      return (v) => v === null ? null : String(v);
  }
}

/** Writes column `column` of `rows` from a chunk's vector, in wire form. */
export type ColumnReader = (vector: DuckDBVector, rows: WireValue[][], column: number) => void;

/**
 * A column reader for `type`: what `duckdbConverter` gives value by value, with the two costly
 * conversions of analytical data done without DuckDB's value objects and BigInt arithmetic:
 * decimals from their scaled integers, dates through a cache of their text (dates repeat).
 */
export function duckdbColumnReader(type: DuckDBType, wire: WireType): ColumnReader {
  if (type.typeId === DuckDBTypeId.DECIMAL && wire === "decimal") {
    const scale = (type as DuckDBDecimalType).scale;
    if (scale <= 15) {
      const unit = 10 ** scale;
      const bytes = (type as DuckDBDecimalType).width > 18 ? 16 : 8;
      return (vector, rows, column) => {
        const decimals = vector as unknown as DecimalInternals;
        const raw = (type as DuckDBDecimalType).width > 9 &&
          decimals.dataView instanceof DataView &&
          typeof decimals.validity?.itemValid === "function";
        for (let r = 0; r < rows.length; r++) {
          const n = raw ? safeScaled(decimals, r, bytes) : undefined;
          if (n !== undefined) {
            rows[r][column] = n === null ? null : decimalNumberText(n, scale, unit);
          } else {
            const v = decimals.getScaledValue(r);
            rows[r][column] = v === null ? null : decimalText(v, scale, unit);
          }
        }
      };
    }
  }
  if (type.typeId === DuckDBTypeId.DATE && wire === "date") {
    return (vector, rows, column) => {
      for (let r = 0; r < rows.length; r++) {
        const v = vector.getItem(r) as DuckDBDateValue | null;
        rows[r][column] = v === null ? null : dateText(v);
      }
    };
  }
  const convert = duckdbConverter(type, wire);
  return (vector, rows, column) => {
    for (let r = 0; r < rows.length; r++) rows[r][column] = convert(vector.getItem(r));
  };
}

/** What a 64- or 128-bit decimal vector of @duckdb/node-api holds (checked before use). */
interface DecimalInternals {
  dataView?: DataView;
  validity?: { itemValid(i: number): boolean };
  getScaledValue(i: number): bigint | null;
}

const TWO_32 = 2 ** 32;
const TWO_21 = 2 ** 21;

/**
 * A decimal's scaled integer read from its little-endian bytes as a double when it is exact
 * (|v| < 2^53), null for NULL, undefined when it needs BigInt: most stored decimals are small,
 * and BigInt arithmetic costs several times a double's.
 */
function safeScaled(v: DecimalInternals, r: number, bytes: 8 | 16): number | null | undefined {
  if (!v.validity!.itemValid(r)) return null;
  const view = v.dataView!;
  const at = r * bytes;
  const lo = view.getUint32(at, true);
  const hi = view.getUint32(at + 4, true);
  if (bytes === 16) {
    const upperLo = view.getUint32(at + 8, true);
    const upperHi = view.getUint32(at + 12, true);
    if (upperLo === 0 && upperHi === 0) return hi < TWO_21 ? hi * TWO_32 + lo : undefined;
    if (upperLo === TWO_32 - 1 && upperHi === TWO_32 - 1) {
      return hi >= TWO_32 - TWO_21 ? (hi - TWO_32) * TWO_32 + lo : undefined;
    }
    return undefined;
  }
  if (hi < TWO_21) return hi * TWO_32 + lo;
  return hi >= TWO_32 - TWO_21 ? (hi - TWO_32) * TWO_32 + lo : undefined;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The text DuckDB's DuckDBDecimalValue gives: `-12.30` for -1230 at scale 2. */
export function decimalText(scaled: bigint, scale: number, unit = 10 ** scale): string {
  if (scale === 0 || scaled > SAFE || scaled < -SAFE) {
    if (scale === 0) return scaled.toString();
    const p = 10n ** BigInt(scale);
    const abs = scaled < 0n ? -scaled : scaled;
    return `${scaled < 0n ? "-" : ""}${abs / p}.${String(abs % p).padStart(scale, "0")}`;
  }
  return decimalNumberText(Number(scaled), scale, unit);
}

/** `decimalText` of a scaled integer below 2^53 in magnitude, held as a double. */
function decimalNumberText(n: number, scale: number, unit: number): string {
  if (scale === 0) return String(n);
  // Exact in doubles: both operands are integers below 2^53, so are the remainder and quotient.
  const abs = n < 0 ? -n : n;
  const fraction = abs % unit;
  return `${n < 0 ? "-" : ""}${(abs - fraction) / unit}.${String(fraction).padStart(scale, "0")}`;
}

const dates = new Map<number, string>();

function dateText(value: DuckDBDateValue): string {
  let text = dates.get(value.days);
  if (text === undefined) {
    if (dates.size >= 100_000) dates.clear();
    text = String(value);
    dates.set(value.days, text);
  }
  return text;
}

/** The type as the source names it: an alias such as JSON wins over its storage type. */
export function sourceName(type: DuckDBType): string {
  return type.alias ?? String(type);
}

/** Bind values (from `translatePlaceholders`) as DuckDB takes them; DUCKDB and LAKE share it. */
export function toDuck(values: unknown[]): DuckDBValue[] {
  return values.map((v) => {
    const b = bindValue(v);
    if (b instanceof Uint8Array) return blobValue(b);
    return (b ?? null) as DuckDBValue;
  });
}
