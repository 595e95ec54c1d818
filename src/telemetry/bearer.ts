/**
 * The `/metrics` bearer token check. Only the token's SHA-256 is kept; a presented token is hashed
 * the same way and the two digests are compared in constant time, so neither the token's content
 * nor its length shows in how long a refusal takes.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string): Uint8Array => createHash("sha256").update(text).digest();

export class BearerCheck {
  readonly #expected: Uint8Array;

  constructor(token: string) {
    this.#expected = digest(token);
  }

  /** Null when `Authorization: Bearer <token>` carries the token; else why not. */
  judge(authorization: string | undefined): "missing" | "wrong" | null {
    const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? "")?.[1];
    if (presented === undefined) return "missing";
    return timingSafeEqual(digest(presented), this.#expected) ? null : "wrong";
  }
}
