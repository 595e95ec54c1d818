/** Executions: parameters, nodes, limits and results. */
import type { CatalogueEntry } from "./entry.ts";

export const executionErrors = {
  "pipeline.execution.invalid_parameter_type": {
    status: 400,
    message: "Field '{field}' is invalid: {reason}.",
    user_message: "Some input was not valid.",
  },
  "pipeline.execution.parameter_required": {
    status: 400,
    message: "Parameter '{parameter}' is required and has no value.",
    user_message: "A required input is missing.",
  },
  "pipeline.execution.not_found": {
    status: 404,
    message: "Pipeline {pipeline_id} has no matching version: {reason}.",
    user_message: "That pipeline version does not exist.",
  },
  "pipeline.execution.datasource_unreachable": {
    status: 502,
    message: "The datasource could not be reached ({error_class}): {reason}.",
    user_message: "The datasource could not be reached.",
  },
  "result.execution_not_found": {
    status: 404,
    message: "No execution {execution_id} is visible to the caller.",
    user_message: "That run does not exist.",
  },
  "result.execution_incomplete": {
    status: 409,
    message: "Execution {execution_id} is still running; its result is not ready.",
    user_message: "The run has not finished yet.",
  },
  "result.execution_failed": {
    status: 410,
    message: "Execution {execution_id} ended {status} and produced no result to read.",
    user_message: "The run did not produce a result.",
  },
  "result.expired": {
    status: 410,
    message: "The result or replay window of execution {execution_id} has elapsed.",
    user_message: "This result has expired. Run the pipeline again.",
  },
  "result.format_unsupported": {
    status: 400,
    message: "Result format {format} is not served; supported: {supported}.",
    user_message: "That download format is not available.",
  },
  "result.too_large": {
    status: 500,
    message: "The caller result exceeded service.result.max-size-bytes ({max_size_bytes} bytes).",
    user_message: "The result is too large. Narrow the query or add filters.",
  },
  "result.storage_unavailable": {
    status: 500,
    message: "The result store could not take the result of execution {execution_id}.",
    user_message: "The result could not be stored. Try again shortly.",
  },
  "pipeline.node.datasource_connection_failed": {
    status: 502,
    message: "Node {node_id} could not connect to datasource {datasource} ({error_class}).",
    user_message: "A datasource the pipeline reads could not be reached.",
  },
  "pipeline.node.statement_failed": {
    status: 502,
    message: "Node {node_id}: the {dialect} statement failed ({error_class}): {reason}.",
    user_message: "A statement of the pipeline failed.",
  },
  "pipeline.node.value_too_large": {
    status: 500,
    message:
      "Node {node_id}: a value of {column} is larger than service.executor.max-cell-bytes ({max_cell_bytes} bytes).",
    user_message:
      "A value the pipeline reads is too large. Select a shorter form of it (a substring, a hash, a length).",
  },
  "pipeline.node.readonly_datasource": {
    status: 403,
    message: "Node {node_id} writes to datasource {datasource}, which is read-only.",
    user_message: "The pipeline writes to a read-only datasource.",
  },
  "pipeline.node.staging_failed": {
    status: 500,
    message: "Node {node_id}: the staging database refused the data ({reason}).",
    user_message: "The pipeline could not stage intermediate data.",
  },
  "pipeline.node.child_failed": {
    status: 502,
    message: "Node {node_id}: child execution {child_execution_id} failed with {child_code}.",
    user_message: "A pipeline this one runs failed.",
  },
  "pipeline.execution.depth_exceeded": {
    status: 400,
    message: "Child pipelines nest deeper than {max_depth} levels at node {node_id}.",
    user_message: "Pipelines call each other too deeply.",
  },
  "pipeline.execution.not_running": {
    status: 409,
    message: "Execution {execution_id} is already {status}.",
    user_message: "The execution has already finished.",
  },
  "pipeline.execution.concurrency_limit": {
    status: 429,
    message: "User already runs {running} executions; the limit is {limit}.",
    user_message: "Too many runs at once. Wait for one to finish, then retry.",
  },
  "pipeline.execution.stream_limit": {
    status: 429,
    message: "User already holds {open} execution streams; the limit is {limit}.",
    user_message: "Too many open run streams. Close one, then retry.",
  },
} as const satisfies Record<string, CatalogueEntry>;
