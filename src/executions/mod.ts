/** Executions: the executor, its event bus and progress samples, staging, the result store. */
export { DuckdbStaging, probeStagingEngine, type Staging } from "./staging.ts";
export { SqliteStaging } from "./staging_sqlite.ts";
export {
  type CallerOutput,
  type Catalog,
  type Connect,
  type Datasource,
  DEFAULT_MAX_DEPTH,
  Executor,
  type ExecutorOptions,
  lifecycleCatalog,
  type Prepared,
  type RunOptions,
  type TemplateVersion,
  type VersionChoice,
} from "./executor.ts";
export { EventBus } from "./bus.ts";
export {
  type Clock,
  type Destination,
  NodeProgress,
  type Operation,
  type ProgressState,
} from "./progress.ts";
export {
  csvLine,
  type JsonCell,
  type ResultColumn,
  ResultStore,
  type ResultStoreOptions,
  ResultWriter,
  STORE_UNREACHABLE,
  type StoredResult,
  toJsonCell,
} from "./result_store.ts";
export {
  boundedResultRows,
  decodeResultCursor,
  encodeResultCursor,
  type PageReader,
  resultPosition,
} from "./result_rows.ts";
export { type ErrorDetail, type FailedNode, type FailureRecord, failureRecord } from "./failure.ts";
export { checkEventOrder, type EventFrame, EventOrderChecker } from "./event_order.ts";
export { payloadJson } from "./frame_json.ts";
export { EndingRows } from "./journal.ts";
export { type NodeSpan, nodeSpans } from "./node_spans.ts";
export { type NodeSqlView, renderedNodeSql } from "./node_sql.ts";
export { lastResultSchema } from "./repo.ts";
export {
  type AbortReason,
  EXECUTION_STATUSES,
  type ExecutionHandle,
  type ExecutionMeter,
  type ExecutionRecord,
  type ExecutionRequest,
  type ExecutionSink,
  type ExecutionStatus,
  type NodeStat,
  type TriggeredVia,
  TRIGGERS,
} from "./types.ts";
export { IdempotencyCache } from "./idempotency.ts";
export type { ExecutionHousekeeping } from "./reaper.ts";
export {
  type Caller,
  type ExecuteInput,
  ExecutionService,
  type ExecutionServiceOptions,
  type ExecutorPort,
  type StartedStream,
} from "./service.ts";
export { openExecutions } from "./wiring.ts";
export { type ResultLimits, resultTtlSeconds } from "./limits.ts";
export {
  dataReadyView,
  eventsView,
  executionRowView,
  executionView,
  failureView,
  resultPageView,
} from "./views.ts";
