import { checkInteger, checkTtl } from "./args.ts";
import type { MessageHandler, SharedStore } from "./types.ts";

/**
 * Counters are stored as strings, as in Redis, so `get` on a counter and `increment` on a numeric
 * string behave the same on both stores.
 */
type Entry =
  | { type: "string"; value: string; expiresAt: number | null; size: number }
  | { type: "list"; items: string[]; expiresAt: number | null; size: number };

/** One record per subscribe() call, so the same function subscribed twice is two subscriptions. */
type Subscription = { handler: MessageHandler };

const WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
const NOT_INTEGER = "ERR value is not an integer or out of range";
/** Redis' answer under `maxmemory` with no eviction, so callers handle both stores alike. */
const OOM = "OOM command not allowed when used memory > 'maxmemory'";

/** Options for {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** How often expired entries are freed; lazy checks already hide them. Default 10 s. */
  sweepIntervalMs?: number;
  /**
   * Characters of keys and values the store holds at most (results, mostly: every caller result
   * lives here for its TTL). A `set` or `append` past it fails as Redis does under `maxmemory`;
   * counters are exempt, so rate limits and budgets keep working while results fill the store.
   * Unbounded when absent.
   */
  maxChars?: number;
  /** Milliseconds since the epoch; TTLs and the sweep follow it (tests move it). */
  now?: () => number;
}

/**
 * Single-process {@link SharedStore} with Redis semantics (SET NX, PTTL, INCRBY fixed windows,
 * RPUSH/LRANGE/LLEN, WRONGTYPE). Only valid for one replica: nothing is shared across processes.
 */
export class MemoryStore implements SharedStore {
  readonly kind = "memory" as const;
  #entries = new Map<string, Entry>();
  #channels = new Map<string, Set<Subscription>>();
  #sweepTimer: ReturnType<typeof setInterval>;
  #closed = false;
  /** Characters held now (keys and values), against `#maxChars`. */
  #chars = 0;
  readonly #maxChars: number;
  #sweptAt = -Infinity;
  readonly #now: () => number;

  constructor(options: MemoryStoreOptions = {}) {
    this.#maxChars = options.maxChars ?? Infinity;
    this.#now = options.now ?? Date.now;
    const every = options.sweepIntervalMs ?? 10_000;
    this.#sweepTimer = setInterval(() => this.sweep(), every);
    // The sweep only frees memory; it must not keep the process (or a test) alive.
    Deno.unrefTimer(this.#sweepTimer);
  }

  /** Number of stored keys, expired-but-unswept ones included (for diagnostics and tests). */
  get size(): number {
    return this.#entries.size;
  }

  /** Characters of keys and values held, expired-but-unswept ones included. */
  get chars(): number {
    return this.#chars;
  }

  /** Frees every expired entry now; the timer calls this periodically. */
  sweep(): void {
    const now = this.#now();
    this.#sweptAt = now;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt !== null && entry.expiresAt <= now) this.#drop(key, entry);
    }
  }

  get(key: string): Promise<string | null> {
    return this.#run(() => {
      const entry = this.#live(key);
      if (entry === undefined) return null;
      if (entry.type !== "string") throw new Error(WRONGTYPE);
      return entry.value;
    });
  }

  set(
    key: string,
    value: string,
    options: { ttlMs?: number; onlyIfAbsent?: boolean } = {},
  ): Promise<boolean> {
    return this.#run(() => {
      const ttlMs = checkTtl(options.ttlMs);
      // SET NX looks at any type; a plain SET replaces any type and drops the old expiry.
      const existing = this.#live(key);
      if (options.onlyIfAbsent && existing !== undefined) return false;
      const size = key.length + value.length;
      this.#make(size - (existing?.size ?? 0));
      if (existing) this.#drop(key, existing);
      this.#keep(key, { type: "string", value, expiresAt: this.#expiry(ttlMs), size });
      return true;
    });
  }

  delete(...keys: string[]): Promise<number> {
    return this.#run(() => {
      let removed = 0;
      for (const key of keys) {
        const entry = this.#live(key);
        if (entry === undefined) continue;
        removed++;
        this.#drop(key, entry);
      }
      return removed;
    });
  }

  ttl(key: string): Promise<number> {
    return this.#run(() => {
      const entry = this.#live(key);
      if (entry === undefined) return -2;
      if (entry.expiresAt === null) return -1;
      return Math.max(0, entry.expiresAt - this.#now());
    });
  }

  increment(key: string, options: { by?: number; ttlMs?: number } = {}): Promise<number> {
    return this.#run(() => {
      const by = checkInteger(options.by ?? 1, "by");
      const ttlMs = checkTtl(options.ttlMs);
      const entry = this.#live(key);
      if (entry === undefined) {
        const value = String(by);
        this.#keep(key, { type: "string", value, expiresAt: this.#expiry(ttlMs), size: 0 });
        return by;
      }
      if (entry.type !== "string") throw new Error(WRONGTYPE);
      // Redis' strict integer syntax: no sign on zero, no leading zeros, no spaces.
      const current = /^(0|-?[1-9]\d*)$/.test(entry.value) ? Number(entry.value) : NaN;
      if (!Number.isSafeInteger(current)) throw new Error(NOT_INTEGER);
      const next = current + by;
      if (!Number.isSafeInteger(next)) throw new Error("ERR increment or decrement would overflow");
      entry.value = String(next);
      return next;
    });
  }

  append(key: string, values: string[], options: { ttlMs?: number } = {}): Promise<number> {
    return this.#run(() => {
      const ttlMs = checkTtl(options.ttlMs);
      const entry = this.#live(key);
      if (entry !== undefined && entry.type !== "list") throw new Error(WRONGTYPE);
      // RPUSH needs at least one value; appending nothing is a read of the length.
      if (values.length === 0) return entry?.items.length ?? 0;
      let added = entry === undefined ? key.length : 0;
      for (const value of values) added += value.length;
      this.#make(added);
      const list = entry ?? { type: "list" as const, items: [], expiresAt: null, size: 0 };
      for (const value of values) list.items.push(value); // spread would overflow on huge batches
      if (ttlMs !== undefined) list.expiresAt = this.#expiry(ttlMs);
      if (entry === undefined) this.#keep(key, list);
      list.size += added;
      this.#chars += added;
      return list.items.length;
    });
  }

  range(key: string, start: number, end: number): Promise<string[]> {
    return this.#run(() => {
      checkInteger(start, "start");
      checkInteger(end, "end");
      const items = this.#list(key);
      const n = items.length;
      // LRANGE: negatives count from the end, then both ends are clamped; end is inclusive.
      const from = Math.max(0, start < 0 ? n + start : start);
      const to = Math.min(n - 1, end < 0 ? n + end : end);
      return from > to ? [] : items.slice(from, to + 1);
    });
  }

  length(key: string): Promise<number> {
    return this.#run(() => this.#list(key).length);
  }

  publish(channel: string, message: string): Promise<void> {
    return this.#run(() => {
      const subscriptions = this.#channels.get(channel);
      if (subscriptions === undefined) return;
      for (const sub of subscriptions) {
        // Asynchronous like Redis, so a publisher never runs subscriber code on its own stack.
        queueMicrotask(() => {
          if (!subscriptions.has(sub)) return; // unsubscribed since the publish
          try {
            sub.handler(message);
          } catch {
            // A subscriber's failure is its own; the others must still get the message.
          }
        });
      }
    });
  }

  subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>> {
    return this.#run(() => {
      const sub: Subscription = { handler };
      let subscriptions = this.#channels.get(channel);
      if (subscriptions === undefined) this.#channels.set(channel, subscriptions = new Set());
      subscriptions.add(sub);
      return () => {
        subscriptions.delete(sub);
        if (subscriptions.size === 0 && this.#channels.get(channel) === subscriptions) {
          this.#channels.delete(channel);
        }
        return Promise.resolve();
      };
    });
  }

  ping(): Promise<void> {
    return this.#run(() => {});
  }

  close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweepTimer);
    this.#entries.clear();
    this.#chars = 0;
    this.#channels.clear();
    return Promise.resolve();
  }

  /** Runs a synchronous operation as a promise, so errors reject like they do over the network. */
  #run<T>(operation: () => T): Promise<T> {
    try {
      if (this.#closed) throw new Error("memory store is closed");
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The entry if present and not expired; expired entries are dropped on sight. */
  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== null && entry.expiresAt <= this.#now()) {
      this.#drop(key, entry);
      return undefined;
    }
    return entry;
  }

  /**
   * Room for `more` characters, or the OOM error. Expired entries go first (the sweep's timer may
   * not have run since they expired), at most once a second: a full store refusing write after
   * write must not walk every key each time.
   */
  #make(more: number): void {
    if (more <= 0 || this.#chars + more <= this.#maxChars) return;
    if (this.#now() - this.#sweptAt >= 1000) this.sweep();
    if (this.#chars + more > this.#maxChars) throw new Error(OOM);
  }

  #expiry(ttlMs: number | undefined): number | null {
    return ttlMs === undefined ? null : this.#now() + ttlMs;
  }

  #keep(key: string, entry: Entry): void {
    this.#entries.set(key, entry);
    this.#chars += entry.size;
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#chars -= entry.size;
  }

  #list(key: string): string[] {
    const entry = this.#live(key);
    if (entry === undefined) return [];
    if (entry.type !== "list") throw new Error(WRONGTYPE);
    return entry.items;
  }
}
