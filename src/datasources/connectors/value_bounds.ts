/**
 * The bounds on values a read hands to JavaScript (issue 22). A single value over
 * `service.executor.max-cell-bytes` fails the read with `ValueTooLarge`: DuckDB and SQLite refuse
 * it inside the engine, before it becomes a JavaScript value; the PostgreSQL and MySQL drivers
 * build a row whole, so there each row is measured as it arrives (`rowBytes`). Batches are cut at `BATCH_BYTES`, so the
 * rows in flight stay bounded whatever a row holds.
 */
import type { WireValue } from "./types.ts";

/** A batch holds at most this many bytes of values (and at least one row). */
export const BATCH_BYTES = 32 * 1024 * 1024;

/** What a read refused: one value over the cell bound. */
export class ValueTooLarge extends Error {
  override name = "ValueTooLarge";
  constructor(
    readonly column: string | null,
    readonly bytes: number | null,
    readonly limit: number,
  ) {
    super(
      `a value of ${column === null ? "the result" : `column ${column}`} holds ${
        bytes === null ? "more than" : `${bytes} bytes, over`
      } the ${limit}-byte bound`,
    );
  }
}

/** A driver that cannot stop between rows (PostgreSQL) read more in one batch than it may. */
export class BatchTooLarge extends Error {
  override name = "BatchTooLarge";
  constructor(rows: number, limit: number) {
    super(
      `${rows} rows of one batch passed ${limit} bytes; read fewer or narrower rows (a LIMIT, ` +
        "substr(), length())",
    );
  }
}

/**
 * `error` as a `ValueTooLarge`: one already, or SQLite's refusal of a value over the length limit
 * its connections are held to (`limit`); otherwise undefined.
 */
export function asValueTooLarge(error: unknown, limit: number): ValueTooLarge | undefined {
  if (error instanceof ValueTooLarge) return error;
  if (error instanceof Error && /\bstring or blob too big\b/.test(error.message)) {
    return new ValueTooLarge(null, null, limit);
  }
  return undefined;
}

/** A value's size near enough to bound memory: characters of a string, bytes of a blob. */
export function wireBytes(value: WireValue): number {
  if (typeof value === "string") return value.length;
  if (value instanceof Uint8Array) return value.byteLength;
  return 8;
}

/**
 * The bytes of `row` (`wireBytes` of each value), refusing a value over `maxCellBytes` with the
 * name `columns` give it. Connectors whose driver builds rows whole call it as each row arrives.
 */
export function rowBytes(
  row: readonly WireValue[],
  maxCellBytes = Infinity,
  columns: readonly { name: string }[] = [],
): number {
  let sum = 0;
  for (let c = 0; c < row.length; c++) {
    const bytes = wireBytes(row[c]);
    if (bytes > maxCellBytes) {
      throw new ValueTooLarge(columns[c]?.name ?? null, bytes, maxCellBytes);
    }
    sum += bytes;
  }
  return sum;
}
