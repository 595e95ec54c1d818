/** Executions: the staging engine and the result store (the executor arrives with the execution issue). */
export { probeStagingEngine } from "./staging.ts";
export {
  csvLine,
  type JsonCell,
  type ResultColumn,
  ResultStore,
  type ResultStoreOptions,
  ResultWriter,
  type StoredResult,
  toJsonCell,
} from "./result_store.ts";
export { type ErrorDetail, type FailedNode, type FailureRecord, failureRecord } from "./failure.ts";
export { checkEventOrder, type EventFrame, EventOrderChecker } from "./event_order.ts";
export {
  type AbortReason,
  EXECUTION_STATUSES,
  type ExecutionHandle,
  type ExecutionRecord,
  type ExecutionRequest,
  type ExecutionSink,
  type ExecutionStatus,
  type NodeStat,
  type TriggeredVia,
  TRIGGERS,
} from "./types.ts";
export { IdempotencyCache } from "./idempotency.ts";
