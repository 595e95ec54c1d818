/**
 * The two answers a tool gives (docs/decisions.md#refusals-are-tool-results): a success carries
 * the output as `structuredContent` and the same JSON as text for clients that read only
 * `content`; a refusal is `isError: true` whose `structuredContent.error` is
 * `{code, message, details}`, the code being the one REST gives for the same refusal. Where an
 * agent's next step is not obvious from the code, the refusal also says what to do: a sentence
 * added to the message and kept as `details.hint` (docs/mcp.md#tool-answers).
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { AppError, type ErrorCode } from "../errors/mod.ts";

/** What to do next, for the refusals whose code alone does not say it. */
export const HINTS: Partial<Record<ErrorCode, string>> = {
  "result.expired":
    "A result is kept for the run's result_ttl_seconds (300 s by default): run the pipeline " +
    "again with pipelines_execute, and pass a longer result_ttl_seconds if you need to page " +
    "slowly.",
  "result.execution_incomplete":
    "The run has not ended: poll executions_get until its status is no longer RUNNING, then " +
    "read the result.",
  "result.execution_failed":
    "The run did not succeed, so there is no result: executions_get shows its error.",
  "endpoint.pipeline_not_released":
    "Releasing is a person's act: ask a promoter to release the pipeline in the UI or over " +
    "REST; no tool releases.",
  "pipeline.version.conflict":
    "Someone saved since you read it: read it again with pipelines_get and send its body_hash " +
    "as if_match.",
  "template.version.conflict":
    "Someone saved since you read it: read it again with templates_get and send its body_hash " +
    "as if_match.",
  "pipeline.execution.not_running": "The execution has already ended; nothing to cancel.",
};

export function toolSuccess(output: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
}

export function toolRefusal(error: AppError): CallToolResult {
  const hint = HINTS[error.code];
  const body = {
    error: {
      code: error.code,
      message: hint ? `${error.message} ${hint}` : error.message,
      details: hint ? { ...error.details, hint } : error.details,
    },
  };
  return {
    content: [{ type: "text", text: JSON.stringify(body) }],
    structuredContent: body,
    isError: true,
  };
}
