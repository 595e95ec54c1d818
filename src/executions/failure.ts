/**
 * The failure record (docs/decisions.md#failure-detail): built once when a node or an execution
 * fails, then carried unchanged into `node_failed`, `pipeline_failed` and the stored execution
 * record. Under the detail setting `full` (the default) it names the node, the rendered SQL
 * (placeholders only, never values) and the exception chain; under `structured` those three are
 * left out, so a deployment can keep internals away from its callers.
 */
import { AppError, type ErrorBody, errorBody, toAppError } from "../errors/mod.ts";
import { SOURCE_ROOT } from "../lib/assets.ts";

export type ErrorDetail = "full" | "structured";

/** At most this many stack frames per exception level, and this many levels. */
export const MAX_FRAMES = 40;
export const MAX_LEVELS = 16;

export interface FailedNode {
  id: string;
  type: string;
  datasource?: string;
  dialect?: string;
  template?: string;
  template_version?: number;
}

export interface ExceptionLevel {
  class: string;
  message: string;
  frames: string[];
}

export interface ExceptionRecord extends ExceptionLevel {
  /** The chain of causes, outermost first, root cause last. */
  caused_by: ExceptionLevel[];
}

export interface FailureRecord extends ErrorBody {
  correlation_id: string;
  node?: FailedNode;
  sql?: string;
  exception?: ExceptionRecord;
}

export interface FailureContext {
  detail: ErrorDetail;
  baseUrl: string;
  correlationId: string;
  /** Absent for timeouts and setup failures, which carry the same shape without node and sql. */
  node?: FailedNode;
  sql?: string;
}

/**
 * Builds the record from what was thrown. An AppError keeps its code and details; anything else
 * is reported as `fallback` when given (the executor's code for the situation), else as the
 * front ends answer it (`toAppError`: an outage of the metadata store is `service.unavailable`),
 * with the original error as the root of the exception chain.
 */
export function failureRecord(
  thrown: unknown,
  context: FailureContext,
  fallback?: AppError,
): FailureRecord {
  const error = thrown instanceof AppError ? thrown : fallback ?? toAppError(thrown);
  const record: FailureRecord = {
    ...errorBody(error, context.baseUrl),
    correlation_id: context.correlationId,
  };
  if (context.detail === "structured") return record;
  if (context.node) record.node = context.node;
  if (context.sql !== undefined) record.sql = context.sql;
  record.exception = exceptionChain(thrown);
  return record;
}

/** The thrown value and its `cause` chain, bounded in frames and levels, cycles cut. */
export function exceptionChain(thrown: unknown): ExceptionRecord {
  const levels: ExceptionLevel[] = [];
  const seen = new Set<unknown>();
  let current: unknown = thrown;
  while (current !== undefined && current !== null && levels.length < MAX_LEVELS) {
    if (seen.has(current)) break;
    seen.add(current);
    levels.push(level(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  const [top, ...causes] = levels;
  return { ...top, caused_by: causes };
}

function level(value: unknown): ExceptionLevel {
  if (!(value instanceof Error)) {
    return { class: typeof value, message: String(value), frames: [] };
  }
  return {
    class: value.constructor?.name || value.name || "Error",
    message: value.message,
    frames: frames(value.stack),
  };
}

const ROOT = SOURCE_ROOT.href;

/** V8 `at …` lines, trimmed, with this project's root cut from file URLs. */
function frames(stack: string | undefined): string[] {
  if (!stack) return [];
  return stack.split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("at "))
    .slice(0, MAX_FRAMES)
    .map((line) => line.slice(3).replaceAll(ROOT, ""));
}
