/**
 * DuckDB types to canonical wire types. Nested types (LIST, STRUCT, MAP, ARRAY, UNION) travel as
 * JSON text, which keeps their structure; INTERVAL, BIT and TIME WITH TIME ZONE have no wire type
 * and are read as text with a warning.
 */
import {
  blobValue,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
  JsonDuckDBValueConverter,
} from "@duckdb/node-api";
import { bindValue } from "./common.ts";
import { pgTimestamp, pgTimestamptz } from "./postgres_types.ts";
import type { WireType, WireValue } from "./types.ts";

export function duckdbWireType(type: DuckDBType): { type: WireType; lossy: boolean } {
  if (type.alias === "JSON") return { type: "json", lossy: false };
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return { type: "boolean", lossy: false };
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
      return { type: "integer", lossy: false };
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return { type: "bigint", lossy: false };
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return { type: "double", lossy: false };
    case DuckDBTypeId.DECIMAL:
    case DuckDBTypeId.BIGNUM:
      return { type: "decimal", lossy: false };
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.ENUM:
      return { type: "string", lossy: false };
    case DuckDBTypeId.BLOB:
      return { type: "binary", lossy: false };
    case DuckDBTypeId.UUID:
      return { type: "uuid", lossy: false };
    case DuckDBTypeId.DATE:
      return { type: "date", lossy: false };
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_NS:
      return { type: "time", lossy: false };
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return { type: "timestamp", lossy: false };
    case DuckDBTypeId.TIMESTAMP_TZ:
      return { type: "timestamptz", lossy: false };
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.UNION:
      return { type: "json", lossy: false };
    default:
      return { type: "string", lossy: true };
  }
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
