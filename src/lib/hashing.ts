/** Content hashing helpers. */
import { createHash } from "node:crypto";

const encoder = new TextEncoder();

/** Lowercase hex SHA-256 of a UTF-8 string or bytes. */
export async function sha256Hex(input: string | Uint8Array): Promise<string> {
  const bytes = typeof input === "string" ? encoder.encode(input) : input;
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Synchronous SHA-256 hex for hot paths (cache keys of presented credentials): about 2 µs where
 * WebCrypto's async digest costs about 50 µs per call.
 */
export function sha256HexSync(input: string): string {
  return createHash("sha256").update(input).digest("hex");
}
