/**
 * How many bytes each row of a DuckDB vector holds, read off the engine's own string headers, so
 * that a value's size is known before it becomes a JavaScript value (issue 22: a 400 MB string
 * turned into one aborted the process). A DuckDB string or blob is a 16-byte header whose first
 * four bytes are its length; nested values (lists, structs, maps, arrays, unions) add up their
 * children. Fixed-width values count 8 bytes: they are never what breaks a bound.
 *
 * The vectors' fields read here are private in @duckdb/node-api's types and public in its code;
 * `duckdb_bytes_test.ts` pins what they hold, so an upgrade that moves them fails there.
 */
import {
  DuckDBArrayVector,
  DuckDBBitVector,
  DuckDBBlobVector,
  DuckDBListVector,
  DuckDBMapVector,
  DuckDBStructVector,
  DuckDBUnionVector,
  DuckDBVarCharVector,
  type DuckDBVector,
} from "@duckdb/node-api";

const FIXED_BYTES = 8;
const STRING_HEADER_BYTES = 16;

interface Valid {
  itemValid(row: number): boolean;
}
interface StringInternals {
  dataView: DataView;
  validity: Valid;
}
interface ListInternals {
  entryData: BigUint64Array;
  childData: DuckDBVector;
  validity: Valid;
}

/** Whether rows of `vector` can differ in size (strings, blobs, bits, nested values). */
export function variableWidth(vector: DuckDBVector): boolean {
  return vector instanceof DuckDBVarCharVector || vector instanceof DuckDBBlobVector ||
    vector instanceof DuckDBBitVector || vector instanceof DuckDBListVector ||
    vector instanceof DuckDBMapVector || vector instanceof DuckDBStructVector ||
    vector instanceof DuckDBArrayVector || vector instanceof DuckDBUnionVector;
}

/** Bytes of each of the first `count` rows of `vector`; a NULL counts 0. */
export function rowBytes(vector: DuckDBVector, count: number): Float64Array {
  const out = new Float64Array(count);
  if (
    vector instanceof DuckDBVarCharVector || vector instanceof DuckDBBlobVector ||
    vector instanceof DuckDBBitVector
  ) {
    const { dataView, validity } = vector as unknown as StringInternals;
    for (let r = 0; r < count; r++) {
      if (validity.itemValid(r)) out[r] = dataView.getUint32(r * STRING_HEADER_BYTES, true);
    }
    return out;
  }
  if (vector instanceof DuckDBMapVector) {
    return rowBytes((vector as unknown as { listVector: DuckDBVector }).listVector, count);
  }
  if (vector instanceof DuckDBUnionVector) {
    return rowBytes((vector as unknown as { structVector: DuckDBVector }).structVector, count);
  }
  if (vector instanceof DuckDBListVector) {
    const { entryData, childData, validity } = vector as unknown as ListInternals;
    const child = rowBytes(childData, childData.itemCount);
    for (let r = 0; r < count; r++) {
      if (!validity.itemValid(r)) continue;
      const from = Number(entryData[2 * r]);
      const to = from + Number(entryData[2 * r + 1]);
      let sum = FIXED_BYTES;
      for (let c = from; c < to; c++) sum += child[c];
      out[r] = sum;
    }
    return out;
  }
  if (vector instanceof DuckDBArrayVector) {
    const { childData } = vector as unknown as ListInternals;
    const child = rowBytes(childData, childData.itemCount);
    const span = count === 0 ? 0 : childData.itemCount / count;
    for (let r = 0; r < count; r++) {
      let sum = FIXED_BYTES;
      for (let c = r * span; c < (r + 1) * span; c++) sum += child[c];
      out[r] = sum;
    }
    return out;
  }
  if (vector instanceof DuckDBStructVector) {
    for (const entry of (vector as unknown as { entryVectors: DuckDBVector[] }).entryVectors) {
      const bytes = rowBytes(entry, count);
      for (let r = 0; r < count; r++) out[r] += bytes[r];
    }
    return out;
  }
  return out.fill(FIXED_BYTES);
}
