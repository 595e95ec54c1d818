/**
 * DQL: one read, from a datasource or from the staging database (`source: tempdb`, how sources
 * are joined), streamed batch by batch into its output: a staged table, the caller, or a
 * datasource table (a writeback, one transaction).
 */
import { AppError } from "../../errors/mod.ts";
import { type PipelineNode, STAGING } from "../../pipelines/mod.ts";
import type { ColumnSchema, Connector, Dialect, WireValue } from "../../datasources/mod.ts";
import type { Destination, NodeProgress, Operation } from "../progress.ts";
import { writeBack } from "./writeback.ts";
import {
  connectionFailed,
  counted,
  type NodeOutcome,
  type NodeRunner,
  nodeSql,
  type RunContext,
  statementFailed,
} from "./context.ts";

/** The §6 operation of a DQL node. */
export function dqlOperation(node: PipelineNode): Operation {
  const target = node.output?.target ?? "caller";
  if (target === "datasource") return "writeback";
  if (target === "caller") return "materialize";
  return node.source === STAGING ? "ctas" : "stage";
}

export function outputDestination(node: PipelineNode): Destination {
  const out = node.output;
  if (!out || out.target === "caller") return { kind: "caller" };
  if (out.target === "tempdb") return { kind: "tempdb", table: out.table! };
  return { kind: "datasource", datasource: out.datasource!, table: out.table };
}

export const runDql: NodeRunner = async (ctx, node, progress, facts) => {
  await progress.enter("connecting");
  const source = node.source!;
  let connector: Connector;
  let dialect: Dialect;
  if (source === STAGING) {
    const staging = ctx.staging();
    connector = staging.connector;
    dialect = staging.dialect;
  } else {
    try {
      const ds = await ctx.connect(ctx.workspaceId, source, { write: false });
      connector = ds.connector;
      dialect = ds.dialect;
    } catch (error) {
      throw connectionFailed(node, source, error);
    }
  }
  facts.failed.datasource = source;
  facts.failed.dialect = dialect;
  const sql = await nodeSql(ctx, node, dialect, facts);
  await progress.enter("executing");
  const out = node.output;
  if (out?.target === "tempdb" && connector.chunks && ctx.staging().copy) {
    return {
      rows_out: await copyStaged(ctx, node, dialect, sql, connector, progress),
      bytes_out: null,
    };
  }
  let stream;
  try {
    stream = await connector.query({ sql, params: ctx.params }, { signal: ctx.signal });
  } catch (error) {
    throw ctx.signal.aborted ? error : statementFailed(node, dialect, error);
  }
  await progress.enter("fetching");
  const rows = counted(stream, progress);
  try {
    if (out?.target === "datasource") {
      const { outcome, rows: written } = await writeBack(ctx, node, stream.schema, rows, progress);
      facts.evidence = outcome;
      return { rows_out: written, bytes_out: null, evidence: outcome };
    }
    if (out?.target === "tempdb") {
      const written = await loadStaged(ctx, node, out.table!, stream.schema, rows, progress);
      return { rows_out: written, bytes_out: null };
    }
    return await deliver(ctx, stream.schema, rows, progress);
  } catch (error) {
    throw ctx.signal.aborted ? error : statementFailed(node, dialect, error);
  }
};

/** A DuckDB read staged chunk by chunk, values never leaving the engine (Staging.copy). */
async function copyStaged(
  ctx: RunContext,
  node: PipelineNode,
  dialect: Dialect,
  sql: string,
  connector: Connector,
  progress: NodeProgress,
): Promise<number> {
  let chunks;
  try {
    chunks = await connector.chunks!({ sql, params: ctx.params }, { signal: ctx.signal });
  } catch (error) {
    throw ctx.signal.aborted ? error : statementFailed(node, dialect, error);
  }
  await progress.enter("fetching");
  const table = node.output!.table!;
  return await staged(
    ctx,
    node,
    progress,
    (onBatch) =>
      ctx.staging().copy!(table, chunks, async (n) => {
        await progress.add({ rows_fetched: n });
        await onBatch(n);
      }, ctx.signal),
  );
}

/** Appends a stream into a staged table, counting accepted rows and batches. */
export function loadStaged(
  ctx: RunContext,
  node: PipelineNode,
  table: string,
  schema: ColumnSchema[],
  rows: AsyncIterable<WireValue[][]>,
  progress: NodeProgress,
): Promise<number> {
  return staged(
    ctx,
    node,
    progress,
    (onBatch) => ctx.staging().load(table, schema, rows, onBatch, ctx.signal),
  );
}

async function staged(
  ctx: RunContext,
  node: PipelineNode,
  progress: NodeProgress,
  fill: (onBatch: (rows: number) => Promise<void>) => Promise<number>,
): Promise<number> {
  try {
    const written = await fill(async (n) => {
      await progress.enter("writing");
      await progress.add({ rows_written: n, batches_written: 1 });
      await progress.enter("fetching");
    });
    await progress.enter("finalizing");
    return written;
  } catch (error) {
    if (ctx.signal.aborted || error instanceof AppError) throw error;
    const failure = new AppError("pipeline.node.staging_failed", {
      node_id: node.id,
      reason: error instanceof Error ? error.message.slice(0, 300) : String(error),
    });
    failure.cause = error;
    throw failure;
  }
}

/** Hands a stream to the caller output (the result store or a parent execution). */
export async function deliver(
  ctx: RunContext,
  schema: ColumnSchema[],
  rows: AsyncIterable<WireValue[][]>,
  progress: NodeProgress,
): Promise<NodeOutcome> {
  const result = await ctx.caller.write(schema, rows, {
    onBatch: async (n) => {
      await progress.enter("writing");
      await progress.add({ rows_written: n, batches_written: 1 });
      await progress.enter("fetching");
    },
    onFinalize: () => progress.enter("finalizing"),
  }, ctx.signal);
  return { rows_out: result.rows, bytes_out: result.bytes };
}
