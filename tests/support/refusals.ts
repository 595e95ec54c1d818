/** One way for every test to assert a refusal and read the audit trail. */
import { deepEqual, equal, ok } from "node:assert/strict";
import { type AuditRecord, queryAudit } from "../../src/audit/mod.ts";
import { AppError, catalogue, type ErrorCode } from "../../src/errors/mod.ts";
import type { Queryable } from "../../src/store/mod.ts";

type Details = Record<string, unknown>;
type Run = Promise<unknown> | (() => unknown);

/**
 * Asserts that `run` (a promise, or a function that throws or rejects) fails with an AppError of
 * `code`, the given status (the catalogue's when omitted) and at least the given details, each
 * compared deeply. Status and details may come in either order so a call reads as its test does.
 */
export async function refuses(
  run: Run,
  code: string,
  status?: number,
  details?: Details,
): Promise<AppError>;
export async function refuses(
  run: Run,
  code: string,
  details?: Details,
  status?: number,
): Promise<AppError>;
export async function refuses(
  run: Run,
  code: string,
  a?: number | Details,
  b?: number | Details,
): Promise<AppError> {
  const status = typeof a === "number" ? a : typeof b === "number" ? b : undefined;
  const details = (typeof a === "object" ? a : typeof b === "object" ? b : undefined) ?? {};
  let error: unknown;
  try {
    await (typeof run === "function" ? run() : run);
  } catch (e) {
    error = e;
  }
  ok(error !== undefined, `expected ${code}, but it succeeded`);
  ok(error instanceof AppError, `expected AppError ${code}, got ${error}`);
  equal(error.code, code, error.message);
  equal(error.status, status ?? catalogue[code as ErrorCode]?.status, `status of ${code}`);
  for (const [key, value] of Object.entries(details)) {
    deepEqual(error.details[key as keyof typeof error.details], value, `details.${key}`);
  }
  return error;
}

/** Audit rows, oldest first (rows of the same millisecond in no particular order). */
export async function audits(db: Queryable, event?: string): Promise<AuditRecord[]> {
  return (await queryAudit(db, { event, offset: 0, limit: 1000 })).items.reverse();
}

/**
 * The code of the AppError `fn` throws, or "(no error)" when it returns; any other error is
 * thrown on. For the synchronous validators, compared as `equal(thrownCode(...), code)`.
 */
export function thrownCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e.code;
    throw e;
  }
  return "(no error)";
}
