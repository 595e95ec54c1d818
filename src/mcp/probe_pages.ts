/**
 * Pages of `sql_probe` (docs/mcp.md#results). A probe is not stored, so its `next_cursor` names a
 * position, not a result: the agent sends the same `datasource`, `sql` and `parameters` again with
 * `cursor`, and the statement runs again, reading the rows before the position and dropping them.
 * That keeps the probe path's own bound — at most its 1000 rows are ever read for one statement,
 * whatever page — and stores nothing. The cursor carries a digest of the statement it belongs to,
 * so one sent with another statement is refused rather than paging something else. Rows come in
 * the engine's order: a statement without ORDER BY may page inconsistently.
 */
import { AppError } from "../errors/mod.ts";
import type { BoundedRows, RowCaps } from "../lib/bounded_rows.ts";
import { type ProbeResult, probeRows } from "../datasources/mod.ts";

/** The probe path's own row bound (datasources/probe.ts): no page reaches past it. */
export const PROBE_ROW_BOUND = 1000;

export interface ProbeStatement {
  datasource: string;
  sql: string;
  parameters?: Record<string, unknown>;
  /** A plan's pages are not the rows' pages: the cursor of one is refused with the other. */
  explain?: boolean;
}

async function digest(statement: ProbeStatement): Promise<string> {
  const text = JSON.stringify([
    statement.datasource,
    statement.sql,
    statement.parameters ?? {},
    ...(statement.explain ? ["explain"] : []),
  ]);
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(hash).slice(0, 12), (b) => b.toString(16).padStart(2, "0"))
    .join("");
}

const b64url = (text: string) =>
  btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

function badCursor(reason: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", {
    field: "cursor",
    location: "arguments",
    reason,
  });
}

/** The row a page starts at: 0 without a cursor; a cursor of another statement is refused. */
export async function probeOffset(
  statement: ProbeStatement,
  cursor: string | undefined,
): Promise<{ offset: number; limit?: number }> {
  if (cursor === undefined) return { offset: 0 };
  let parsed: { p?: unknown; h?: unknown; l?: unknown };
  try {
    parsed = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    throw badCursor("is not a cursor this service issued");
  }
  const { p, h, l } = parsed;
  if (!Number.isSafeInteger(p) || (p as number) < 1 || typeof h !== "string") {
    throw badCursor("is not a cursor this service issued");
  }
  if (l !== undefined && (!Number.isSafeInteger(l) || (l as number) < 1)) {
    throw badCursor("is not a cursor this service issued");
  }
  if (h !== await digest(statement)) {
    throw badCursor(
      "belongs to another statement: send the same datasource, sql and parameters with it",
    );
  }
  return { offset: p as number, ...(l === undefined ? {} : { limit: l as number }) };
}

/** How many rows to ask the probe for, to serve the page at `offset` of `pageRows`. */
export function probeReach(offset: number, pageRows: number): number {
  return Math.min(offset + pageRows, PROBE_ROW_BOUND);
}

/**
 * The page at `offset` of a probe run with `maxRows: probeReach(offset, caps.maxRows)`, in the rows
 * shape: the rows from `offset`, fitted under `caps`, and a cursor while rows remain within the
 * probe's bound. `asked` is the page size the caller chose (kept in the cursor).
 */
export async function probePage(
  statement: ProbeStatement,
  result: ProbeResult,
  offset: number,
  caps: RowCaps,
  asked?: number,
): Promise<BoundedRows> {
  const page = probeRows({ ...result, rows: result.rows.slice(offset) }, caps);
  // Every row sent is one row consumed (a shortened row too).
  const next = offset + page.row_count;
  const remains = next < result.rows.length || (result.truncated && next < PROBE_ROW_BOUND);
  if (!remains) return page;
  const position = { p: next, h: await digest(statement), ...(asked ? { l: asked } : {}) };
  return { ...page, next_cursor: b64url(JSON.stringify(position)) };
}
