/**
 * A node's SQL as it ran, shown again on demand (the run view's node details). The statement is
 * not stored with the run: it is rendered again from the version the run pinned and the
 * parameters it was sent, through the executor's own `prepare` (defaults, coercion) and `nodeSql`
 * (the same template renderer), with calculators replayed on the run's day. Parameters stay
 * `:name` placeholders in the text, as they did when it ran; their bound values come beside it.
 */
import { AppError } from "../errors/mod.ts";
import type { SqlFlavor } from "../templates/mod.ts";
import { type PipelineNode, STAGING, topologicalOrder } from "../pipelines/mod.ts";
import { scanPlaceholders } from "../templates/mod.ts";
import type { Executor } from "./executor.ts";
import { runCalculatorNode } from "./nodes/calculator.ts";
import { nodeSql } from "./nodes/context.ts";
import type { ExecutionRecord } from "./types.ts";

export interface NodeSqlView {
  node_id: string;
  type: string;
  /** Null for nodes that run no statement of their own (PIPELINE, CALCULATOR). */
  sql: string | null;
  /** Each placeholder the statement binds, with the value the run bound to it. */
  bound: { name: string; value: unknown }[];
  /** What a CALCULATOR node derived for the run. */
  derived: Record<string, unknown>;
  template?: { id: string; version: number };
  /** Where the node's rows went: `caller`, a staged `tempdb` table, a datasource, or nowhere. */
  output: { target: string; table?: string; datasource?: string } | null;
}

const FLAVORS: Record<string, SqlFlavor> = {
  POSTGRES: "postgres",
  MYSQL: "mysql",
  SQLITE: "sqlite",
  DUCKDB: "duckdb",
  LAKE: "duckdb",
};

/** Renders `nodeId` of the run `record` again; `pipeline.execution.not_found` once its version is gone. */
export async function renderedNodeSql(
  executor: Executor,
  record: ExecutionRecord,
  nodeId: string,
): Promise<NodeSqlView> {
  const prepared = await executor.prepare({
    executionId: record.execution_id,
    workspaceId: record.workspace_id,
    pipelineId: record.pipeline_id,
    version: record.pipeline_version,
    parameters: record.parameters,
    triggeredBy: record.triggered_by,
    triggeredVia: record.triggered_via,
    correlationId: record.correlation_id ?? "",
    resultTtlSeconds: 0,
    pageRows: 0,
  }, record.pipeline_version);
  const body = prepared.body;
  const node = body.nodes.find((n) => n.id === nodeId);
  if (!node) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "node_id",
      reason: `no node ${nodeId.slice(0, 64)} in version ${record.pipeline_version}`,
    });
  }
  // Derived parameters as the run derived them: calculators read "today" as the run's day.
  const params: Record<string, unknown> = { ...prepared.parameters };
  const derived: Record<string, unknown> = {};
  for (const calc of topologicalOrder(body.nodes).filter((n) => n.type === "CALCULATOR")) {
    const before = new Set(Object.keys(params));
    runCalculatorNode(calc, params, record.started_at.slice(0, 10));
    if (calc.id === nodeId) {
      for (const k of Object.keys(params)) if (!before.has(k)) derived[k] = params[k];
    }
  }
  const view = {
    node_id: node.id,
    type: node.type,
    template: node.template,
    output: node.output ?? (node.type === "DQL" ? { target: "caller" } : null),
    derived,
  };
  if (node.type === "PIPELINE" || node.type === "CALCULATOR") {
    return { ...view, sql: null, bound: [] };
  }
  const template = (id: string, version: number) =>
    executor.options.catalog.template(record.workspace_id, id, version);
  const sql = await nodeSql(
    { template, params, signal: new AbortController().signal },
    node,
    "DUCKDB",
    { failed: { id: node.id, type: node.type } },
  );
  const flavor = await flavorOf(node, body.settings.staging_engine, template);
  const bound = scanPlaceholders(sql, flavor).map((name) => ({
    name,
    value: params[name] ?? null,
  }));
  return { ...view, sql, bound };
}

/** How the statement's placeholders are read: its template's dialect, else its source's kind. */
async function flavorOf(
  node: PipelineNode,
  stagingEngine: string,
  template: (id: string, version: number) => Promise<{ dialect: string }>,
): Promise<SqlFlavor> {
  if (node.template) {
    return FLAVORS[(await template(node.template.id, node.template.version)).dialect] ?? "duckdb";
  }
  if (node.source === STAGING) return stagingEngine === "sqlite" ? "sqlite" : "duckdb";
  // An inline statement on a datasource: the dialects differ in quoting, not in `:name`.
  return "postgres";
}
