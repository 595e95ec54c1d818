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

/** Wire type and source name of a result field. */
export function fieldType(f: MysqlField): { type: WireType; source: string } {
  const unsigned = (f.flags & UNSIGNED) !== 0;
  const binary = f.characterSet === BINARY_CHARSET;
  const base = NAMES[f.columnType] ?? `TYPE ${f.columnType}`;
  const source = unsigned && f.columnType <= 9 ? `${base} UNSIGNED` : base;
  if (f.extendedFormat === "json" || f.columnType === 245) return { type: "json", source: "JSON" };
  switch (f.columnType) {
    case 1:
      return {
        type: f.columnLength === 1 ? "boolean" : "integer",
        source: f.columnLength === 1 ? "TINYINT(1)" : source,
      };
    case 2:
    case 9:
    case 13:
      return { type: "integer", source };
    case 3:
      return { type: unsigned ? "bigint" : "integer", source };
    case 8:
      return { type: "bigint", source };
    case 0:
    case 246:
      return { type: "decimal", source };
    case 4:
    case 5:
      return { type: "double", source };
    case 7:
      return { type: "timestamptz", source };
    case 12:
      return { type: "timestamp", source };
    case 10:
    case 14:
      return { type: "date", source };
    case 11:
      return { type: "time", source };
    case 16:
      return {
        type: f.columnLength === 1 ? "boolean" : "binary",
        source: `BIT(${f.columnLength})`,
      };
    case 249:
    case 250:
    case 251:
    case 252:
    case 253:
    case 254:
    case 15:
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
    case 255:
      return { type: "binary", source };
    default:
      return { type: "string", source };
  }
}

/** Wire type of an `information_schema.COLUMNS` row; `lossy` when read as text for want of one. */
export function dataType(
  dataTypeName: string,
  columnType: string,
): { type: WireType; lossy: boolean } {
  const t = dataTypeName.toLowerCase();
  const unsigned = /unsigned/i.test(columnType);
  if (t === "tinyint") {
    return { type: /^tinyint\(1\)/i.test(columnType) ? "boolean" : "integer", lossy: false };
  }
  if (t === "bool" || t === "boolean") return { type: "boolean", lossy: false };
  if (["smallint", "mediumint", "year"].includes(t)) return { type: "integer", lossy: false };
  if (t === "int" || t === "integer") {
    return { type: unsigned ? "bigint" : "integer", lossy: false };
  }
  if (t === "bigint") return { type: "bigint", lossy: false };
  if (t === "decimal" || t === "numeric") return { type: "decimal", lossy: false };
  if (["float", "double", "real"].includes(t)) return { type: "double", lossy: false };
  if (t === "timestamp") return { type: "timestamptz", lossy: false };
  if (t === "datetime") return { type: "timestamp", lossy: false };
  if (t === "date") return { type: "date", lossy: false };
  if (t === "time") return { type: "time", lossy: false };
  if (t === "json") return { type: "json", lossy: false };
  if (t === "uuid") return { type: "uuid", lossy: false };
  if (t === "bit") {
    return { type: /^bit\(1\)$/i.test(columnType) ? "boolean" : "binary", lossy: false };
  }
  if (/blob$|^binary$|^varbinary$/.test(t)) return { type: "binary", lossy: false };
  if (/char$|text$|^enum$|^set$/.test(t)) return { type: "string", lossy: false };
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
