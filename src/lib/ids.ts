/** Identifiers: UUIDs minted by the application so both stores behave alike. */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A random (version 4) UUID, lowercase. */
export function newId(): string {
  return crypto.randomUUID();
}

/** True for the canonical 8-4-4-4-12 hexadecimal form, any version. */
export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID_RE.test(value);
}
