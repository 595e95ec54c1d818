/**
 * A stored result in the tools' rows shape (`executions_get_result`, the first page of
 * `pipelines_execute`): at most `maxRows + 1` rows are read from the result store (only the chunks
 * covering them), fitted under the caps, and `next_cursor` names where the next page starts.
 *
 * The cursor is opaque to callers: base64url of `{e: execution id, o: offset}`. It carries no
 * authority: every page re-checks the caller's right to the execution, so a cursor for someone
 * else's result reads nothing more than its execution id would.
 */
import { AppError } from "../errors/mod.ts";
import { type BoundedRows, fitRows, type RowCaps } from "../lib/bounded_rows.ts";
import { isUuid } from "../lib/ids.ts";
import type { JsonCell, StoredResult } from "./result_store.ts";

/** Reads rows `offset` to `offset + limit - 1` of one execution's result (visibility checked). */
export type PageReader = (
  offset: number,
  limit: number,
) => Promise<{ result: StoredResult; rows: JsonCell[][] }>;

export function encodeResultCursor(executionId: string, offset: number): string {
  const text = JSON.stringify({ e: executionId, o: offset });
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function badCursor(): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", {
    field: "cursor",
    reason: "is not a cursor this service issued",
  });
}

/** The execution and offset a cursor names; anything else is 400 on `cursor`. */
export function decodeResultCursor(cursor: string): { executionId: string; offset: number } {
  try {
    const text = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const { e, o } = JSON.parse(text) as { e?: unknown; o?: unknown };
    if (typeof e === "string" && isUuid(e) && Number.isSafeInteger(o) && (o as number) >= 0) {
      return { executionId: e, offset: o as number };
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
): { executionId: string; offset: number } {
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

/** One page of a stored result in the rows shape, read through `read`. */
export async function boundedResultRows(
  read: PageReader,
  executionId: string,
  offset: number,
  caps: RowCaps,
  started = performance.now(),
): Promise<BoundedRows<JsonCell>> {
  const { result, rows } = await read(offset, caps.maxRows + 1);
  const more = offset + rows.length < result.row_count;
  const fit = fitRows(rows, caps, more);
  const next = offset + fit.consumed;
  return {
    columns: result.schema.map(({ name, type }) => ({ name, type })),
    rows: fit.rows,
    row_count: fit.rows.length,
    truncated: fit.truncated,
    next_cursor: next < result.row_count ? encodeResultCursor(executionId, next) : null,
    elapsed_ms: Math.round(performance.now() - started),
  };
}
