/**
 * Argument checks shared by both stores, so a bad argument fails the same way on `memory:` and
 * `redis://` instead of one silently rounding and the other returning a Redis syntax error.
 */

/** Throws unless `ttlMs` is absent or a positive safe integer (Redis rejects `PX 0` too). */
export function checkTtl(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  }
  return ttlMs;
}

/** Throws unless `value` is a safe integer; `what` names it in the message. */
export function checkInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`${what} must be an integer, got ${value}`);
  }
  return value;
}
