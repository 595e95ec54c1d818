/**
 * MySQL/MariaDB types to canonical wire types, for result fields (by protocol type code and
 * flags) and for introspection (by `information_schema.COLUMNS.DATA_TYPE`). The driver is set to
 * hand over big numbers, dates and JSON as text, so converting a value is cheap and exact.
 */
import type { WireType, WireValue } from "./types.ts";

const UNSIGNED = 32;
const BINARY_CHARSET = 63;

export interface MysqlField {
  name: string;
  columnType: number;
  columnLength: number;
  flags: number;
  characterSet: number;
  extendedFormat?: string;
}

const NAMES: Record<number, string> = {
  0: "DECIMAL",
  1: "TINYINT",
  2: "SMALLINT",
  3: "INT",
  4: "FLOAT",
  5: "DOUBLE",
  6: "NULL",
  7: "TIMESTAMP",
  8: "BIGINT",
  9: "MEDIUMINT",
  10: "DATE",
  11: "TIME",
  12: "DATETIME",
  13: "YEAR",
  14: "DATE",
  15: "VARCHAR",
  16: "BIT",
  245: "JSON",
  246: "DECIMAL",
  247: "ENUM",
  248: "SET",
  249: "TINYBLOB",
  250: "MEDIUMBLOB",
  251: "LONGBLOB",
  252: "BLOB",
  253: "VARCHAR",
  254: "CHAR",
  255: "GEOMETRY",
};

/** Each wire type with the codes or names that map to it whatever the flags or column type. */
type WireGroups<K> = Partial<Record<WireType, K[]>>;

function byKey<K>(groups: WireGroups<K>): Map<K, WireType> {
  return new Map(
    Object.entries(groups).flatMap(([wire, keys]) => keys.map((k) => [k, wire as WireType])),
  );
}

/** Result-field protocol type codes. */
const FIELD_WIRE = byKey<number>({
  integer: [2, 9, 13],
  bigint: [8],
  decimal: [0, 246],
  double: [4, 5],
  timestamptz: [7],
  timestamp: [12],
  date: [10, 14],
  time: [11],
  binary: [255],
});

/** Protocol codes of the character and blob types; the charset tells text from bytes. */
const TEXT_CODES = new Set([15, 249, 250, 251, 252, 253, 254]);

/** Wire type and source name of a result field. */
export function fieldType(f: MysqlField): { type: WireType; source: string } {
  const unsigned = (f.flags & UNSIGNED) !== 0;
  const binary = f.characterSet === BINARY_CHARSET;
  const base = NAMES[f.columnType] ?? `TYPE ${f.columnType}`;
  const source = unsigned && f.columnType <= 9 ? `${base} UNSIGNED` : base;
  if (f.extendedFormat === "json" || f.columnType === 245) return { type: "json", source: "JSON" };
  if (f.columnType === 1) {
    return f.columnLength === 1
      ? { type: "boolean", source: "TINYINT(1)" }
      : { type: "integer", source };
  }
  if (f.columnType === 3) return { type: unsigned ? "bigint" : "integer", source };
  if (f.columnType === 16) {
    return { type: f.columnLength === 1 ? "boolean" : "binary", source: `BIT(${f.columnLength})` };
  }
  if (TEXT_CODES.has(f.columnType)) {
    return binary
      ? {
        type: "binary",
        source: base === "VARCHAR" ? "VARBINARY" : base === "CHAR" ? "BINARY" : base,
      }
      : {
        type: "string",
        source: base === "TINYBLOB"
          ? "TINYTEXT"
          : base.endsWith("BLOB")
          ? base.replace("BLOB", "TEXT")
          : base,
      };
  }
  return { type: FIELD_WIRE.get(f.columnType) ?? "string", source };
}

/** `information_schema.COLUMNS.DATA_TYPE` names. */
const DATA_WIRE = byKey<string>({
  boolean: ["bool", "boolean"],
  integer: ["smallint", "mediumint", "year"],
  bigint: ["bigint"],
  decimal: ["decimal", "numeric"],
  double: ["float", "double", "real"],
  timestamptz: ["timestamp"],
  timestamp: ["datetime"],
  date: ["date"],
  time: ["time"],
  json: ["json"],
  uuid: ["uuid"],
});

/** Wire type of an `information_schema.COLUMNS` row; `lossy` when read as text for want of one. */
export function dataType(
  dataTypeName: string,
  columnType: string,
): { type: WireType; lossy: boolean } {
  const t = dataTypeName.toLowerCase();
  const known = (type: WireType) => ({ type, lossy: false });
  if (t === "tinyint") return known(/^tinyint\(1\)/i.test(columnType) ? "boolean" : "integer");
  if (t === "int" || t === "integer") {
    return known(/unsigned/i.test(columnType) ? "bigint" : "integer");
  }
  if (t === "bit") return known(/^bit\(1\)$/i.test(columnType) ? "boolean" : "binary");
  const type = DATA_WIRE.get(t);
  if (type) return known(type);
  if (/blob$|^binary$|^varbinary$/.test(t)) return known("binary");
  if (/char$|text$|^enum$|^set$/.test(t)) return known("string");
  return { type: "string", lossy: true };
}

const bitsToBool = (v: unknown) =>
  v instanceof Uint8Array ? v.some((b) => b !== 0) : Number(v) !== 0;

/** Converts a driver value into its column's wire form. */
export function mysqlConverter(type: WireType): (v: unknown) => WireValue {
  switch (type) {
    case "boolean":
      return (v) => v === null ? null : bitsToBool(v);
    case "bigint":
      return (v) => v === null ? null : BigInt(v as string);
    case "integer":
    case "double":
      return (v) => v === null ? null : Number(v);
    case "timestamp":
      return (v) => v === null ? null : String(v).replace(" ", "T");
    case "timestamptz":
      return (v) => v === null ? null : `${String(v).replace(" ", "T")}Z`;
    case "binary":
      return (v) =>
        v === null ? null : v instanceof Uint8Array ? v : new TextEncoder().encode(String(v));
    default:
      return (v) =>
        v === null ? null : v instanceof Uint8Array ? new TextDecoder().decode(v) : String(v);
  }
}
