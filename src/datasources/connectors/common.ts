/**
 * Pieces every dialect shares: error classification for `test()`, values in JSON and in driver
 * form, identifier quoting.
 */
import { AppError } from "../../errors/mod.ts";
import { redactUrl } from "../../lib/redact.ts";
import type { Logger } from "../../lib/log.ts";
import { Pool, type PoolDriver } from "./pool.ts";
import type { PoolSettings } from "./pool_settings.ts";
import type { Dialect, TestOutcome, WireValue } from "./types.ts";

/** A JSON cell: bigints and decimals as strings, binary as base64, non-finite doubles as text. */
export type JsonCell = boolean | number | string | null;

/** The wire form of one value (docs/datasources.md#datasource-connectors). */
export function toJsonCell(value: WireValue): JsonCell {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return base64(value);
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  return value;
}

function base64(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/**
 * The engine refused a write under read-only mode: PostgreSQL's read_only_sql_transaction
 * (25006), MySQL's ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION (1792), SQLite's SQLITE_AUTH (23)
 * from the read-only authorizer and SQLITE_READONLY (8) from `query_only`. Refused statements become `datasource.probe.not_read_only`.
 */
export function readOnlyRefusal(error: unknown): AppError | undefined {
  if (error instanceof AppError) {
    return error.code === "datasource.probe.not_read_only" ? error : undefined;
  }
  const e = error as { code?: unknown; errno?: unknown; errcode?: unknown; message?: unknown };
  const refused = e?.code === "25006" || e?.errno === 1792 ||
    e?.code === "ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION" || e?.errcode === 23 ||
    e?.errcode === 8;
  if (!refused) return undefined;
  return new AppError("datasource.probe.not_read_only", {
    reason: "engine_refused",
    engine_message: safeMessage(error),
  });
}

/** A stable class for a connect or statement failure (the test's `error_class`). */
/** A connector's pool, its connect failures classified as every connector reports them. */
export function connectorPool<C>(
  name: string,
  settings: PoolSettings,
  driver: PoolDriver<C>,
  logger?: Logger,
): Pool<C> {
  return new Pool({ name, settings, driver, logger, classify: classifyError });
}

export function classifyError(error: unknown): string {
  const e = error as { code?: unknown; errno?: unknown; message?: unknown; error_class?: unknown };
  if (error instanceof AppError && typeof error.details.error_class === "string") {
    return error.details.error_class;
  }
  // An engine's sandbox said no (`duckdb_sandbox.ts`), maybe under a rolled-back write.
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e.name === "DuckdbRefusal") return "refused";
  }
  const code = String(e?.code ?? "");
  const message = String(e?.message ?? "").toLowerCase();
  // MariaDB's max_statement_time (1969) and MySQL's max_execution_time (3024) say "interrupted".
  if (
    /timeout|timed out|etimedout/.test(message) || code === "ETIMEDOUT" ||
    code === "CONNECT_TIMEOUT" || e?.errno === 1969 || e?.errno === 3024
  ) {
    return "timeout";
  }
  if (
    [
      "28P01",
      "28000",
      "ER_ACCESS_DENIED_ERROR",
      "ER_DBACCESS_DENIED_ERROR",
      "SASL_SIGNATURE_MISMATCH",
    ]
      .includes(code) || /password authentication|access denied|authentication failed/.test(message)
  ) return "auth";
  if (
    ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET", "EAI_AGAIN", "EPIPE"]
      .includes(code) || /connection refused|not known|unreachable|connect|closed/.test(message)
  ) return "unreachable";
  if (
    ["3D000", "ER_BAD_DB_ERROR", "ENOENT"].includes(code) ||
    /does not exist|unknown database|unable to open|no such file|ssl/.test(message)
  ) return "config";
  return "unknown";
}

/** Error text safe to store and show: URL passwords masked, length bounded. */
export function safeMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return redactUrl(text).slice(0, 500);
}

/**
 * A connection outside the pool for `test()`, whose connect is aborted once `timeoutMs` passes
 * (the driver's own refusal of the abort, where it gives one, is the error).
 */
export async function connectOnce<C>(driver: PoolDriver<C>, timeoutMs: number): Promise<C> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return await Promise.race([
      driver.connect(controller.signal),
      new Promise<never>((_, reject) =>
        controller.signal.addEventListener(
          "abort",
          () => reject(new Error(`connect timed out after ${timeoutMs} ms`)),
        )
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs a connectivity probe and reports it; never throws. */
export async function probe(fn: () => Promise<string | null>): Promise<TestOutcome> {
  const started = performance.now();
  try {
    const version = await fn();
    return {
      connected: true,
      latency_ms: Math.round(performance.now() - started),
      server_version: version,
      error: null,
      error_class: null,
    };
  } catch (error) {
    return {
      connected: false,
      latency_ms: Math.round(performance.now() - started),
      server_version: null,
      error: safeMessage(error),
      error_class: classifyError(error),
    };
  }
}

/** Parameter values as drivers take them: dates as ISO text, objects as JSON text. */
export function bindValue(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array || value === null) return value;
  if (typeof value === "object") return JSON.stringify(value);
  return value;
}

/** The warning of a column whose source type has no canonical wire type. */
export function lossyWarning(sourceType: string): string {
  return `${sourceType} has no canonical wire type; values are read as text`;
}

/** Resolves when `signal` aborts; never when absent. */
export function aborted(signal?: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (!signal) return;
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** `/columns` without a schema on a connection that reports no current schema (docs/datasources.md#datasource-connectors). */
export function schemaRequired(): never {
  throw new AppError("pipeline.execution.parameter_required", { parameter: "schema" });
}

/** An identifier quoted the way `dialect` reads it (backticks on MySQL, double quotes elsewhere). */
export function quoteIdent(dialect: Dialect, name: string): string {
  return dialect === "MYSQL"
    ? `\`${name.replaceAll("`", "``")}\``
    : `"${name.replaceAll('"', '""')}"`;
}
