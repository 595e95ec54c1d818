/**
 * What a node runner gets from its execution, and the mapping of driver failures to the
 * executor's codes. One runner per node type lives beside this file.
 */
import { AppError } from "../../errors/mod.ts";
import {
  classifyError,
  type ColumnSchema,
  type Connector,
  type Dialect,
  type EngineLimits,
  readOnlyRefusal,
  safeMessage,
  ValueTooLarge,
  type WireValue,
} from "../../datasources/mod.ts";
import { inSpan } from "../../lib/tracing.ts";
import type { PipelineNode } from "../../pipelines/mod.ts";
import { type ImportRef, renderTemplate, type TemplateDialect } from "../../templates/mod.ts";
import type { FailedNode } from "../failure.ts";
import type { Evidence, NodeProgress } from "../progress.ts";
import type { Staging } from "../staging.ts";
import type { AbortReason, ExecutionHandle } from "../types.ts";

/** A datasource connection as the registry hands it out (the executor never opens one itself). */
export interface Datasource {
  connector: Connector;
  dialect: Dialect;
  readonly: boolean;
}

/**
 * The registry's side of an execution: the datasource named `name` in the workspace, for a read
 * or a write. Throws `datasource.not_found` or `pipeline.execution.datasource_unreachable`.
 * The connector is the registry's pool: the executor releases leases, never closes it.
 */
export type Connect = (
  workspaceId: string,
  name: string,
  options: { write: boolean },
) => Promise<Datasource>;

/** A template version as a node renders it. */
export interface TemplateVersion {
  body: string;
  dialect: TemplateDialect;
  imports: ImportRef[];
}

/** Where the caller node's rows go: the result store, or a parent execution. */
export interface CallerOutput {
  write(
    schema: ColumnSchema[],
    batches: AsyncIterable<WireValue[][]>,
    hooks: { onBatch(rows: number): Promise<void>; onFinalize(): Promise<void> },
    signal: AbortSignal,
  ): Promise<{ rows: number; bytes: number | null }>;
  /** True when rows go to a parent execution (destination `parent`, no data_ready). */
  readonly toParent: boolean;
}

export interface RunContext {
  executionId: string;
  workspaceId: string;
  correlationId: string;
  /** Declared and derived parameter values. */
  params: Record<string, unknown>;
  signal: AbortSignal;
  connect: Connect;
  /** What one value may hold and a staging DuckDB may use (issue 22). */
  limits: EngineLimits;
  template(id: string, version: number): Promise<TemplateVersion>;
  staging(): Staging;
  caller: CallerOutput;
  /** Why the signal aborted when it was a cancel, so a child stops for the same reason. */
  abortReason(): AbortReason;
  /** Starts the pinned child of a PIPELINE node. */
  startChild(
    node: PipelineNode,
    params: Record<string, unknown>,
    delivery: CallerOutput,
  ): Promise<ExecutionHandle>;
}

/** What a runner learned while running; the failure record and node_stats read it. */
export interface NodeFacts {
  failed: FailedNode;
  sql?: string;
  evidence?: Evidence;
}

export interface NodeOutcome {
  rows_out: number | null;
  bytes_out: number | null;
  child_execution_id?: string;
  evidence?: Evidence;
}

/** OpenTelemetry's names for the engines (`db.system.name`). */
const DB_SYSTEMS: Record<string, string> = {
  POSTGRES: "postgresql",
  MYSQL: "mysql",
  SQLITE: "sqlite",
  DUCKDB: "duckdb",
  LAKE: "duckdb",
};

/**
 * Runs `fn`, one statement of a node on a datasource (or the run's staging database, named
 * `tempdb`), inside its span: from sending it to the last row taken.
 */
export function statementSpan<T>(
  ctx: RunContext,
  node: PipelineNode,
  datasource: string,
  dialect: string,
  fn: () => Promise<T>,
): Promise<T> {
  return inSpan("datasource.statement", {
    "svc.datasource": datasource,
    "db.system.name": DB_SYSTEMS[dialect] ?? dialect.toLowerCase(),
    "svc.node_id": node.id,
    "svc.execution_id": ctx.executionId,
    "svc.correlation_id": ctx.correlationId,
  }, fn);
}

export type NodeRunner = (
  ctx: RunContext,
  node: PipelineNode,
  progress: NodeProgress,
  facts: NodeFacts,
) => Promise<NodeOutcome>;

/** A connect failure of a node, keeping the registry's own code for an unknown datasource. */
export function connectionFailed(node: PipelineNode, datasource: string, error: unknown): unknown {
  if (error instanceof AppError && error.code !== "pipeline.execution.datasource_unreachable") {
    return error;
  }
  const failure = new AppError("pipeline.node.datasource_connection_failed", {
    node_id: node.id,
    datasource,
    error_class: classifyError(error),
  });
  failure.cause = error;
  return failure;
}

/** A statement failure: AppErrors pass (parameters, result store); driver errors get a code. */
export function statementFailed(node: PipelineNode, dialect: string, error: unknown): unknown {
  if (error instanceof ValueTooLarge) {
    const failure = new AppError("pipeline.node.value_too_large", {
      node_id: node.id,
      column: error.column === null ? "the result" : `column ${error.column}`,
      max_cell_bytes: error.limit,
    });
    failure.cause = error;
    return failure;
  }
  if (error instanceof AppError) {
    if (error.code === "pipeline.execution.datasource_unreachable") {
      return connectionFailed(node, node.source ?? "", error);
    }
    return error;
  }
  const failure = new AppError("pipeline.node.statement_failed", {
    node_id: node.id,
    dialect,
    error_class: classifyError(error),
    reason: safeMessage(error),
  });
  failure.cause = error;
  return failure;
}

/**
 * A read's failure. On a read-only datasource the read ran inside the engine's own read-only
 * mode, so a write it attempted was refused there: that is the datasource's read-only rule, not
 * a broken statement.
 */
export function readFailed(
  node: PipelineNode,
  source: { name: string; dialect: Dialect; readonly: boolean },
  error: unknown,
): unknown {
  const refused = source.readonly ? readOnlyRefusal(error) : undefined;
  if (!refused) return statementFailed(node, source.dialect, error);
  const failure = new AppError("pipeline.node.readonly_datasource", {
    ...refused.details,
    node_id: node.id,
    datasource: source.name,
  });
  failure.cause = error;
  return failure;
}

/**
 * The node's SQL: its pinned template rendered with the parameters (placeholders stay `:name`),
 * or its inline `sql`. Records what ran in `facts` for the failure record.
 */
export async function nodeSql(
  ctx: Pick<RunContext, "template" | "params" | "signal">,
  node: PipelineNode,
  dialect: TemplateDialect,
  facts: NodeFacts,
): Promise<string> {
  if (!node.template) {
    facts.sql = node.sql!;
    return node.sql!;
  }
  const pinned = await ctx.template(node.template.id, node.template.version);
  facts.failed.template = node.template.id;
  facts.failed.template_version = node.template.version;
  const imports = await Promise.all(
    pinned.imports.map(async (ref) => ({ ...ref, ...(await ctx.template(ref.id, ref.version)) })),
  );
  const rendered = await renderTemplate({
    template: { id: node.template.id, version: node.template.version },
    body: pinned.body,
    dialect: pinned.dialect ?? dialect,
    imports,
    params: ctx.params,
    loadImport: (id, version) => ctx.template(id, version),
    signal: ctx.signal,
  });
  facts.sql = rendered.sql;
  return rendered.sql;
}

/** Counts the rows of a stream as they pass, reporting each batch as fetched. */
export async function* counted(
  batches: AsyncIterable<WireValue[][]>,
  progress: NodeProgress,
): AsyncGenerator<WireValue[][]> {
  for await (const batch of batches) {
    await progress.add({ rows_fetched: batch.length });
    yield batch;
  }
}
