/**
 * A per-instance cache with a time-to-live and in-flight sharing: concurrent misses for one key run
 * the loader once. Used for liveness facts (user active, membership flags) that may be up to a TTL
 * old on other instances (docs/access.md#sessions), while local changes invalidate at once.
 */
export class TtlCache<K, V> {
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #entries = new Map<K, { value: V; expires: number }>();
  readonly #loading = new Map<K, Promise<V>>();
  #generation = 0;

  constructor(ttlMs: number, options: { max?: number; now?: () => number } = {}) {
    this.#ttlMs = ttlMs;
    this.#max = options.max ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** The cached value, or the loader's (cached for the TTL). */
  async get(key: K, load: () => Promise<V>): Promise<V> {
    const hit = this.#entries.get(key);
    if (hit && hit.expires > this.#now()) return hit.value;
    const pending = this.#loading.get(key);
    if (pending) return await pending;
    const generation = this.#generation;
    const promise = load().then((value) => {
      // An invalidation that raced the load wins: its caller expects fresh data next time.
      if (generation === this.#generation && this.#ttlMs > 0) {
        if (this.#entries.size >= this.#max) {
          this.#entries.delete(this.#entries.keys().next().value!);
        }
        this.#entries.set(key, { value, expires: this.#now() + this.#ttlMs });
      }
      return value;
    }).finally(() => this.#loading.delete(key));
    this.#loading.set(key, promise);
    return await promise;
  }

  delete(key: K): void {
    this.#generation++;
    this.#entries.delete(key);
  }

  /** Drops every entry whose key matches. */
  deleteWhere(match: (key: K) => boolean): void {
    this.#generation++;
    for (const key of [...this.#entries.keys()]) if (match(key)) this.#entries.delete(key);
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
