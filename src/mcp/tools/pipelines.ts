/**
 * The pipeline tools: list, get, create, update (the REST routes' services,
 * docs/authoring.md#authoring-pipelines), execute and execute one node (the executions service,
 * triggered via MCP), and the release checks. Bodies are validated by the pipeline service, as for REST, so a body defect carries
 * REST's code; these schemas describe them for the agent and require the shapes only.
 */
import { z } from "zod";
import { executionView } from "../../executions/mod.ts";
import type { Principal, WorkspaceContext } from "../../identity/mod.ts";
import { bodyParts, checkRunsView, pipelineRowView, pipelineView } from "../../pipelines/mod.ts";
import { listPage, pageArgs, pagedOutput } from "../paging.ts";
import { pageRowsArg, rowsShape } from "../rows.ts";
import { CREATE, defineTool, EXECUTE, OVERWRITE, READ, RUN } from "../tool.ts";
import type { Services } from "../../services.ts";
import { runAndWait, type RunRequest } from "./run_wait.ts";

const op = (ctx: { actor: Principal; workspace: WorkspaceContext }) => ({
  actor: ctx.actor,
  workspaceId: ctx.workspace.id,
  scope: ctx.workspace,
});

// As REST's path parameter: an id that names nothing is `pipeline.not_found`, not a format error.
const id = z.string().max(64).describe(
  "Pipeline id (a uuid, from pipelines_list or pipelines_create)",
);
const parameterValues = z.record(z.string(), z.unknown()).describe(
  "Values of the pipeline's declared parameters by name, as JSON: " +
    '`{"country": "DE", "since": "2024-01-01", "ids": [1, 2]}`; an undeclared name is refused, ' +
    "a missing required one is pipeline.execution.parameter_required",
);
const NODE_EXAMPLE = '[{"id": "orders", "type": "DQL", "source": "shop", ' +
  '"sql": "SELECT id, amount FROM orders WHERE country = :country"}]';

/** The body fields of a pipeline (docs/authoring.md#authoring-pipelines), as REST takes them. */
const bodyFields = {
  name: z.string().max(200).describe(
    "Folder path naming the pipeline: 2 to 10 `/`-joined segments of lower-case letters, " +
      "digits, `_`, `.`, `-`; e.g. `team/daily_orders`",
  ),
  display_name: z.string().max(200).optional().describe("Human title shown in lists"),
  description: z.string().max(10_000).optional().describe("What the pipeline answers, for people"),
  schema_version: z.int().optional().describe("Body format version; always 1 (the default)"),
  parameters: z.record(z.string(), z.unknown()).optional().describe(
    "Declared parameters, name to declaration: " +
      '`{"country": {"type": "string", "required": true}, "limit": {"type": "integer", ' +
      '"default": 100, "min": 1}}`; types string, integer, number, boolean, date, timestamp, ' +
      "string_list, integer_list. SQL reads a value as `:name`",
  ),
  settings: z.record(z.string(), z.unknown()).optional().describe(
    '`{"staging_engine": "duckdb" | "sqlite", "max_parallel_nodes": 1-16}`; both optional',
  ),
  nodes: z.array(z.record(z.string(), z.unknown())).min(1).max(500).describe(
    "The DAG, 1 to 500 nodes, e.g. " + NODE_EXAMPLE + ". A node is `{id, type, ...}`: " +
      "DQL reads (`source` = a datasource name or `tempdb`, `sql` or `template: {id, version}`, " +
      "optional `output: {target: caller | tempdb | datasource, table}`), DML/DDL write, " +
      "CALCULATOR and PIPELINE nodes compute and nest; `depends_on` lists node ids. At most " +
      "one node delivers rows to the caller (a DQL node without `output`). Shapes by example: " +
      'docs_get {"id": "agent-authoring"}',
  ),
  checks: z.array(z.record(z.string(), z.unknown())).max(50).optional().describe(
    "Release checks, 0 to 50: " +
      '`{"id": "total", "name": "Orders add up", "datasource": "shop", "query": "SELECT ' +
      'sum(amount) FROM orders", "expectation": {"kind": "value", "value": 42}}`',
  ),
};

/**
 * The body as `tools/list` shows it: the node, check, settings and declaration schemas the
 * pipeline service parses with (one source), each described as above.
 */
const listedBody = {
  ...bodyFields,
  parameters: bodyParts.parameters.optional().describe(bodyFields.parameters.description!),
  settings: bodyParts.settings.optional().describe(bodyFields.settings.description!),
  nodes: bodyParts.nodes.describe(bodyFields.nodes.description!),
  checks: bodyParts.checks.optional().describe(bodyFields.checks.description!),
};
const ifMatch = z.string().max(200).describe(
  "body_hash of the version you edited (pipelines_get); REST's If-Match header",
);

const runOutput = z.object({
  execution: executionView,
  result: rowsShape.nullable().describe(
    "The result's first page when the run succeeded in time; page on with executions_get_result",
  ),
});

const runArgs = {
  version: z.int().min(1).optional().describe(
    "Exact version to run; absent: the draft when one exists, else the current release",
  ),
  parameters: parameterValues.optional(),
  timeout_seconds: z.int().min(1).max(3600).optional().describe(
    "Seconds to wait for the end (default and ceiling: service.mcp.execute-timeout-seconds, " +
      "300). Past it the answer says RUNNING and the run goes on",
  ),
  result_ttl_seconds: z.int().optional().describe(
    "How long the result stays readable, in seconds (the REST header SVC-Result-TTL-Seconds): " +
      "default service.result.ttl-default-seconds (300), clamped to the instance's min and max. " +
      "Past it the execution id and every cursor answer result.expired: run again",
  ),
  page_rows: pageRowsArg,
};

/** What a run's answer says about its result's lifetime. */
const LIFETIME = "The result is kept for `result_ttl_seconds` (300 s by default; the record's " +
  "result_expires_at says until when); after that executions_get_result answers result.expired " +
  "and the pipeline must run again.";

export const tools = [
  defineTool({
    name: "pipelines_list",
    title: "List pipelines",
    description:
      "Lists the pipelines of your workspace, paged (offset, limit), optionally filtered by " +
      "owner (user id), datasource name, or q (text in the name). Read one with " +
      "pipelines_get.",
    floor: "read",
    input: z.strictObject({
      owner: z.string().max(64).optional().describe("Only pipelines this user id created"),
      datasource: z.string().max(200).optional().describe(
        "Only pipelines whose working version names this datasource (its name)",
      ),
      q: z.string().max(200).optional().describe("Text in the name, any case, e.g. `orders`"),
      ...pageArgs,
    }),
    output: pagedOutput(pipelineRowView),
    annotations: READ,
    handler: (s, ctx, a) => {
      const filter = {
        owner: a.owner || undefined,
        datasource: a.datasource || undefined,
        q: a.q || undefined,
      };
      return listPage(s, a, (page) => s.content.pipelines.list(ctx.workspace.id, filter, page));
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
    input: z.strictObject({ id }),
    output: pipelineView,
    annotations: READ,
    handler: async (s, ctx, a) => await s.content.pipelines.get(ctx.workspace.id, a.id),
  }),
  defineTool({
    name: "pipelines_create",
    title: "Create a pipeline",
    description:
      "Creates a pipeline as DRAFT version 1 from the whole body. You can run the draft at once " +
      "(pipelines_execute without `version`), but published endpoints serve only releases, and " +
      "releasing is a person's act (a promoter, in the UI or over REST): no tool releases. A body defect is refused with the code REST gives " +
      "(pipeline.validation.*), naming the node and field.",
    floor: "write",
    input: z.strictObject(bodyFields),
    listed: z.strictObject(listedBody),
    output: pipelineView,
    annotations: CREATE,
    handler: async (s, ctx, a) => await s.content.pipelines.create(op(ctx), stripUndefined(a)),
  }),
  defineTool({
    name: "pipelines_update",
    title: "Save a pipeline's draft",
    description:
      "Saves the whole body as the pipeline's draft (replacing the previous draft), against " +
      "`if_match`, the body_hash you last read; a stale hash is `pipeline.version.conflict`: " +
      "read again with pipelines_get and retry. A body identical to the current release " +
      "changes nothing.",
    floor: "write",
    input: z.strictObject({ id, if_match: ifMatch, ...bodyFields }),
    listed: z.strictObject({ id, if_match: ifMatch, ...listedBody }),
    output: pipelineView,
    annotations: OVERWRITE,
    handler: async (s, ctx, a) => {
      const { id: pipelineId, if_match, ...body } = a;
      return await s.content.pipelines.update(op(ctx), pipelineId, if_match, stripUndefined(body));
    },
  }),
  defineTool({
    name: "pipelines_execute",
    waits: true,
    title: "Run a pipeline",
    description:
      "Runs a pipeline with `parameters`: without `version` its working version (the DRAFT when " +
      "one exists, else the current release), or exactly `version`. Its DML and DDL nodes write " +
      "to their datasources. Waits for the end up to `timeout_seconds` and answers the " +
      "execution record and the result's first page (columns, rows, truncated, next_cursor). " +
      "If the run has not ended by then, the record says RUNNING: poll executions_get, then " +
      "read executions_get_result. " + LIFETIME + " Sends a progress notification per node " +
      "when you pass a progressToken. Abandoning the call does NOT cancel the run; " +
      "executions_cancel does.",
    floor: "execute",
    input: z.strictObject({ id, ...runArgs }),
    output: runOutput,
    annotations: EXECUTE,
    handler: async (s, ctx, a) => await runAndWait(s, ctx, runRequest(s, a)),
  }),
  defineTool({
    name: "pipelines_execute_node",
    waits: true,
    title: "Run one node of a pipeline",
    description:
      "Runs one node of a pipeline version (without `version` the working one: the draft when " +
      "one exists) with only the nodes it depends on; the node's rows are the result. For " +
      "trying a step while authoring. A DML or DDL node among them writes. Answers like " +
      "pipelines_execute; abandoning the call does not cancel the run.",
    floor: "execute_node",
    input: z.strictObject({
      id,
      node: z.string().max(64).describe("The node's id in the body, e.g. `orders`"),
      ...runArgs,
    }),
    output: runOutput,
    annotations: EXECUTE,
    handler: async (s, ctx, a) => await runAndWait(s, ctx, runRequest(s, a)),
  }),
  defineTool({
    name: "pipelines_run_checks",
    title: "Run a version's release checks",
    description:
      "Runs the release checks of one pipeline version now through the bounded read-only probe " +
      "and records their runs; answers each check's outcome (pass or fail, and what was " +
      "observed). Writes nothing to datasources.",
    floor: "execute",
    input: z.strictObject({
      id,
      version: z.int().min(1).describe("The version whose checks run (the draft's number too)"),
      parameters: parameterValues.optional(),
    }),
    output: checkRunsView,
    annotations: RUN,
    handler: async (s, ctx, a) =>
      await s.content.pipelines.runChecks(op(ctx), a.id, a.version, a.parameters ?? {}),
  }),
];

type RunArgs = z.infer<z.ZodObject<typeof runArgs>> & { id: string; node?: string };

/** A run tool's arguments as a run request; the wait never passes the instance's ceiling. */
function runRequest(s: Services, a: RunArgs): RunRequest {
  const ceiling = s.settings.mcp.executeTimeoutSeconds;
  return {
    pipelineId: a.id,
    version: a.version,
    parameters: a.parameters ?? {},
    ...(a.node === undefined ? {} : { node: a.node }),
    waitSeconds: Math.min(a.timeout_seconds ?? ceiling, ceiling),
    resultTtlSeconds: a.result_ttl_seconds,
    pageRows: a.page_rows,
  };
}

/** The body as sent: optional fields left out rather than present as undefined. */
function stripUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
