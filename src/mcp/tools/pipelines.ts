/**
 * The pipeline tools: list, get, create, update (the REST routes' services, spec 2 §4.1), execute
 * and execute one node (the executions service, triggered via MCP), and the release checks.
 * Bodies are validated by the pipeline service, as for REST; these schemas describe them for the
 * agent and require the shapes only.
 */
import { z } from "zod";
import { executionView } from "../../executions/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import { checkRunsView, pipelineRowView, pipelineView } from "../../pipelines/mod.ts";
import { clampPage, pageArgs, paged, pagedOutput } from "../paging.ts";
import { rowsShape } from "../rows.ts";
import { CREATE, defineTool, OVERWRITE, READ, RUN } from "../tool.ts";
import { runAndWait } from "./run_wait.ts";

const op = (ctx: { actor: Principal; workspace: WorkspaceContext }) => ({
  actor: ctx.actor,
  workspaceId: ctx.workspace.id,
  scope: ctx.workspace,
});

// As REST's path parameter: an id that names nothing is `pipeline.not_found`, not a format error.
const id = z.string().max(64).describe("Pipeline id (from pipelines_list)");
const values = z.record(z.string(), z.unknown());

/** The body fields of spec 2 §2.2, as REST takes them. */
const bodyFields = {
  name: z.string().max(200).describe("Folder path, e.g. `team/report` (2 to 10 segments)"),
  display_name: z.string().max(200).optional(),
  description: z.string().max(10_000).optional(),
  schema_version: z.int().optional().describe("1"),
  parameters: values.optional().describe(
    "Parameter declarations: name to {type, required, default, …} (docs_get `authoring`)",
  ),
  settings: values.optional().describe("{staging_engine: duckdb|sqlite, max_parallel_nodes}"),
  nodes: z.array(values).min(1).max(500).describe(
    "The DAG: {id, type: DQL|PIPELINE|CALCULATOR|DML|DDL, source, sql | template, output, " +
      "depends_on, …}; exactly one node delivers to the caller",
  ),
  checks: z.array(values).max(50).optional().describe("Release checks"),
};

const runOutput = z.object({
  execution: executionView,
  result: rowsShape.nullable().describe(
    "The result's first page when the run succeeded in time; page on with executions_get_result",
  ),
});

const waitArg = z.int().min(1).max(3600).optional().describe(
  "Seconds to wait for the end (default and ceiling: service.mcp.execute-timeout-seconds)",
);

export const tools = [
  defineTool({
    name: "pipelines_list",
    title: "List pipelines",
    description:
      "Lists the pipelines of your workspace, paged (offset, limit), optionally filtered by " +
      "owner (user id), datasource name, or q (text in the name or description).",
    floor: "read",
    input: z.object({
      owner: z.string().max(64).optional(),
      datasource: z.string().max(200).optional(),
      q: z.string().max(200).optional(),
      ...pageArgs,
    }),
    output: pagedOutput(pipelineRowView),
    annotations: READ,
    handler: async (s, ctx, a) => {
      const page = clampPage(s, a);
      const filter = {
        owner: a.owner || undefined,
        datasource: a.datasource || undefined,
        q: a.q || undefined,
      };
      const { items, total } = await s.pipelines.list(ctx.workspace.id, filter, page);
      return paged(items, page, total);
    },
  }),
  defineTool({
    name: "pipelines_get",
    title: "Read a pipeline",
    description:
      "The working version of a pipeline: its draft when one exists, else the current release, " +
      "with its body (nodes, parameters, checks), status and body_hash (pass it as if_match to " +
      "pipelines_update).",
    floor: "read",
    input: z.object({ id }),
    output: pipelineView,
    annotations: READ,
    handler: async (s, ctx, a) => await s.pipelines.get(ctx.workspace.id, a.id),
  }),
  defineTool({
    name: "pipelines_create",
    title: "Create a pipeline",
    description:
      "Creates a pipeline as DRAFT version 1 (not yet runnable by others, never served until a " +
      "person releases it: there is no tool for releasing). Takes the whole body.",
    floor: "write",
    input: z.object(bodyFields),
    output: pipelineView,
    annotations: CREATE,
    handler: async (s, ctx, a) => await s.pipelines.create(op(ctx), stripUndefined(a)),
  }),
  defineTool({
    name: "pipelines_update",
    title: "Save a pipeline's draft",
    description:
      "Saves the whole body as the pipeline's draft (replacing the previous draft), against " +
      "`if_match`, the body_hash you last read; a stale hash is `pipeline.version.conflict`. A " +
      "body identical to the current release changes nothing.",
    floor: "write",
    input: z.object({
      id,
      if_match: z.string().max(200).describe("body_hash of the version you edited"),
      ...bodyFields,
    }),
    output: pipelineView,
    annotations: OVERWRITE,
    handler: async (s, ctx, a) => {
      const { id: pipelineId, if_match, ...body } = a;
      return await s.pipelines.update(op(ctx), pipelineId, if_match, stripUndefined(body));
    },
  }),
  defineTool({
    name: "pipelines_execute",
    waits: true,
    title: "Run a pipeline",
    description:
      "Runs a pipeline (its current release, or `version`) with `parameters`, waits for its end " +
      "up to the timeout, and answers the execution record and the result's first page " +
      "(columns, rows, truncated, next_cursor). If the run has not ended by then, the record says " +
      "RUNNING: poll executions_get, then read executions_get_result. Sends a progress " +
      "notification per node when you pass a progressToken. Closing the stream or abandoning the " +
      "call does NOT cancel the run; executions_cancel does.",
    floor: "execute",
    input: z.object({
      id,
      version: z.int().min(1).optional().describe("Defaults to the current release"),
      parameters: values.optional(),
      timeout_seconds: waitArg,
    }),
    output: runOutput,
    annotations: RUN,
    handler: async (s, ctx, a) =>
      await runAndWait(s, ctx, {
        pipelineId: a.id,
        version: a.version,
        parameters: a.parameters ?? {},
        waitSeconds: waitSeconds(s.config.mcp.executeTimeoutSeconds, a.timeout_seconds),
      }),
  }),
  defineTool({
    name: "pipelines_execute_node",
    waits: true,
    title: "Run one node of a pipeline",
    description:
      "Runs one node of a pipeline version (the draft included) with only the nodes it depends " +
      "on; the node's rows are the result. For trying a step while authoring. Answers like " +
      "pipelines_execute; abandoning the call does not cancel the run.",
    floor: "execute_node",
    input: z.object({
      id,
      node: z.string().max(64).describe("Node id"),
      version: z.int().min(1).optional().describe("Defaults to the current release"),
      parameters: values.optional(),
      timeout_seconds: waitArg,
    }),
    output: runOutput,
    annotations: RUN,
    handler: async (s, ctx, a) =>
      await runAndWait(s, ctx, {
        pipelineId: a.id,
        node: a.node,
        version: a.version,
        parameters: a.parameters ?? {},
        waitSeconds: waitSeconds(s.config.mcp.executeTimeoutSeconds, a.timeout_seconds),
      }),
  }),
  defineTool({
    name: "pipelines_run_checks",
    title: "Run a version's release checks",
    description:
      "Runs the release checks of one pipeline version now through the bounded read-only probe " +
      "and records their runs; answers each check's outcome.",
    floor: "execute",
    input: z.object({
      id,
      version: z.int().min(1),
      parameters: values.optional(),
    }),
    output: checkRunsView,
    annotations: RUN,
    handler: async (s, ctx, a) =>
      await s.pipelines.runChecks(op(ctx), a.id, a.version, a.parameters ?? {}),
  }),
];

function waitSeconds(ceiling: number, asked: number | undefined): number {
  return Math.min(asked ?? ceiling, ceiling);
}

/** The body as sent: optional fields left out rather than present as undefined. */
function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
