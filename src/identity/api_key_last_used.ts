/**
 * Coalesced `last_used_at` writes. Writing on every validation would put an UPDATE on the hot path
 * of every keyed request; instead the latest use of each key waits up to one window and a whole
 * window's uses go out as one UPDATE per key.
 */
import type { Logger } from "../lib/log.ts";
import type { Db } from "../store/mod.ts";
import { KEY_PREFIX } from "./api_key_types.ts";
import { updateLastUsed } from "./api_keys_repo.ts";

/** Queues each key's latest use and writes the queue once per window, or on `flush()`. */
export class LastUsedWriter {
  readonly #db: Db;
  readonly #logger: Logger;
  readonly #flushMs: number;
  readonly #pending = new Map<string, { atMs: number; ip: string | null }>();
  readonly #flushing = new Set<Promise<void>>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /** `flushMs` is the window over which one key's uses coalesce. */
  constructor(db: Db, logger: Logger, flushMs: number) {
    this.#db = db;
    this.#logger = logger;
    this.#flushMs = flushMs;
  }

  /**
   * Records a use of the bare `keyId` at `atMs` (epoch milliseconds, formatted only when written),
   * replacing any still-pending one of the same key.
   */
  queue(keyId: string, atMs: number, ip: string | null): void {
    this.#pending.set(keyId, { atMs, ip });
    if (this.#timer === undefined && !this.#closed) {
      const timer = setTimeout(() => {
        this.#timer = undefined;
        void this.flush();
      }, this.#flushMs);
      // A pending write must not keep a finished process (or test) alive.
      Deno.unrefTimer(timer);
      this.#timer = timer;
    }
  }

  /**
   * Writes every pending update now; failures are logged at warn, never thrown. Resolves once
   * every flush under way has finished, so a caller never sees an earlier batch still in flight.
   */
  async flush(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = [...this.#pending];
    this.#pending.clear();
    const run = (async () => {
      for (const [keyId, use] of batch) {
        try {
          await updateLastUsed(this.#db, keyId, new Date(use.atMs).toISOString(), use.ip);
        } catch (error) {
          this.#logger.warn("api key last-used write failed", {
            key_id: KEY_PREFIX + keyId,
            error: String(error),
          });
        }
      }
    })();
    this.#flushing.add(run);
    try {
      await Promise.all([...this.#flushing]);
    } finally {
      this.#flushing.delete(run);
    }
  }

  /** Flushes pending writes and stops the timer; later uses wait for an explicit flush(). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }
}
