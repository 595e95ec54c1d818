/**
 * The execution tools: history, one record, the result in the rows shape (first page or by
 * cursor), and cancel — the executions service as the REST routes call it (spec 2 §4.3–4.5).
 * Visibility is the service's: a caller sees their own runs (a super admin the workspace's), and
 * another's or another workspace's id is `result.execution_not_found`.
 */
import { z } from "zod";
import { EXECUTION_STATUSES, executionRowView, executionView } from "../../executions/mod.ts";
import { clampPage, pageArgs, paged, pagedOutput } from "../paging.ts";
import { rowsShape, storedRows } from "../rows.ts";
import { defineTool, READ, type ToolAnnotations, type ToolContext } from "../tool.ts";

const caller = (ctx: ToolContext) => ({
  userId: ctx.actor.userId,
  isSuperAdmin: ctx.actor.isSuperAdmin,
});

const executionId = z.uuid().describe("Execution id");
const timestamp = z.string().refine((v) => !Number.isNaN(Date.parse(v)), "not a timestamp")
  .transform((v) => new Date(v).toISOString());

/** Asks a running execution to stop: removes nothing; asking twice changes nothing more. */
const CANCEL: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
};

export const tools = [
  defineTool({
    name: "executions_list",
    title: "List executions",
    description:
      "Your executions in this workspace, newest first, paged; filter by pipeline_id, status " +
      "(RUNNING, SUCCESS, FAILED, ABORTED) and start time.",
    floor: "read",
    input: z.object({
      pipeline_id: z.uuid().optional(),
      status: z.enum(EXECUTION_STATUSES).optional(),
      started_after: timestamp.optional(),
      started_before: timestamp.optional(),
      ...pageArgs,
    }),
    output: pagedOutput(executionRowView),
    annotations: READ,
    handler: async (s, ctx, a) => {
      const page = clampPage(s, a);
      const { items, total } = await s.executions.list(
        caller(ctx),
        {
          workspaceId: ctx.workspace.id,
          pipelineId: a.pipeline_id,
          status: a.status,
          startedAfter: a.started_after,
          startedBefore: a.started_before,
        },
        page.offset,
        page.limit,
      );
      // The list never carries result links (spec 2 §4.5), as REST.
      return paged(items.map(({ result_expires_at: _, ...r }) => r), page, total);
    },
  }),
  defineTool({
    name: "executions_get",
    title: "Read an execution",
    description:
      "One execution record: status, timings, per-node statistics, the failure record when it " +
      "failed, and while its result is readable result_url and result_expires_at.",
    floor: "read",
    input: z.object({ id: executionId }),
    output: executionView,
    annotations: READ,
    handler: async (s, ctx, a) =>
      await s.executions.view(caller(ctx), ctx.workspace.id, a.id, s.origin()),
  }),
  defineTool({
    name: "executions_get_result",
    title: "Read an execution's result",
    description:
      "A page of a finished execution's result in the rows shape: pass `execution_id` for the " +
      "first page, or `cursor` (a next_cursor you were given) for the next. Pages are capped in " +
      "rows and characters; `truncated` says something was left out of this page.",
    floor: "read",
    input: z.object({
      execution_id: executionId.optional(),
      cursor: z.string().max(500).optional(),
    }),
    output: rowsShape,
    annotations: READ,
    handler: async (s, ctx, a) => await storedRows(s, ctx, a),
  }),
  defineTool({
    name: "executions_cancel",
    title: "Cancel an execution",
    description:
      "Stops a RUNNING execution of yours (a super admin: anyone's). Answers once the request " +
      "to stop is made; executions_get shows it ABORTED when it has stopped.",
    floor: "execute",
    input: z.object({ id: executionId }),
    output: z.object({ execution_id: z.string(), cancel_requested: z.literal(true) }),
    annotations: CANCEL,
    handler: async (s, ctx, a) => {
      await s.executions.cancel(caller(ctx), ctx.workspace.id, a.id);
      return { execution_id: a.id, cancel_requested: true as const };
    },
  }),
];
