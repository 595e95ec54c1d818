/**
 * The execution tools: history, one record, the result in the rows shape (first page or by
 * cursor), and cancel — the executions service as the REST routes call it
 * (docs/executions.md#running-pipelines-execute-results-cancel-replay).
 * Visibility is the service's: a caller sees their own runs (a super admin the workspace's), and
 * another's or another workspace's id is `result.execution_not_found`.
 */
import { z } from "zod";
import { EXECUTION_STATUSES, executionRowView, executionView } from "../../executions/mod.ts";
import { clampPage, pageArgs, paged, pagedOutput } from "../paging.ts";
import { rowLimitArg, rowsShape, storedRows } from "../rows.ts";
import { CANCEL, defineTool, READ, type ToolContext } from "../tool.ts";

const caller = (ctx: ToolContext) => ({
  userId: ctx.actor.userId,
  isSuperAdmin: ctx.actor.isSuperAdmin,
});

const executionId = z.uuid().describe(
  "Execution id (a uuid: execution.execution_id of pipelines_execute, or from executions_list)",
);
const timestamp = z.string().refine((v) => !Number.isNaN(Date.parse(v)), "not a timestamp")
  .transform((v) => new Date(v).toISOString());

export const tools = [
  defineTool({
    name: "executions_list",
    title: "List executions",
    description:
      "Your executions in this workspace, newest first, paged; filter by pipeline_id, status " +
      "(RUNNING, SUCCESS, FAILED, ABORTED) and start time.",
    floor: "read",
    input: z.strictObject({
      pipeline_id: z.uuid().optional().describe("Only runs of this pipeline (its id)"),
      status: z.enum(EXECUTION_STATUSES).optional().describe("Only runs in this status"),
      started_after: timestamp.optional().describe(
        "Only runs started at or after this ISO 8601 time, e.g. `2024-05-01T00:00:00Z`",
      ),
      started_before: timestamp.optional().describe("Only runs started before this ISO 8601 time"),
      ...pageArgs,
    }),
    output: pagedOutput(executionRowView),
    annotations: READ,
    handler: async (s, ctx, a) => {
      const page = clampPage(s, a);
      const { items, total } = await s.runs.executions.list(
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
      // The list never carries result links (docs/executions.md), as REST.
      return paged(items.map(({ result_expires_at: _, ...r }) => r), page, total);
    },
  }),
  defineTool({
    name: "executions_get",
    title: "Read an execution",
    description:
      "One execution record: status, timings, per-node statistics, the failure record when it " +
      "failed (read `error.code` and `error.message` first), and while its result is readable " +
      "result_url and result_expires_at. Poll it while a run is RUNNING.",
    floor: "read",
    input: z.strictObject({ execution_id: executionId }),
    output: executionView,
    annotations: READ,
    handler: async (s, ctx, a) =>
      await s.runs.executions.view(
        caller(ctx),
        ctx.workspace.id,
        a.execution_id,
        s.platform.origin(),
      ),
  }),
  defineTool({
    name: "executions_get_result",
    title: "Read an execution's result",
    description:
      "A page of a finished execution's result in the rows shape: pass `execution_id` for the " +
      "first page, or `cursor` (a next_cursor you were given) for the next; one of the two is " +
      "required. Pages hold `limit` rows at most (the cursor keeps the size asked before; never " +
      "more than service.mcp.max-rows) and are cut at service.mcp.max-chars characters; " +
      "`truncated` says something was left out of this page. A value too long for one page is " +
      "shortened and listed in `cut_cells` with a cursor that reads the rest of it in slices. " +
      "A result is kept 300 s by default (the run's result_ttl_seconds; result_expires_at in " +
      "the record): past it the id and every cursor answer result.expired, and the pipeline " +
      "must run again with pipelines_execute.",
    floor: "read",
    input: z.strictObject({
      execution_id: executionId.optional().describe(
        "The execution whose first page to read; or give `cursor`",
      ),
      cursor: z.string().max(500).optional().describe(
        "A next_cursor (or cut_cells cursor) from an earlier answer; or give `execution_id`",
      ),
      limit: rowLimitArg,
    }).meta({
      // One of the two is needed; the properties are restated so the schema holds under a strict
      // validator's `strictRequired` (tests/mcp_schemas_test.ts compiles it with Ajv).
      anyOf: [
        { properties: { execution_id: true }, required: ["execution_id"] },
        { properties: { cursor: true }, required: ["cursor"] },
      ],
    }),
    output: rowsShape,
    annotations: READ,
    handler: async (s, ctx, a) => await storedRows(s, ctx, a),
  }),
  defineTool({
    name: "executions_cancel",
    title: "Cancel an execution",
    description:
      "Stops a RUNNING execution of yours (a super admin: anyone's); its unfinished work is " +
      "thrown away. Answers once the request to stop is made; executions_get shows it ABORTED " +
      "when it has stopped. An execution that is not running is pipeline.execution.not_running.",
    floor: "execute",
    input: z.strictObject({ execution_id: executionId }),
    output: z.object({ execution_id: z.string(), cancel_requested: z.literal(true) }),
    annotations: CANCEL,
    handler: async (s, ctx, a) => {
      await s.runs.executions.cancel(caller(ctx), ctx.workspace.id, a.execution_id);
      return { execution_id: a.execution_id, cancel_requested: true as const };
    },
  }),
];
