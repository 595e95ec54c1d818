/**
 * API key validation with a per-instance cache.
 *
 * The cache is keyed by key_id and holds a SHA-256 of the presented key (never the key) and the
 * owner's liveness for the TTL. A matching cached entry skips the lookup and Argon2id; expiry is
 * still checked against the clock on every call, and local revocation or deactivation drops entries
 * at once (other instances converge at TTL expiry, docs/access.md#sessions).
 */
import { type AuditEventName, recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import type { verifySecret } from "../lib/argon2.ts";
import { sha256HexSync } from "../lib/hashing.ts";
import type { Logger } from "../lib/log.ts";
import type { Db } from "../store/mod.ts";
import type { LastUsedWriter } from "./api_key_last_used.ts";
import { KEY_PREFIX, PRESENTED_KEY_PATTERN, type ValidatedKey } from "./api_key_types.ts";
import { findLiveKeyWithOwner } from "./api_keys_repo.ts";
import { expandScopes } from "./types.ts";

type RejectReason = "malformed" | "not_found" | "expired" | "hash_mismatch" | "owner_inactive";

interface CacheEntry {
  digest: string;
  until: number;
  expiresAtMs: number | null;
  key: ValidatedKey;
}

/** A refusal; an expired key always says when it expired. */
type Rejection =
  | { reason: "expired"; key: ValidatedKey; expiresAt: string }
  | { reason: Exclude<RejectReason, "expired">; key?: ValidatedKey };

type Outcome = { entry: CacheEntry } | Rejection;

/** What the validator needs; the service resolves every default before building one. */
export interface ApiKeyValidatorOptions {
  db: Db;
  logger: Logger;
  /** Cache entry lifetime; 0 disables the cache. */
  ttlMs: number;
  maxEntries: number;
  now: () => number;
  verify: typeof verifySecret;
  sampleUsed: () => boolean;
  lastUsed: LastUsedWriter;
}

/** Validates presented keys, caching successes per key_id. */
export class ApiKeyValidator {
  readonly #o: ApiKeyValidatorOptions;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #inflight = new Map<string, Promise<Outcome>>();
  #generation = 0;

  constructor(options: ApiKeyValidatorOptions) {
    this.#o = options;
  }

  /** Validates a presented key (steps 1–6, in order); throws auth.api_key.invalid / expired. */
  async validate(presented: unknown, context: { ip?: string } = {}): Promise<ValidatedKey> {
    const match = typeof presented === "string" ? PRESENTED_KEY_PATTERN.exec(presented) : null;
    if (!match) return await this.#reject(undefined, { reason: "malformed" });
    const keyId = match[1];
    const now = this.#o.now();
    const digest = sha256HexSync(presented as string);

    let entry = this.#cached(keyId, now);
    if (!entry || entry.digest !== digest) {
      const outcome = await this.#load(keyId, presented as string, digest, now);
      if ("reason" in outcome) return await this.#reject(keyId, outcome);
      entry = outcome.entry;
    }
    // Step 2 again on every call, cached or not.
    if (entry.expiresAtMs !== null && entry.expiresAtMs <= now) {
      return await this.#reject(keyId, {
        reason: "expired",
        key: entry.key,
        expiresAt: new Date(entry.expiresAtMs).toISOString(),
      });
    }
    // Step 5: last use written later, coalesced; `used` audited on a sample.
    this.#o.lastUsed.queue(keyId, now, context.ip ?? null);
    if (this.#o.sampleUsed()) {
      await this.#audit("auth.api_key.used", entry.key, {
        key_id: entry.key.keyId,
        kind: entry.key.kind,
        sampled: "1/100",
      });
    }
    return copyKey(entry.key);
  }

  /** Drops the cache entry of a key (`svck_…` or the bare key_id) at once. */
  invalidate(keyId: string): void {
    this.#generation++;
    this.#cache.delete(keyId.startsWith(KEY_PREFIX) ? keyId.slice(KEY_PREFIX.length) : keyId);
  }

  /** Drops every cache entry of a user's keys. */
  invalidateUser(userId: string): void {
    this.#generation++;
    for (const [id, entry] of [...this.#cache]) {
      if (entry.key.userId === userId) this.#cache.delete(id);
    }
  }

  /** Steps 1–4 against the store; concurrent presenters of one key share one Argon2id run. */
  #load(keyId: string, presented: string, digest: string, now: number): Promise<Outcome> {
    const shared = this.#inflight.get(digest);
    if (shared) return shared;
    const generation = this.#generation;
    const run = (async (): Promise<Outcome> => {
      const row = await findLiveKeyWithOwner(this.#o.db, keyId);
      if (!row) return { reason: "not_found" };
      const key: ValidatedKey = {
        keyId: KEY_PREFIX + row.id,
        kind: row.kind,
        scopes: row.kind === "user" ? expandScopes(row.scopes) : [],
        bindings: row.bindings,
        userId: row.user_id,
        pinnedWorkspaceId: row.workspace_id,
        name: row.name,
        email: row.owner.email,
        display_name: row.owner.display_name,
        provider: row.owner.provider,
        is_admin: row.owner.is_admin,
      };
      const expiresAtMs = row.expires_at === null ? null : Date.parse(row.expires_at);
      if (expiresAtMs !== null && expiresAtMs <= now) {
        return { reason: "expired", key, expiresAt: row.expires_at! };
      }
      if (!(await this.#o.verify(presented, row.key_hash))) return { reason: "hash_mismatch", key };
      if (!row.owner.is_active) return { reason: "owner_inactive", key };
      const entry: CacheEntry = { digest, until: now + this.#o.ttlMs, expiresAtMs, key };
      // An invalidation that raced this load wins: the next call must read the store again.
      if (generation === this.#generation && this.#o.ttlMs > 0) this.#remember(keyId, entry);
      return { entry };
    })().finally(() => this.#inflight.delete(digest));
    this.#inflight.set(digest, run);
    return run;
  }

  #cached(keyId: string, now: number): CacheEntry | undefined {
    const hit = this.#cache.get(keyId);
    if (hit && hit.until <= now) {
      this.#cache.delete(keyId);
      return undefined;
    }
    return hit;
  }

  #remember(keyId: string, entry: CacheEntry): void {
    // Re-inserting moves the key to the end, so the eviction below always drops the oldest.
    this.#cache.delete(keyId);
    if (this.#cache.size >= this.#o.maxEntries) {
      this.#cache.delete(this.#cache.keys().next().value!);
    }
    this.#cache.set(keyId, entry);
  }

  async #reject(
    keyId: string | undefined,
    outcome: Rejection,
  ): Promise<never> {
    await this.#audit("auth.api_key.rejected", outcome.key, {
      ...(keyId ? { key_id: KEY_PREFIX + keyId } : {}),
      reason: outcome.reason,
    });
    if (outcome.reason === "expired") {
      throw new AppError("auth.api_key.expired", { expires_at: outcome.expiresAt });
    }
    throw new AppError("auth.api_key.invalid", {});
  }

  /** Audit on the validation path: a failed write is logged, never turned into a 500. */
  async #audit(
    event: AuditEventName,
    key: ValidatedKey | undefined,
    details: Record<string, unknown>,
  ) {
    try {
      await recordAudit(this.#o.db, {
        event,
        userId: key?.userId ?? null,
        provider: key?.provider ?? null,
        workspaceId: key?.pinnedWorkspaceId ?? null,
        details,
      });
    } catch (error) {
      this.#o.logger.warn("audit write failed on key validation", { event, error: String(error) });
    }
  }
}

/** Callers get their own copy, so mutating an answer never alters the cached entry. */
function copyKey(key: ValidatedKey): ValidatedKey {
  return { ...key, scopes: [...key.scopes], bindings: key.bindings.map((b) => ({ ...b })) };
}
