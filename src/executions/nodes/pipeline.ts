/**
 * PIPELINE: runs the pinned child as a child execution through the same sink. Its caller rows
 * come straight to this node's output (a staged table or this execution's caller); a failure of
 * the child fails the node with the child's code, and aborting the node cancels the child.
 */
import { AppError } from "../../errors/mod.ts";
import { isParamRef, type PipelineNode } from "../../pipelines/mod.ts";
import type { CallerOutput, NodeRunner, RunContext } from "./context.ts";

/** The child's inputs: node `parameters` (literals or `{param}`), else the parent's same name. */
export function childParameters(
  node: PipelineNode,
  parent: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node.parameters ?? {})) {
    out[name] = isParamRef(value) ? parent[value.param] : value;
  }
  return out;
}

function stagedDelivery(ctx: RunContext, table: string): CallerOutput {
  return {
    toParent: true,
    async write(schema, batches, hooks, signal) {
      const rows = await ctx.staging().load(table, schema, batches, hooks.onBatch, signal);
      await hooks.onFinalize();
      return { rows, bytes: null };
    },
  };
}

export const runPipelineNode: NodeRunner = async (ctx, node, progress, _facts) => {
  await progress.enter("connecting");
  const out = node.output;
  const target: CallerOutput = out?.target === "tempdb"
    ? stagedDelivery(ctx, out.table!)
    : ctx.caller;
  let delivered: number | null = null;
  const delivery: CallerOutput = {
    toParent: true,
    async write(schema, batches, hooks, signal) {
      const result = await target.write(schema, batches, hooks, signal);
      delivered = result.rows;
      return result;
    },
  };
  const child = await ctx.startChild(node, childParameters(node, ctx.params), delivery);
  progress.setChild(child.executionId);
  await progress.enter("executing");
  const cancel = () => child.cancel(ctx.abortReason());
  ctx.signal.addEventListener("abort", cancel, { once: true });
  try {
    const record = await child.done;
    if (record.status === "SUCCESS") {
      await progress.enter("finalizing");
      return {
        rows_out: delivered,
        bytes_out: null,
        child_execution_id: child.executionId,
      };
    }
    ctx.signal.throwIfAborted();
    const failure = new AppError("pipeline.node.child_failed", {
      node_id: node.id,
      child_execution_id: child.executionId,
      child_code: record.error?.code ?? record.status,
    });
    failure.cause = record.error ?? undefined;
    throw failure;
  } finally {
    ctx.signal.removeEventListener("abort", cancel);
  }
};
