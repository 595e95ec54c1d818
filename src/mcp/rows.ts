/**
 * The rows shape every row-returning tool answers (docs/decisions.md#rows-are-capped-for-agents):
 * `{columns: [{name, type}], rows, row_count, truncated, next_cursor, elapsed_ms}`, capped by
 * `service.mcp.max-rows` and `service.mcp.max-chars`, with `cut_cells` when a value was shortened
 * and `cell` when the page is a slice of one value (docs/mcp.md#results). The fitting itself is
 * lib/bounded_rows.ts; a stored result is read by the executions service (at most cap + 1 rows);
 * this file gives tools the schema, the page-size arguments and the stored read.
 */
import { z } from "zod";
import type { BoundedRows, RowCaps } from "../lib/bounded_rows.ts";
import type { Services } from "../services.ts";
import type { ToolContext } from "./tool.ts";

export const rowsShape = z.object({
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  rows: z.array(z.array(z.unknown())).describe("At most service.mcp.max-rows rows"),
  row_count: z.int().describe("Rows in this answer"),
  truncated: z.boolean().describe("Rows or values were left out to stay within the caps"),
  next_cursor: z.string().nullable().describe(
    "Pass as `cursor` to the same reading tool for the next page; null at the end",
  ),
  elapsed_ms: z.number(),
  cut_cells: z.array(z.object({
    row: z.int().describe("Index of the row in `rows`"),
    column: z.string(),
    length: z.int().describe("The value's full length in characters"),
    kept: z.int().describe("Characters sent, before the closing `…`"),
    cursor: z.string().nullable().describe(
      "Pass as `cursor` to executions_get_result to read the rest of the value in slices; " +
        "null when the rows are not stored (previews, probes)",
    ),
  })).optional().describe("Values shortened to fit service.mcp.max-chars (only when some were)"),
  cell: z.object({
    row: z.int().describe("The row's position in the whole result"),
    column: z.string(),
    offset: z.int().describe("Where this slice starts in the value, in characters"),
    length: z.int().describe("The value's full length"),
  }).optional().describe("Set when this page is one slice of a single long value"),
});

/** `limit` of a tool reading rows: fewer rows per page than the instance's cap. */
export const rowLimitArg = z.int().min(1).optional().describe(
  "Rows per page, at most service.mcp.max-rows (200 by default; a larger value is clamped). " +
    "Pages are also cut at service.mcp.max-chars characters of row JSON",
);

/** `page_rows` of a run: the rows per page of its answer and of the cursors that follow. */
export const pageRowsArg = z.int().min(1).optional().describe(
  "Rows per result page, for this answer's first page and every next_cursor after it (the REST " +
    "header SVC-Result-Page-Rows); clamped to service.mcp.max-rows (200 by default), and pages " +
    "are also cut at service.mcp.max-chars characters",
);

/** The instance's caps, from the resolved settings. */
export function rowCaps(services: Pick<Services, "settings">): RowCaps {
  const { maxRows, maxChars } = services.settings.mcp;
  return { maxRows, maxChars };
}

const caller = (ctx: ToolContext) => ({
  userId: ctx.actor.userId,
  isSuperAdmin: ctx.actor.isSuperAdmin,
});

/**
 * A page of a stored execution result: its first page by execution id, or the page a cursor
 * names, `limit` rows at most. Visibility is the executions service's (another user's or
 * workspace's run is not found).
 */
export async function storedRows(
  services: Pick<Services, "runs">,
  ctx: ToolContext,
  ref: { execution_id?: string; cursor?: string; limit?: number },
): Promise<BoundedRows> {
  return await services.runs.executions.resultRows(
    caller(ctx),
    ctx.workspace.id,
    ref,
    ctx.settings,
  );
}
