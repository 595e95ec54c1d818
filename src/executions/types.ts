import type { PipelineBody } from "../pipelines/mod.ts";
/**
 * The execution contract: what the executor takes, what it gives back while it runs, and where
 * its record and events go. The executor (plan, nodes, staging, events) is written against the
 * `ExecutionSink`; the executions service implements that sink (executions table, durable events,
 * replay window) and the routes (execute over SSE, history, replay, cancel, result cursor).
 */
import type { EventFrame } from "./event_order.ts";
import type { FailureRecord } from "./failure.ts";

export const EXECUTION_STATUSES = ["RUNNING", "SUCCESS", "FAILED", "ABORTED"] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

export const TRIGGERS = ["UI", "REST", "MCP", "PIPELINE", "ENDPOINT"] as const;
export type TriggeredVia = (typeof TRIGGERS)[number];

export type AbortReason = "cancelled" | "client_disconnect" | "shutdown";

/** What a caller asks for. Limits are already clamped by the caller. */
export interface ExecutionRequest {
  /** Minted by the caller before acceptance, so an Idempotency-Key can name it. */
  executionId: string;
  workspaceId: string;
  pipelineId: string;
  /** Absent: the working version (the draft when one exists, else the current release). */
  version?: number;
  /** As sent; bound against the version's declarations by the executor. */
  parameters: Record<string, unknown>;
  /** The user (for keys, the key's owner). */
  triggeredBy: string;
  triggeredVia: TriggeredVia;
  correlationId: string;
  resultTtlSeconds: number;
  /** Rows of the first page carried inline by `data_ready`. */
  pageRows: number;
  /**
   * `pipelines_execute_node`: run only this node and what it depends on, its rows to the caller
   * (see `nodeSubset` in the pipelines domain).
   */
  node?: string;
  /** Set for a child execution started by a PIPELINE node. */
  parent?: { executionId: string; nodeId: string; rootExecutionId: string };
  /**
   * A released version the caller already read and parsed (a published endpoint re-reads its
   * latest release on every serve): run as is, without reading the catalog a second time.
   * Released bodies never change, so this is the same body the catalog would give.
   */
  released?: { version: number; body: PipelineBody };
}

/** Per node in `node_stats`. */
export interface NodeStat {
  node_id: string;
  duration_ms: number | null;
  rows_out: number | null;
  bytes_out: number | null;
  status: "SUCCESS" | "FAILED" | "ABORTED";
  error_code?: string;
}

/** The stored execution record, without the read-time `result_url`. */
export interface ExecutionRecord {
  execution_id: string;
  workspace_id: string;
  pipeline_id: string;
  pipeline_version: number;
  status: ExecutionStatus;
  draft_run: boolean;
  parameters: Record<string, unknown>;
  started_at: string;
  completed_at: string | null;
  duration_ms: number | null;
  node_stats: NodeStat[] | null;
  error: FailureRecord | null;
  failed_node_id: string | null;
  correlation_id: string | null;
  triggered_by: string;
  triggered_via: TriggeredVia;
  result_row_count: number | null;
  result_size_bytes: number | null;
  result_expires_at: string | null;
  parent_execution_id: string | null;
  parent_node_id: string | null;
  root_execution_id: string;
  /** Why an ABORTED execution stopped; null otherwise. */
  abort_reason: AbortReason | null;
}

/**
 * Where an execution's traces go. Calls arrive in order: `started` once, then every event (the
 * terminal ones included) in emission order, then `finished` once with the final record. A sink
 * failure fails the execution (`result.storage_unavailable`-style codes are the sink's to raise).
 */
export interface ExecutionSink {
  /**
   * True when `event` stores frames in call order even if called before the previous call
   * settled (a queue): the bus then hands frames over without waiting for each to be stored.
   */
  readonly pipelined?: boolean;
  started(record: ExecutionRecord): Promise<void>;
  event(executionId: string, frame: EventFrame): Promise<void>;
  finished(record: ExecutionRecord): Promise<void>;
}

/** A running (or finished) execution as its starter sees it. */
export interface ExecutionHandle {
  readonly executionId: string;
  readonly record: ExecutionRecord;
  /**
   * The stream from its first event; each call gives a fresh iterator that first replays what
   * was already emitted, then follows live, and ends after the terminal sequence.
   */
  events(): AsyncIterableIterator<EventFrame>;
  /** Asks the run to stop; a no-op once it is terminal. */
  cancel(reason: AbortReason): void;
  /** Settles with the final record (never rejects: failures are in the record). */
  readonly done: Promise<ExecutionRecord>;
  /**
   * Settles once the run's record is stored (or the run failed before it could be): from then
   * on, whoever learns the execution's id can read it. Never rejects.
   */
  readonly recorded: Promise<void>;
  /**
   * A run on the lean path (lean.ts) only: its frames, whole, once its final record is stored
   * (`events()` gives them then too; nothing is followed live on that path).
   */
  readonly settled?: Promise<readonly EventFrame[]>;
}

/**
 * Where runs report their counts and times (the instance's metrics when they are on). Each call
 * is cheap and synchronous; children of a PIPELINE node count as runs of their own (trigger
 * `PIPELINE`).
 */
export interface ExecutionMeter {
  executionStarted(trigger: TriggeredVia): void;
  executionEnded(status: ExecutionStatus, trigger: TriggeredVia, seconds: number): void;
  nodeEnded(type: string, status: NodeStat["status"], seconds: number): void;
  /** A caller result was written whole to the result store. */
  resultStored(bytes: number): void;
}
