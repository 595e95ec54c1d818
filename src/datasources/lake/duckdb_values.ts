/**
 * DuckDB types and values → the canonical wire types and in-memory values of the connector
 * contract (`connectors/types.ts`). Nested types (lists, structs, maps, unions) travel as JSON
 * text; types with no wire twin (intervals, enums, time with zone) travel as their text.
 */
import {
  DuckDBArrayValue,
  DuckDBBlobValue,
  DuckDBDecimalType,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  type DuckDBType,
  DuckDBTypeId,
  DuckDBUnionValue,
  type DuckDBValue,
} from "@duckdb/node-api";
import type { ColumnSchema, WireType, WireValue } from "../connectors/types.ts";

const BY_ID: Partial<Record<DuckDBTypeId, WireType>> = {
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
  [DuckDBTypeId.DECIMAL]: "decimal",
  [DuckDBTypeId.FLOAT]: "double",
  [DuckDBTypeId.DOUBLE]: "double",
  [DuckDBTypeId.VARCHAR]: "string",
  [DuckDBTypeId.DATE]: "date",
  [DuckDBTypeId.TIMESTAMP]: "timestamp",
  [DuckDBTypeId.TIMESTAMP_S]: "timestamp",
  [DuckDBTypeId.TIMESTAMP_MS]: "timestamp",
  [DuckDBTypeId.TIMESTAMP_NS]: "timestamp",
  [DuckDBTypeId.TIMESTAMP_TZ]: "timestamptz",
  [DuckDBTypeId.TIME]: "time",
  [DuckDBTypeId.BLOB]: "binary",
  [DuckDBTypeId.UUID]: "uuid",
  [DuckDBTypeId.LIST]: "json",
  [DuckDBTypeId.ARRAY]: "json",
  [DuckDBTypeId.STRUCT]: "json",
  [DuckDBTypeId.MAP]: "json",
  [DuckDBTypeId.UNION]: "json",
};

/** The wire type of a DuckDB column type; unknown kinds travel as text. */
export function wireTypeOf(type: DuckDBType): WireType {
  if (type.typeId === DuckDBTypeId.VARCHAR && type.alias === "JSON") return "json";
  return BY_ID[type.typeId] ?? "string";
}

/** Why a column's wire form differs from what its source type suggests (may be empty). */
export function warningsFor(type: DuckDBType): string[] {
  const wire = wireTypeOf(type);
  if (type.typeId === DuckDBTypeId.HUGEINT || type.typeId === DuckDBTypeId.UHUGEINT) {
    return ["128-bit integer: values may exceed the 64-bit range of bigint consumers"];
  }
  if (type.typeId === DuckDBTypeId.TIMESTAMP_NS) {
    return ["nanosecond timestamp: served with its full fraction"];
  }
  if (wire === "string" && type.typeId !== DuckDBTypeId.VARCHAR) {
    return [`${type.toString()} has no canonical wire type; served as text`];
  }
  if (wire === "json" && type.alias !== "JSON") {
    return [`nested ${type.toString()} served as JSON text`];
  }
  return [];
}

/** A column of a result or a view, with `source_type` as DuckDB names it. */
export function columnSchema(name: string, type: DuckDBType): ColumnSchema {
  const column: ColumnSchema = { name, type: wireTypeOf(type), source_type: type.toString() };
  if (type instanceof DuckDBDecimalType) {
    column.precision = type.width;
    column.scale = type.scale;
  }
  return column;
}

/** A nested value as plain JSON (integers past 2^53 and decimals as strings, exact). */
function toJson(value: DuckDBValue): unknown {
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  if (typeof value === "bigint") {
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  if (value instanceof DuckDBListValue || value instanceof DuckDBArrayValue) {
    return value.items.map(toJson);
  }
  if (value instanceof DuckDBStructValue) {
    return Object.fromEntries(Object.entries(value.entries).map(([k, v]) => [k, toJson(v)]));
  }
  if (value instanceof DuckDBMapValue) {
    return value.entries.map((e) => ({ key: toJson(e.key), value: toJson(e.value) }));
  }
  if (value instanceof DuckDBUnionValue) return toJson(value.value);
  if (value instanceof DuckDBTimestampTZValue) return timestamptz(value);
  return String(value);
}

function timestamptz(value: DuckDBTimestampTZValue): string {
  return `${new DuckDBTimestampValue(value.micros).toString().replace(" ", "T")}Z`;
}

/** One DuckDB value in the in-memory form of its wire type. */
export function toWire(value: DuckDBValue, wire: WireType): WireValue {
  if (value === null) return null;
  switch (wire) {
    case "boolean":
      return Boolean(value);
    case "integer":
    case "double":
      return Number(value);
    case "bigint":
      return typeof value === "bigint" ? value : BigInt(value as number);
    case "binary":
      return value instanceof DuckDBBlobValue
        ? value.bytes
        : new TextEncoder().encode(String(value));
    case "timestamp":
      return String(value).replace(" ", "T");
    case "timestamptz":
      return value instanceof DuckDBTimestampTZValue ? timestamptz(value) : String(value);
    case "json":
      return typeof value === "string" ? value : JSON.stringify(toJson(value));
    default:
      return typeof value === "string" ? value : String(value);
  }
}
