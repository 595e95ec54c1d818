/**
 * The promotion key gate's decision (docs/decisions.md#the-server-key): a presented
 * `SVC-Promotion-Key` is compared first with the configured pre-shared value
 * (`service.deployment.promotion.server-key`, deprecated) in constant time, then validated
 * against the key store (Argon2id of the whole key, expiry, owner liveness) and must be of kind
 * `server`. Every failure is the same 401 `auth.promotion.key_invalid` with empty details, so the
 * answer tells nothing about why; the reason goes to the `auth.promotion.rejected` audit row only.
 * Nothing configured and no live server key fails closed by construction: nothing can match.
 *
 * The key itself is never stored or logged: audit rows carry its fingerprint, the first 16 hex
 * characters of its SHA-256 (`sha256:` prefixed), which a sender computes the same way.
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { PRESENTED_KEY_PATTERN, type ValidatedKey } from "../identity/mod.ts";
import { sha256HexSync } from "../lib/hashing.ts";
import type { Queryable } from "../store/mod.ts";

/** Who pushed: the key's id (null for the configured value) and its fingerprint. */
export interface PromotionCaller {
  keyId: string | null;
  fingerprint: string;
  via: "configured" | "key_store";
  /** The workspace the server key was pinned to (absent for the configured value). */
  pinnedWorkspaceId?: string;
}

export type RejectReason =
  | "missing"
  | "malformed"
  | "unknown"
  | "expired"
  | "wrong_kind";

/** The truncated hash of a presented key that audit rows and push bodies carry. */
export function keyFingerprint(presented: string): string {
  return `sha256:${sha256HexSync(presented).slice(0, 16)}`;
}

/** Equal-length comparison whose time does not depend on where two digests differ. */
function constantTimeEqual(a: string, b: string): boolean {
  const x = sha256HexSync(a);
  const y = sha256HexSync(b);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x.charCodeAt(i) ^ y.charCodeAt(i);
  return diff === 0;
}

export interface PromotionKeysOptions {
  db: Queryable;
  /** The identity domain's validator (cache, expiry, owner liveness, last-used stamp). */
  keys: { validate(presented: unknown, context?: { ip?: string }): Promise<ValidatedKey> };
  /** The deprecated pre-shared value, when configured. */
  configured?: string;
}

export class PromotionKeys {
  readonly #o: PromotionKeysOptions;

  constructor(options: PromotionKeysOptions) {
    this.#o = options;
  }

  /** The caller behind a presented key; throws the one 401 after auditing the reason. */
  async authenticate(
    presented: string | undefined,
    context: { ip?: string; path: string },
  ): Promise<PromotionCaller> {
    if (!presented) return await this.#reject("missing", undefined, context.path);
    const fingerprint = keyFingerprint(presented);
    // The configured value is compared even when absent (against a value nothing equals), so a
    // deployment without one spends the same time as one with it.
    const configured = this.#o.configured;
    const matches = constantTimeEqual(presented, configured ?? `\u0000${presented}`);
    if (configured !== undefined && matches) {
      return { keyId: null, fingerprint, via: "configured" };
    }
    if (!PRESENTED_KEY_PATTERN.test(presented)) {
      return await this.#reject("malformed", fingerprint, context.path);
    }
    let key: ValidatedKey;
    try {
      key = await this.#o.keys.validate(presented, { ip: context.ip });
    } catch (e) {
      const expired = e instanceof AppError && e.code === "auth.api_key.expired";
      return await this.#reject(expired ? "expired" : "unknown", fingerprint, context.path);
    }
    if (key.kind !== "server") return await this.#reject("wrong_kind", fingerprint, context.path);
    return {
      keyId: key.keyId,
      fingerprint,
      via: "key_store",
      pinnedWorkspaceId: key.pinnedWorkspaceId,
    };
  }

  async #reject(
    reason: RejectReason,
    fingerprint: string | undefined,
    path: string,
  ): Promise<never> {
    await recordAudit(this.#o.db, {
      event: "auth.promotion.rejected",
      userId: null,
      provider: null,
      details: { reason, path, ...(fingerprint ? { key_fingerprint: fingerprint } : {}) },
    });
    // Empty details: the body must be byte-identical whatever the reason.
    throw new AppError("auth.promotion.key_invalid", {});
  }
}
