/**
 * The two answers a tool gives (DECISIONS.md "MCP tool refusals"): a success carries the output
 * as `structuredContent` and the same JSON as text for clients that read only `content`; a refusal
 * is `isError: true` whose `structuredContent.error` is `{code, message, details}`, the code being
 * the one REST gives for the same refusal.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { AppError } from "../errors/mod.ts";

export function toolSuccess(output: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
}

export function toolRefusal(error: AppError): CallToolResult {
  const body = { error: { code: error.code, message: error.message, details: error.details } };
  return {
    content: [{ type: "text", text: JSON.stringify(body) }],
    structuredContent: body,
    isError: true,
  };
}
