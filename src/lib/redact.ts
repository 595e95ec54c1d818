/** Keeps secrets out of anything printed: logs, errors, startup lines. */

const SECRET_KEY_RE =
  /(secret|password|passwd|token|api[-_]?key|private[-_]?key|authorization|cookie|encryption[-_]?key|credential)/i;

/** True when a field name suggests its value is a secret. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY_RE.test(key);
}

/** Replaces the password of a URL (`scheme://user:pass@host`) with `***`. */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^:/?#@\s]*:)[^@/\s]*@/gi, "$1***@");
}

/**
 * Deep copy with secret-named fields replaced by `[redacted]` and URL passwords masked. Cycles and
 * depth are bounded so a log call can never hang.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8) return "[depth]";
  if (typeof value === "string") return redactUrl(value);
  if (value === null || typeof value !== "object") return value;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Error) {
    return { name: value.name, message: redactUrl(value.message) };
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretKey(k) && v !== null && v !== undefined && typeof v !== "boolean"
      ? "[redacted]"
      : redact(v, depth + 1);
  }
  return out;
}
