/**
 * The failure record (docs/decisions.md#failure-detail): built once when a node or an execution
 * fails, then carried unchanged into `node_failed`, `pipeline_failed` and the stored execution
 * record. Under the detail setting `full` (the default) it names the node, the rendered SQL
 * (placeholders only, never values) and the exception chain; under `structured` those three are
 * left out, so a deployment can keep internals away from its callers. Under either, the run's
 * parameter values are cut from every message.
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
  /**
   * The run's parameter values (declared and derived). An engine may quote the value it choked on
   * (`invalid input syntax for type integer: "…"`); no message of the record shows one.
   */
  values?: readonly unknown[];
}

/** What stands for a bound value cut from a message. */
export const REDACTED = "[value]";

/**
 * Cuts the text of `values` from `text`: a value of four characters or more wherever it appears,
 * a shorter one only where quoted (bare, "1" or "DE" would cut ordinary words and numbers).
 */
export function redactValues(text: string, values: readonly unknown[]): string {
  const texts = new Set<string>();
  const add = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(add);
    else if (typeof v === "string" || typeof v === "number" || typeof v === "bigint") {
      if (String(v).length > 0) texts.add(String(v));
    }
  };
  values.forEach(add);
  let out = text;
  for (const value of [...texts].sort((a, b) => b.length - a.length)) {
    if (!out.includes(value)) continue;
    if (value.length >= 4) out = out.replaceAll(value, REDACTED);
    else {
      for (const q of ['"', "'", "`"]) {
        out = out.replaceAll(`${q}${value}${q}`, `${q}${REDACTED}${q}`);
      }
    }
  }
  return out;
}

/** `value` with every string in it passed through `redact`. */
function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)]),
    ) as T;
  }
  return value;
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
  const values = context.values ?? [];
  const redact = (text: string) => redactValues(text, values);
  const body = errorBody(error, context.baseUrl);
  const record: FailureRecord = {
    ...body,
    message: redact(body.message),
    details: redactDeep(body.details, redact),
    correlation_id: context.correlationId,
  };
  if (context.detail === "structured") return record;
  if (context.node) record.node = context.node;
  if (context.sql !== undefined) record.sql = context.sql;
  const chain = exceptionChain(thrown);
  record.exception = {
    ...chain,
    message: redact(chain.message),
    caused_by: chain.caused_by.map((l) => ({ ...l, message: redact(l.message) })),
  };
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
