/**
 * How a lake describes DuckDB columns: the DUCKDB connector's wire types (values are converted by
 * the same column readers), DuckDB's own type names as `source_type`, decimals with precision and
 * scale, and a warning where the wire form differs from what the source type suggests.
 */
import { DuckDBDecimalType, type DuckDBType, DuckDBTypeId } from "@duckdb/node-api";
import { duckdbWireType } from "../connectors/duckdb_types.ts";
import type { ColumnSchema } from "../connectors/types.ts";

/** Why a column's wire form differs from what its source type suggests (may be empty). */
export function warningsFor(type: DuckDBType): string[] {
  const wire = duckdbWireType(type).type;
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
  const column: ColumnSchema = {
    name,
    type: duckdbWireType(type).type,
    source_type: type.toString(),
  };
  if (type instanceof DuckDBDecimalType) {
    column.precision = type.width;
    column.scale = type.scale;
  }
  return column;
}
