/**
 * `Idempotency-Key` on execute (docs/decisions.md#idempotency-keys): the first request with a key
 * claims it in the shared store together with a hash of the request; a retry with the same key and
 * the same request gets the original execution back, the same key with a different request is 409.
 * Keys are per user (an API key's requests count as its owner's) and live
 * `service.idempotency.ttl-seconds`.
 */
import { AppError } from "../errors/mod.ts";
import { bodyHash } from "../lib/canonical_json.ts";
import type { SharedStore } from "../shared/mod.ts";

export type Claim =
  /** This request owns the key: start the execution under `executionId`. */
  | { fresh: true; executionId: string }
  /**
   * A retry: answer with the execution the first request started. `claimedAt` (ms) is when the
   * first request claimed the key (absent on claims written before it was recorded).
   */
  | { fresh: false; executionId: string; claimedAt?: number };

const purgedKey = (executionId: string) => `idempotency-purged:${executionId}`;

export class IdempotencyCache {
  readonly #store: SharedStore;
  readonly #ttlMs: number;

  constructor(store: SharedStore, ttlSeconds: number) {
    this.#store = store;
    this.#ttlMs = ttlSeconds * 1000;
  }

  /**
   * Claims `key` for `request` (what was asked: pipeline, version, parameters…) with the
   * execution id the caller minted. Concurrent claims settle on one winner in the store.
   */
  async claim(
    userId: string,
    key: string,
    request: unknown,
    executionId: string,
    now = Date.now(),
  ): Promise<Claim> {
    const requestHash = bodyHash(request);
    const storeKey = `idempotency:${userId}:${key}`;
    const entry = JSON.stringify({
      request_hash: requestHash,
      execution_id: executionId,
      claimed_at: now,
    });
    if (await this.#store.set(storeKey, entry, { ttlMs: this.#ttlMs, onlyIfAbsent: true })) {
      return { fresh: true, executionId };
    }
    const existing = await this.#store.get(storeKey);
    // Expired between the two calls: claim again rather than fail a legitimate request.
    if (existing === null) return await this.claim(userId, key, request, executionId, now);
    const stored = JSON.parse(existing) as {
      request_hash: string;
      execution_id: string;
      claimed_at?: number;
    };
    if (stored.request_hash !== requestHash) {
      throw new AppError("idempotency.key_reused_for_different_request", { key });
    }
    return { fresh: false, executionId: stored.execution_id, claimedAt: stored.claimed_at };
  }

  /**
   * Frees a claim whose execution was never recorded and never will be (its instance died
   * between the claim and the record). One instance wins the take-over per claimed run; answers
   * whether this one did. The key is then claimed again like a first request.
   */
  async takeOver(userId: string, key: string, executionId: string): Promise<boolean> {
    const lock = `idempotency-takeover:${executionId}`;
    if (!await this.#store.set(lock, "1", { ttlMs: this.#ttlMs, onlyIfAbsent: true })) {
      return false;
    }
    const storeKey = `idempotency:${userId}:${key}`;
    const existing = await this.#store.get(storeKey);
    if (existing !== null && JSON.parse(existing).execution_id === executionId) {
      await this.#store.delete(storeKey);
    }
    return true;
  }

  /**
   * Remembers that these runs were purged with their pipeline version, for as long as a claim
   * naming one can live: a retry then learns the run is gone instead of waiting for its record.
   * Claims are found by key, not by run, so the purge leaves them and marks the runs instead.
   */
  async forget(runs: { id: string; started_at: string }[], now: number): Promise<void> {
    const recent = runs.filter((r) => Date.parse(r.started_at) > now - this.#ttlMs);
    for (let i = 0; i < recent.length; i += 100) {
      await Promise.all(
        recent.slice(i, i + 100).map((r) =>
          this.#store.set(purgedKey(r.id), "1", { ttlMs: this.#ttlMs })
        ),
      );
    }
  }

  /** Whether `executionId` was marked purged (its record may still exist: a rolled-back purge). */
  async forgotten(executionId: string): Promise<boolean> {
    return await this.#store.get(purgedKey(executionId)) !== null;
  }

  /** Frees a key whose execution never started (refused before acceptance). */
  async release(userId: string, key: string): Promise<void> {
    await this.#store.delete(`idempotency:${userId}:${key}`);
  }
}
