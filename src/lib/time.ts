/** Time helpers: everything is stored UTC and served ISO 8601 with milliseconds. */

/** Now as an ISO 8601 UTC string, e.g. `2026-11-22T10:00:00.000Z`. */
export function nowIso(): string {
  return new Date().toISOString();
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
