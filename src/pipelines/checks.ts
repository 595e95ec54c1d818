/**
 * Release checks (docs/decisions.md#release-checks-probe-outside-the-release): each check's one
 * query runs through the datasource's bounded read-only probe (`datasources/probe.ts`: read-only
 * per dialect, row and time caps) and yields a verdict. `error` means no verdict could be formed:
 * the datasource is unreachable or refused the statement, the statement is not a single read, or
 * the query did not return exactly one row of one column.
 *
 * Decided here:
 * - The probe reads at most 2 rows (enough to see "not exactly one") and stops after 10 s.
 * - A value check compares numbers within `tolerance` (default 0) and anything else as text; a
 *   range check needs a number within `[min, max]`. `observed` is the value as results carry it
 *   (bigints and decimals as their digits).
 * - Parameters: the body's declared defaults, overridden by the run's `parameters`, bound as
 *   named placeholders.
 */
import { AppError } from "../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import type { PipelineBody, ReleaseCheck } from "./body.ts";
import type { CheckRun } from "./repo.ts";

export const PROBE_MAX_ROWS = 2;
export const PROBE_TIMEOUT_MS = 10_000;

/** The probe path as checks use it: `DatasourceConnections.probe`. */
export type CheckProbe = (
  actor: Principal,
  scope: WorkspaceContext,
  datasource: string,
  statement: { sql: string; params: Record<string, unknown> },
  limits: { maxRows: number; timeoutMs: number },
) => Promise<{ columns: unknown[]; rows: (boolean | number | string | null)[][] }>;

export async function runChecks(
  probe: CheckProbe,
  actor: Principal,
  scope: WorkspaceContext,
  body: PipelineBody,
  overrides: Record<string, unknown>,
): Promise<CheckRun[]> {
  const params: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(body.parameters)) {
    if (d.default !== undefined) params[name] = d.default;
  }
  Object.assign(params, overrides);
  const out: CheckRun[] = [];
  for (const c of body.checks) out.push(await runOne(probe, actor, scope, c, params));
  return out;
}

async function runOne(
  probe: CheckProbe,
  actor: Principal,
  scope: WorkspaceContext,
  c: ReleaseCheck,
  params: Record<string, unknown>,
): Promise<CheckRun> {
  const base = { check_id: c.id, name: c.name, expected: c.expectation };
  const at = () => new Date().toISOString();
  let result: Awaited<ReturnType<CheckProbe>>;
  try {
    result = await probe(actor, scope, c.datasource, { sql: c.query, params }, {
      maxRows: PROBE_MAX_ROWS,
      timeoutMs: PROBE_TIMEOUT_MS,
    });
  } catch (e) {
    const message = e instanceof AppError ? `${e.code}: ${e.message}` : (e as Error).message;
    return { ...base, observed: null, verdict: "error", message, ran_at: at() };
  }
  if (result.rows.length !== 1 || result.columns.length !== 1) {
    return {
      ...base,
      observed: null,
      verdict: "error",
      message: `expected exactly one row and one column, got ${
        result.rows.length > 1 ? "more than one" : result.rows.length
      } row(s) and ${result.columns.length} column(s)`,
      ran_at: at(),
    };
  }
  const value = result.rows[0][0];
  const observed = value === null ? null : String(value);
  const pass = judge(c.expectation, value);
  return {
    ...base,
    observed,
    verdict: pass ? "pass" : "fail",
    message: pass ? null : `observed ${observed ?? "NULL"} does not meet the expectation`,
    ran_at: at(),
  };
}

function judge(e: ReleaseCheck["expectation"], value: unknown): boolean {
  const n = typeof value === "string" && value.trim() !== ""
    ? Number(value)
    : typeof value === "number"
    ? value
    : NaN;
  if (e.kind === "range") {
    if (!Number.isFinite(n)) return false;
    return (e.min === undefined || n >= e.min) && (e.max === undefined || n <= e.max);
  }
  if (typeof e.value === "number") {
    return Number.isFinite(n) && Math.abs(n - e.value) <= (e.tolerance ?? 0);
  }
  return value !== null && String(value) === String(e.value);
}
