/** Time helpers: everything is stored UTC and served ISO 8601 with milliseconds. */

/** Now as an ISO 8601 UTC string, e.g. `2026-11-22T10:00:00.000Z`. */
export function nowIso(): string {
  return isoAt(Date.now());
}

let cachedSecond = NaN;
let cachedPrefix = "";

/**
 * `new Date(ms).toISOString()`, at a fraction of its cost: one execution stamps a few dozen
 * frames, samples and rows, nearly all within the same second, so the text up to the seconds is
 * formatted once per second and only the milliseconds are appended.
 */
export function isoAt(ms: number): string {
  const whole = Math.trunc(ms); // as the Date constructor clips it
  // Outside the Date range (NaN included): the same RangeError.
  if (!(Math.abs(whole) <= 8.64e15)) return new Date(ms).toISOString();
  const second = Math.floor(whole / 1000);
  if (second !== cachedSecond) {
    const text = new Date(second * 1000).toISOString(); // "…:SS.000Z", extended years included
    cachedPrefix = text.slice(0, -4);
    cachedSecond = second;
  }
  const milli = whole - second * 1000;
  return cachedPrefix + (milli < 10 ? "00" : milli < 100 ? "0" : "") + milli + "Z";
}

/**
 * Normalises a stored timestamp (ISO text from SQLite, Date or text from PostgreSQL) to ISO 8601
 * UTC; null stays null.
 */
export function toIso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new Error(`not a timestamp: ${String(value)}`);
  return date.toISOString();
}
