/**
 * The rows shape every row-returning tool answers (DECISIONS.md "MCP tool arguments and results"):
 * `{columns: [{name, type}], rows, row_count, truncated, next_cursor, elapsed_ms}`, capped by
 * `service.mcp.max-rows` and `service.mcp.max-chars`. The fitting itself is lib/bounded_rows.ts;
 * a stored result is read by the executions service (at most cap + 1 rows); this file gives tools
 * the schema and the stored read.
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
    "Pass as `cursor` to executions_get_result for the next page; null at the end",
  ),
  elapsed_ms: z.number(),
});

/** The instance's caps, from the resolved settings. */
export function rowCaps(services: Pick<Services, "config">): RowCaps {
  return { maxRows: services.config.mcp.maxRows, maxChars: services.config.mcp.maxChars };
}

const caller = (ctx: ToolContext) => ({
  userId: ctx.actor.userId,
  isSuperAdmin: ctx.actor.isSuperAdmin,
});

/**
 * A page of a stored execution result: its first page by execution id, or the page a cursor
 * names. Visibility is the executions service's (another user's or workspace's run is not found).
 */
export async function storedRows(
  services: Pick<Services, "executions">,
  ctx: ToolContext,
  ref: { execution_id?: string; cursor?: string },
): Promise<BoundedRows> {
  return await services.executions.resultRows(caller(ctx), ctx.workspace.id, ref, ctx.settings);
}
