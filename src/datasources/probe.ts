/**
 * The bounded read-only probe path (docs/datasources.md#the-probe-path: `sql_probe`,
 * `datasources_preview_rows`, release checks): one read statement through the datasource's
 * connector, at most `maxRows` rows, cancelled on the server after `timeoutMs`.
 *
 * Read-only is enforced twice: lexically before anything runs (`probe_lexer.ts`: one statement,
 * a read keyword first, no write keyword), then by the engine itself (`QueryOptions.readOnly`: a
 * read-only transaction rolled back afterwards on PostgreSQL and MySQL, a reads-only authorizer on
 * SQLite, the statement type on DuckDB and lakes).
 *
 * Decided here:
 * - Codes: `datasource.probe.not_read_only` (400, details.reason), `datasource.probe.timeout`
 *   (504, details.timeout_ms), `datasource.probe.statement_failed` (400, details.error_class).
 * - Caps: rows 1–1000 (default 100), time 100 ms–30 s (default 10 s); asking for more is
 *   clamped, never refused. At most `PROBE_MAX_BYTES` of values are read (then `truncated`), and
 *   a value over `service.executor.max-cell-bytes` is `datasource.probe.value_too_large` (400).
 * - Values as results carry them (bigint and decimal as strings, binary as base64).
 */
import { AppError } from "../errors/mod.ts";
import { type BoundedRows, fitRows, type RowCaps } from "../lib/bounded_rows.ts";
import {
  classifyError,
  type JsonCell,
  quoteIdent,
  readOnlyRefusal,
  safeMessage,
  toJsonCell,
} from "./connectors/common.ts";
import {
  type Connector,
  DEFAULT_ENGINE_LIMITS,
  type Dialect,
  type Statement,
  type WireType,
} from "./connectors/types.ts";
import { ValueTooLarge } from "./connectors/value_bounds.ts";
import { EXPLAIN_PREFIX } from "./connectors/catalogue.ts";
import { assertReadStatement } from "./probe_statement.ts";

export interface ProbeLimits {
  maxRows: number;
  timeoutMs: number;
}

export const PROBE_DEFAULTS: ProbeLimits = { maxRows: 100, timeoutMs: 10_000 };
/** A probe reads at most this many bytes of values (at least one row), then says `truncated`. */
export const PROBE_MAX_BYTES = 16 * 1024 * 1024;
const MAX_ROWS = 1000;
const MIN_TIMEOUT_MS = 100;
const MAX_TIMEOUT_MS = 30_000;

export interface ProbeResult {
  columns: { name: string; type: WireType; source_type: string }[];
  rows: JsonCell[][];
  row_count: number;
  /** True when the statement had rows beyond `max_rows`. */
  truncated: boolean;
  max_rows: number;
  elapsed_ms: number;
}

/** Requested caps within the probe's bounds; absent ones take the defaults. */
export function probeLimits(requested: Partial<ProbeLimits> = {}): ProbeLimits {
  const clamp = (v: number | undefined, lo: number, hi: number, fallback: number) =>
    v === undefined || !Number.isFinite(v) ? fallback : Math.min(hi, Math.max(lo, Math.trunc(v)));
  return {
    maxRows: clamp(requested.maxRows, 1, MAX_ROWS, PROBE_DEFAULTS.maxRows),
    timeoutMs: clamp(requested.timeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS, PROBE_DEFAULTS.timeoutMs),
  };
}

/** Runs one vetted read statement on `connector` within `limits` (already clamped). */
export async function runProbe(
  connector: Connector,
  statement: Statement,
  limits: ProbeLimits & { maxCellBytes?: number; explain?: boolean },
): Promise<ProbeResult> {
  assertReadStatement(statement.sql, connector.dialect);
  // The plan is asked of the vetted read; the engine's read-only rule still holds around it.
  const asked = limits.explain
    ? { ...statement, sql: EXPLAIN_PREFIX[connector.dialect] + statement.sql }
    : statement;
  const started = performance.now();
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const rows: JsonCell[][] = [];
  try {
    const stream = await connector.query(asked, {
      signal,
      maxRows: limits.maxRows,
      maxBytes: PROBE_MAX_BYTES,
      maxCellBytes: limits.maxCellBytes ?? DEFAULT_ENGINE_LIMITS.maxCellBytes,
      readOnly: true,
      ...(limits.explain ? { explain: true } : {}),
      // Small batches: the SQLite driver can only see a cancel between them.
      batchRows: Math.min(limits.maxRows + 1, 500),
    });
    for await (const batch of stream) {
      for (const row of batch) rows.push(row.map(toJsonCell));
    }
    return {
      columns: stream.schema.map(({ name, type, source_type }) => ({ name, type, source_type })),
      rows,
      row_count: rows.length,
      truncated: stream.truncated,
      max_rows: limits.maxRows,
      elapsed_ms: Math.round(performance.now() - started),
    };
  } catch (error) {
    throw probeFailure(error, connector.dialect, signal, limits);
  }
}

function probeFailure(
  error: unknown,
  dialect: Dialect,
  signal: AbortSignal,
  limits: ProbeLimits,
): AppError {
  if (signal.aborted) {
    return new AppError("datasource.probe.timeout", { timeout_ms: limits.timeoutMs });
  }
  if (error instanceof ValueTooLarge) {
    return new AppError("datasource.probe.value_too_large", {
      column: error.column === null ? "the result" : `column ${error.column}`,
      max_cell_bytes: error.limit,
    });
  }
  const refused = readOnlyRefusal(error);
  if (refused) return refused;
  if (error instanceof AppError) return error;
  return new AppError("datasource.probe.statement_failed", {
    dialect,
    error_class: classifyError(error),
    reason: safeMessage(error),
  });
}

/**
 * A probe's rows in the tools' rows shape under `caps` (`sql_probe`, `datasources_preview_rows`).
 * Run the probe with `maxRows: caps.maxRows`, so it reads one row past the cap at most; a probe
 * is not stored, so there is no `next_cursor`.
 */
export function probeRows(result: ProbeResult, caps: RowCaps): BoundedRows<JsonCell> {
  const fit = fitRows(result.rows, caps, result.truncated);
  const cut = fit.cut?.map((c) => ({
    row: 0,
    column: result.columns[c.column].name,
    length: c.length,
    kept: c.kept,
    cursor: null,
  }));
  return {
    columns: result.columns.map(({ name, type }) => ({ name, type })),
    rows: fit.rows,
    row_count: fit.rows.length,
    truncated: fit.truncated,
    next_cursor: null,
    elapsed_ms: result.elapsed_ms,
    ...(cut?.length ? { cut_cells: cut } : {}),
  };
}

/** `SELECT * FROM schema.table` for a preview; the caller has matched both names. */
export function previewSql(dialect: Dialect, schema: string | null, table: string): string {
  const target = schema === null
    ? quoteIdent(dialect, table)
    : `${quoteIdent(dialect, schema)}.${quoteIdent(dialect, table)}`;
  return `SELECT * FROM ${target}`;
}
