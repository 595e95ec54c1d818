/**
 * Structured JSON-line logs on stdout: level, time, message, correlation id, fields. The request
 * context travels through AsyncLocalStorage, so every line written while serving a request carries
 * its correlation id without threading it through calls. Fields are redacted before writing.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { redact, redactUrl } from "./redact.ts";

export type LogLevel = "debug" | "info" | "warn" | "error";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface RequestContext {
  correlationId: string;
  /** Client address, resolved through the trusted proxies; the audit log records it. */
  sourceIp?: string;
  userAgent?: string;
}

/** The context of the request being served, if any. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

export type LogSink = (line: string) => void;

const encoder = new TextEncoder();
const stdoutSink: LogSink = (line) => {
  Deno.stdout.writeSync(encoder.encode(line + "\n"));
};

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  enabled(level: LogLevel): boolean;
}

/** A logger writing at `level` and above to `sink` (stdout by default). */
export function createLogger(level: LogLevel = "info", sink: LogSink = stdoutSink): Logger {
  const min = RANK[level];
  const write = (lvl: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (RANK[lvl] < min) return;
    const line: Record<string, unknown> = {
      level: lvl,
      time: new Date().toISOString(),
      message: redactUrl(message),
    };
    const correlationId = requestContext.getStore()?.correlationId;
    if (correlationId) line.correlation_id = correlationId;
    if (fields) Object.assign(line, redact(fields) as Record<string, unknown>);
    sink(JSON.stringify(line));
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
    enabled: (lvl) => RANK[lvl] >= min,
  };
}
