/**
 * The rows shape tools answer (docs/decisions.md#rows-are-capped-for-agents): `{columns: [{name,
 * type}], rows, row_count, truncated, next_cursor, elapsed_ms}` under a row cap and a character
 * cap. The caller reads at most `maxRows + 1` rows (the extra one only says more exist); this fits
 * them:
 * - rows are kept in order while their count stays within `maxRows` and the JSON text of `rows`
 *   within `maxChars`;
 * - a first row that alone exceeds `maxChars` is kept with its longest strings shortened (ending
 *   in `…`), so a page always moves forward and a cursor can never stall (a row too wide even
 *   with every string emptied is kept as short as it gets);
 * - `row_count` is the number of rows in `rows`; `truncated` says something was left out (rows
 *   past a cap, or a shortened value); `consumed` is how many source rows the page covers, for
 *   the caller's `next_cursor`.
 */

export interface RowCaps {
  maxRows: number;
  maxChars: number;
}

export interface BoundedRows<C = unknown> {
  columns: { name: string; type: string }[];
  rows: C[][];
  row_count: number;
  truncated: boolean;
  next_cursor: string | null;
  elapsed_ms: number;
}

export const ELLIPSIS = "…";

/** Fits `rows` under `caps`; `more` says rows exist past the ones given. */
export function fitRows<C>(
  rows: readonly C[][],
  caps: RowCaps,
  more: boolean,
): { rows: C[][]; consumed: number; truncated: boolean } {
  const out: C[][] = [];
  let chars = 2; // the brackets of `rows`
  for (const row of rows) {
    if (out.length === caps.maxRows) break;
    const size = JSON.stringify(row).length + (out.length > 0 ? 1 : 0);
    if (chars + size > caps.maxChars) {
      if (out.length === 0) {
        out.push(shorten(row, caps.maxChars - chars));
        return { rows: out, consumed: 1, truncated: true };
      }
      break;
    }
    chars += size;
    out.push(row);
  }
  return { rows: out, consumed: out.length, truncated: more || out.length < rows.length };
}

/**
 * `row` with every string longer than some length L cut to L characters plus `…`, L the largest
 * that makes the row's JSON fit `budget` (found by bisection); the shortest cut shared fairly.
 */
function shorten<C>(row: readonly C[], budget: number): C[] {
  const cut = (limit: number) =>
    row.map((c) =>
      typeof c === "string" && c.length > limit ? (c.slice(0, limit) + ELLIPSIS) as C : c
    );
  const longest = Math.max(0, ...row.map((c) => typeof c === "string" ? c.length : 0));
  let lo = 0;
  let hi = longest;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (JSON.stringify(cut(mid)).length <= budget) lo = mid;
    else hi = mid - 1;
  }
  return cut(lo);
}
