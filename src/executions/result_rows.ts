/**
 * A stored result in the tools' rows shape (`executions_get_result`, the first page of
 * `pipelines_execute`): at most `maxRows + 1` rows are read from the result store (only the chunks
 * covering them), fitted under the caps, and `next_cursor` names where the next page starts.
 *
 * The cursor is opaque to callers: base64url of `{e: execution id, o: offset}`, plus `l` when the
 * caller chose a page size (later pages keep it), and `c` + `s` when it reads one value in slices:
 * column `c` of row `o`, from character `s` (docs/mcp.md#results). It carries no authority: every
 * page re-checks the caller's right to the execution, so a cursor for someone else's result reads
 * nothing more than its execution id would.
 */
import { AppError } from "../errors/mod.ts";
import {
  type BoundedRows,
  type CutCell,
  fitRows,
  type RowCaps,
  sliceWithin,
} from "../lib/bounded_rows.ts";
import { isUuid } from "../lib/ids.ts";
import type { JsonCell, StoredResult } from "./result_store.ts";

/** Reads rows `offset` to `offset + limit - 1` of one execution's result (visibility checked). */
export type PageReader = (
  offset: number,
  limit: number,
) => Promise<{ result: StoredResult; rows: JsonCell[][] }>;

/** Where a page starts: a row, the page size asked for, or one value from a character on. */
export interface ResultPosition {
  executionId: string;
  offset: number;
  /** Rows per page the caller asked for (kept by the cursors that follow). */
  limit?: number;
  /** Reading the value of this column of row `offset` in slices, from character `start`. */
  cell?: { column: number; start: number };
}

export function encodeResultCursor(
  executionId: string,
  offset: number,
  more: { limit?: number; cell?: { column: number; start: number } } = {},
): string {
  const text = JSON.stringify({
    e: executionId,
    o: offset,
    ...(more.limit === undefined ? {} : { l: more.limit }),
    ...(more.cell === undefined ? {} : { c: more.cell.column, s: more.cell.start }),
  });
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function badCursor(): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", {
    field: "cursor",
    reason: "is not a cursor this service issued",
  });
}

const count = (v: unknown, min: number) => Number.isSafeInteger(v) && (v as number) >= min;

/** The position a cursor names; anything else is 400 on `cursor`. */
export function decodeResultCursor(cursor: string): ResultPosition {
  try {
    const text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const { e, o, l, c, s } = JSON.parse(text) as Record<string, unknown>;
    const cell = c !== undefined || s !== undefined;
    if (
      typeof e === "string" && isUuid(e) && count(o, 0) && (l === undefined || count(l, 1)) &&
      (!cell || (count(c, 0) && count(s, 0)))
    ) {
      return {
        executionId: e,
        offset: o as number,
        ...(l === undefined ? {} : { limit: l as number }),
        ...(cell ? { cell: { column: c as number, start: s as number } } : {}),
      };
    }
  } catch {
    // fall through: malformed base64 or JSON
  }
  throw badCursor();
}

/**
 * Which result and where: a cursor alone, an execution id alone (its first page), or both when
 * they agree.
 */
export function resultPosition(
  ref: { execution_id?: string; cursor?: string },
): ResultPosition {
  if (ref.cursor !== undefined) {
    const at = decodeResultCursor(ref.cursor);
    if (ref.execution_id !== undefined && ref.execution_id !== at.executionId) throw badCursor();
    return at;
  }
  if (typeof ref.execution_id !== "string") {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "execution_id",
      reason: "an execution id or a cursor is required",
    });
  }
  return { executionId: ref.execution_id, offset: 0 };
}

/**
 * One page of a stored result in the rows shape, read through `read`: the rows from `at`, at most
 * `at.limit` (within `caps.maxRows`), or, for a cell position, one slice of that value.
 */
export async function boundedResultRows(
  read: PageReader,
  at: ResultPosition,
  caps: RowCaps,
  started = performance.now(),
): Promise<BoundedRows<JsonCell>> {
  if (at.cell) return await cellSlice(read, at, at.cell, caps, started);
  const { executionId, offset, limit } = at;
  const maxRows = Math.min(limit ?? caps.maxRows, caps.maxRows);
  const { result, rows } = await read(offset, maxRows + 1);
  const more = offset + rows.length < result.row_count;
  const fit = fitRows(rows, { maxRows, maxChars: caps.maxChars }, more);
  const next = offset + fit.consumed;
  const columns = result.schema.map(({ name, type }) => ({ name, type }));
  const keep = limit === undefined ? {} : { limit };
  const cutCells: CutCell[] | undefined = fit.cut?.map((c) => ({
    row: 0,
    column: columns[c.column].name,
    length: c.length,
    kept: c.kept,
    cursor: encodeResultCursor(executionId, offset, { cell: { column: c.column, start: c.kept } }),
  }));
  return {
    columns,
    rows: fit.rows,
    row_count: fit.rows.length,
    truncated: fit.truncated,
    next_cursor: next < result.row_count ? encodeResultCursor(executionId, next, keep) : null,
    elapsed_ms: Math.round(performance.now() - started),
    ...(cutCells?.length ? { cut_cells: cutCells } : {}),
  };
}

/** One slice of one value, as a one-row, one-column page; `next_cursor` reads the next slice. */
async function cellSlice(
  read: PageReader,
  at: ResultPosition,
  cell: { column: number; start: number },
  caps: RowCaps,
  started: number,
): Promise<BoundedRows<JsonCell>> {
  const { result, rows } = await read(at.offset, 1);
  const column = result.schema[cell.column];
  const value = rows[0]?.[cell.column];
  if (!column || typeof value !== "string" || cell.start > value.length) throw badCursor();
  const slice = sliceWithin(value, cell.start, caps.maxChars);
  const end = cell.start + slice.length;
  return {
    columns: [{ name: column.name, type: column.type }],
    rows: [[slice]],
    row_count: 1,
    truncated: end < value.length,
    next_cursor: end < value.length
      ? encodeResultCursor(at.executionId, at.offset, { cell: { column: cell.column, start: end } })
      : null,
    elapsed_ms: Math.round(performance.now() - started),
    cell: { row: at.offset, column: column.name, offset: cell.start, length: value.length },
  };
}
