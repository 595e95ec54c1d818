/**
 * An execution as it is read: the record, its history row, a result page, the replayed events and
 * the `data_ready` payload, one zod schema each, for REST responses, tool outputs and the published
 * endpoints' document alike.
 */
import { z } from "zod";
import { EXECUTION_STATUSES, TRIGGERS } from "./types.ts";

const level = z.object({ class: z.string(), message: z.string(), frames: z.array(z.string()) });

/** The failure record: the error body, and under the `full` detail setting node, sql, exception. */
export const failureView = z.object({
  code: z.string(),
  message: z.string(),
  user_message: z.string(),
  details: z.record(z.string(), z.unknown()),
  doc_url: z.string(),
  correlation_id: z.string(),
  node: z.object({
    id: z.string(),
    type: z.string(),
    datasource: z.string().optional(),
    dialect: z.string().optional(),
    template: z.string().optional(),
    template_version: z.int().optional(),
  }).optional(),
  sql: z.string().optional().describe("the rendered statement with named placeholders"),
  exception: level.extend({ caused_by: z.array(level) }).optional(),
}).meta({ id: "Failure" });

const nodeStat = z.object({
  node_id: z.string(),
  duration_ms: z.number().nullable(),
  rows_out: z.number().nullable(),
  bytes_out: z.number().nullable(),
  status: z.enum(["SUCCESS", "FAILED", "ABORTED"]),
  error_code: z.string().optional(),
});

const recordFields = {
  execution_id: z.string(),
  workspace_id: z.string(),
  pipeline_id: z.string(),
  pipeline_version: z.int().describe("the version that actually ran"),
  status: z.enum(EXECUTION_STATUSES),
  draft_run: z.boolean(),
  parameters: z.record(z.string(), z.unknown()).describe("as sent"),
  started_at: z.string(),
  completed_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  node_stats: z.array(nodeStat).nullable(),
  error: failureView.nullable(),
  failed_node_id: z.string().nullable(),
  correlation_id: z.string().nullable(),
  triggered_by: z.string(),
  triggered_via: z.enum(TRIGGERS),
  result_row_count: z.number().nullable(),
  result_size_bytes: z.number().nullable(),
  parent_execution_id: z.string().nullable(),
  parent_node_id: z.string().nullable(),
  root_execution_id: z.string(),
  abort_reason: z.enum(["cancelled", "client_disconnect", "shutdown"]).nullable(),
};

/** A history row: the record without result links. */
export const executionRowView = z.object(recordFields).meta({ id: "ExecutionRow" });

/** `GET /executions/{id}`: the record, with the result's link while it is readable. */
export const executionView = z.object({
  ...recordFields,
  result_url: z.string().optional(),
  result_expires_at: z.string().optional(),
}).meta({ id: "Execution" });

const resultColumn = z.object({
  name: z.string(),
  type: z.string(),
  precision: z.int().optional(),
  scale: z.int().optional(),
});

/** `GET /executions/{id}/result` as JSON: rows are arrays in `schema` order. */
export const resultPageView = z.object({
  execution_id: z.string(),
  schema: z.array(resultColumn),
  rows: z.array(z.array(z.unknown())).describe("big integers and decimals as strings"),
  row_count: z.int(),
  offset: z.int(),
  limit: z.int(),
  total_rows: z.int(),
  has_more: z.boolean(),
  expires_at: z.string(),
}).meta({ id: "ResultPage" });

/** `GET /executions/{id}/events` with `Accept: application/json`. */
export const eventsView = z.object({
  events: z.array(z.object({
    id: z.int(),
    event: z.string(),
    data: z.record(z.string(), z.unknown()),
  })),
});

/** The `data_ready` payload, which a published endpoint answers verbatim. */
export const dataReadyView = z.object({
  execution_id: z.string(),
  pipeline_id: z.string(),
  schema: z.array(resultColumn),
  rows: z.array(z.array(z.unknown())).describe("the first page"),
  row_count: z.int(),
  total_rows: z.int(),
  has_more: z.boolean(),
  result_url: z.string(),
  expires_at: z.string(),
  ttl_seconds: z.int(),
  warnings: z.array(z.unknown()),
  correlation_id: z.string().nullable(),
}).meta({ id: "DataReady" });
