/**
 * DQL: one read, from a datasource or from the staging database (`source: tempdb`, how sources
 * are joined), streamed batch by batch into its output: a staged table, the caller, or a
 * datasource table (a writeback, one transaction).
 */
import { AppError } from "../../errors/mod.ts";
import { type PipelineNode, STAGING } from "../../pipelines/mod.ts";
import type { ChunkStream, ColumnSchema, Connector, WireValue } from "../../datasources/mod.ts";
import type { Destination, NodeProgress, Operation } from "../progress.ts";
import { writeBack } from "./writeback.ts";
import {
  connectionFailed,
  counted,
  type Datasource,
  type NodeFacts,
  type NodeOutcome,
  type NodeRunner,
  nodeSql,
  readFailed,
  type RunContext,
  statementSpan,
} from "./context.ts";
import { OwnedRead } from "./owned_read.ts";

/** The operation of a DQL node, as its events name it. */
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
  const name = node.source!;
  let source: ReadSource;
  if (name === STAGING) {
    const staging = ctx.staging();
    // The execution's own private database: nothing in it outlives the run.
    source = { name, connector: staging.connector, dialect: staging.dialect, readonly: false };
  } else {
    try {
      source = { name, ...await ctx.connect(ctx.workspaceId, name, { write: false }) };
    } catch (error) {
      throw connectionFailed(node, name, error);
    }
  }
  facts.failed.datasource = name;
  facts.failed.dialect = source.dialect;
  const sql = await nodeSql(ctx, node, source.dialect, facts);
  await progress.enter("executing");
  return await statementSpan(
    ctx,
    node,
    name,
    source.dialect,
    () => readInto(ctx, node, source, sql, progress, facts),
  );
};

/** The statement itself: opened, read and handed to the node's output. */
async function readInto(
  ctx: RunContext,
  node: PipelineNode,
  source: ReadSource,
  sql: string,
  progress: NodeProgress,
  facts: NodeFacts,
): Promise<NodeOutcome> {
  const out = node.output;
  // Every statement on a read-only datasource runs inside the engine's own read-only mode, so a
  // write hidden in a read (a data-modifying CTE, a bare DELETE or CREATE) is refused there.
  const options = {
    signal: ctx.signal,
    readOnly: source.readonly,
    maxCellBytes: ctx.limits.maxCellBytes,
  };
  const statement = { sql, params: ctx.params };
  // DuckDB's chunk reads take no read-only rule of their own (a LAKE's admit SELECT only), so a
  // read-only DuckDB datasource stages through `query()`, which applies it.
  const copyable = !source.readonly || source.dialect === "LAKE";
  if (out?.target === "tempdb" && copyable && source.connector.chunks && ctx.staging().copy) {
    const chunks = await opening(ctx, node, source, (c) => c.chunks!(statement, options));
    const read = new OwnedRead(chunks);
    try {
      await progress.enter("fetching");
      const copied: ChunkStream = {
        schema: chunks.schema,
        types: chunks.types,
        toRows: (chunk) => chunks.toRows(chunk),
        [Symbol.asyncIterator]: () => read[Symbol.asyncIterator](),
      };
      return {
        rows_out: await staged(
          ctx,
          node,
          source,
          read,
          progress,
          (onBatch) =>
            ctx.staging().copy!(out.table!, copied, async (n) => {
              await progress.add({ rows_fetched: n });
              await onBatch(n);
            }, ctx.signal),
        ),
        bytes_out: null,
      };
    } finally {
      await read.release();
    }
  }
  const stream = await opening(ctx, node, source, (c) => c.query(statement, options));
  const read = new OwnedRead(stream);
  try {
    await progress.enter("fetching");
    const rows = counted(read, progress);
    if (out?.target === "datasource") {
      const { outcome, rows: written } = await writeBack(ctx, node, stream.schema, rows, progress);
      facts.evidence = outcome;
      return { rows_out: written, bytes_out: null, evidence: outcome };
    }
    if (out?.target === "tempdb") {
      const written = await staged(
        ctx,
        node,
        source,
        read,
        progress,
        (onBatch) => ctx.staging().load(out.table!, stream.schema, rows, onBatch, ctx.signal),
      );
      return { rows_out: written, bytes_out: null };
    }
    return await deliver(ctx, stream.schema, rows, progress);
  } catch (error) {
    // A failure of the read itself, wherever its consumer surfaced it, is the source's.
    throw ctx.signal.aborted ? error : readFailed(node, source, read.failure ?? error);
  } finally {
    await read.release();
  }
}

/** The datasource (or the staging database) a DQL node reads. */
interface ReadSource extends Datasource {
  name: string;
}

/** Opens a read: a failure is the node's read failure, unless the run was aborted meanwhile. */
async function opening<T>(
  ctx: RunContext,
  node: PipelineNode,
  source: ReadSource,
  open: (connector: Connector) => Promise<T>,
): Promise<T> {
  try {
    return await open(source.connector);
  } catch (error) {
    throw ctx.signal.aborted ? error : readFailed(node, source, error);
  }
}

/**
 * Fills a staged table, counting accepted rows and batches. The staging engine's refusal is
 * `pipeline.node.staging_failed`; a failure of the read feeding it stays the source's.
 */
async function staged(
  ctx: RunContext,
  node: PipelineNode,
  source: ReadSource,
  read: OwnedRead<unknown>,
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
    if (ctx.signal.aborted) throw error;
    if (read.failure !== undefined) throw readFailed(node, source, read.failure);
    if (error instanceof AppError) throw error;
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
