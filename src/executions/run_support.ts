/** Pieces of a run that need none of its state: the node plan, the record, the result output. */
import { isCallerNode, type PipelineNode } from "../pipelines/mod.ts";
import type { Prepared } from "./executor.ts";
import type { CallerOutput, NodeRunner } from "./nodes/context.ts";
import { dqlOperation, outputDestination, runDql } from "./nodes/dql.ts";
import { runPipelineNode } from "./nodes/pipeline.ts";
import { runStatement } from "./nodes/statement.ts";
import type { Destination, Operation } from "./progress.ts";
import type { JsonCell, ResultStore, StoredResult } from "./result_store.ts";
import type { ExecutionMeter, ExecutionRecord, NodeStat } from "./types.ts";

export const RUNNERS: Record<string, NodeRunner> = {
  DQL: runDql,
  DML: runStatement,
  DDL: runStatement,
  PIPELINE: runPipelineNode,
};

/** A child's caller rows go to its parent (destination `parent`), never to a result. */
export function plan(
  node: PipelineNode,
  toParent: boolean,
): { operation: Operation; destination: Destination } {
  const destination = toParent && isCallerNode(node)
    ? { kind: "parent" as const }
    : outputDestination(node);
  switch (node.type) {
    case "DQL":
      return { operation: dqlOperation(node), destination };
    case "PIPELINE":
      return { operation: "child", destination };
    default:
      // A DML or DDL statement delivers no rows anywhere
      // (docs/decisions.md#where-rows-go-when-output-is-omitted).
      return { operation: "statement", destination: node.output ? destination : { kind: "none" } };
  }
}

export function stat(
  nodeId: string,
  duration: number | null,
  rows: number | null,
  bytes: number | null,
  status: NodeStat["status"],
): NodeStat {
  return { node_id: nodeId, duration_ms: duration, rows_out: rows, bytes_out: bytes, status };
}

/** The RUNNING record an execution starts with. */
export function initialRecord(prepared: Prepared, startedAt: string): ExecutionRecord {
  const r = prepared.request;
  return {
    execution_id: r.executionId,
    workspace_id: r.workspaceId,
    pipeline_id: r.pipelineId,
    pipeline_version: prepared.version,
    status: "RUNNING",
    draft_run: prepared.draft,
    parameters: r.parameters,
    started_at: startedAt,
    completed_at: null,
    duration_ms: null,
    node_stats: null,
    error: null,
    failed_node_id: null,
    correlation_id: r.correlationId,
    triggered_by: r.triggeredBy,
    triggered_via: r.triggeredVia,
    result_row_count: null,
    result_size_bytes: null,
    result_expires_at: null,
    parent_execution_id: r.parent?.executionId ?? null,
    parent_node_id: r.parent?.nodeId ?? null,
    root_execution_id: r.parent?.rootExecutionId ?? r.executionId,
    abort_reason: null,
  };
}

/**
 * The root caller output: every row into the result store, `finish()` (the result readable)
 * before the node completes, so `data_ready` never announces a partial result.
 */
export function resultOutput(
  results: ResultStore,
  executionId: string,
  ttlSeconds: number,
  onStored: (stored: StoredResult, head: readonly JsonCell[][], headJson?: string) => void,
): CallerOutput {
  return {
    toParent: false,
    async write(schema, batches, hooks, signal) {
      const writer = results.writer(executionId, schema, ttlSeconds);
      let stored: StoredResult;
      try {
        for await (const batch of batches) {
          signal.throwIfAborted();
          await writer.append(batch);
          await hooks.onBatch(batch.length);
        }
        await hooks.onFinalize();
        signal.throwIfAborted();
        stored = await writer.finish();
      } catch (error) {
        await writer.abort();
        throw error;
      }
      onStored(stored, writer.head, writer.headJson);
      return { rows: stored.row_count, bytes: stored.size_bytes };
    },
  };
}

/** Reports an ended run and each node it started to the meter (`/metrics`). */
export function meterEnded(meter: ExecutionMeter, prepared: Prepared, record: ExecutionRecord) {
  const seconds = (record.duration_ms ?? 0) / 1000;
  meter.executionEnded(record.status, record.triggered_via, seconds);
  const types = new Map(prepared.body.nodes.map((n) => [n.id, n.type]));
  for (const s of record.node_stats ?? []) {
    // A node that never started has no time: it is an aborted run's remainder, not a node run.
    if (s.duration_ms === null) continue;
    meter.nodeEnded(types.get(s.node_id) ?? "UNKNOWN", s.status, s.duration_ms / 1000);
  }
}
