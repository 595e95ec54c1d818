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
 *   the caller's `next_cursor`; `cut` names each shortened value of that first row, with its full
 *   length and how many characters were kept, so the caller can offer the rest in slices.
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
  /** The values shortened to fit (only when some were). */
  cut_cells?: CutCell[];
  /** Set when the page is one slice of a single value (see `cut_cells`). */
  cell?: { row: number; column: string; offset: number; length: number };
}

/** A value shortened to fit the character cap. */
export interface CutCell {
  /** Index of the row within `rows`. */
  row: number;
  column: string;
  /** The value's full length in characters. */
  length: number;
  /** Characters kept (before the `…`). */
  kept: number;
  /** Reads the rest of the value in slices, where the result is stored; null otherwise. */
  cursor: string | null;
}

/** A shortened value of a fitted row: its column index, full length and characters kept. */
export interface Cut {
  column: number;
  length: number;
  kept: number;
}

export const ELLIPSIS = "…";

/** Fits `rows` under `caps`; `more` says rows exist past the ones given. */
export function fitRows<C>(
  rows: readonly C[][],
  caps: RowCaps,
  more: boolean,
): { rows: C[][]; consumed: number; truncated: boolean; cut?: Cut[] } {
  const out: C[][] = [];
  let chars = 2; // the brackets of `rows`
  for (const row of rows) {
    if (out.length === caps.maxRows) break;
    const size = JSON.stringify(row).length + (out.length > 0 ? 1 : 0);
    if (chars + size > caps.maxChars) {
      if (out.length === 0) {
        const short = shorten(row, caps.maxChars - chars);
        out.push(short.row);
        return { rows: out, consumed: 1, truncated: true, cut: short.cut };
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
function shorten<C>(row: readonly C[], budget: number): { row: C[]; cut: Cut[] } {
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
  const cuts: Cut[] = [];
  row.forEach((c, column) => {
    if (typeof c === "string" && c.length > lo) cuts.push({ column, length: c.length, kept: lo });
  });
  return { row: cut(lo), cut: cuts };
}

/**
 * The longest slice of `text` from `start` whose JSON, as the one value of a one-row page
 * (`[["…"]]`), fits `maxChars`; never empty while text remains, never splitting a surrogate pair.
 */
export function sliceWithin(text: string, start: number, maxChars: number): string {
  const fits = (n: number) => JSON.stringify([[text.slice(start, start + n)]]).length <= maxChars;
  let lo = 0;
  let hi = Math.min(text.length - start, maxChars);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  let n = Math.max(1, lo);
  const last = text.charCodeAt(start + n - 1);
  if (n > 1 && last >= 0xd800 && last <= 0xdbff) n--;
  return text.slice(start, start + n);
}
