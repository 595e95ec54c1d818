/**
 * The shared store: state that must be common to every replica. `memory:` keeps it in-process
 * (single instance); `redis://` shares it. Later issues build results, rate-limit counters, the
 * invalidation channel and the replay window on these primitives, never on a process-local map.
 */

/** Called for each message published on a subscribed channel. */
export type MessageHandler = (message: string) => void;

export interface SharedStore {
  readonly kind: "memory" | "redis";

  /** Value of a key, or null when absent or expired. */
  get(key: string): Promise<string | null>;
  /**
   * Sets a key. `ttlMs` makes it expire; `onlyIfAbsent` makes the write conditional (returns false
   * when the key already existed and nothing was written).
   */
  set(
    key: string,
    value: string,
    options?: { ttlMs?: number; onlyIfAbsent?: boolean },
  ): Promise<boolean>;
  /** Removes keys; returns how many existed. */
  delete(...keys: string[]): Promise<number>;
  /** Remaining lifetime in ms: -1 for a key without expiry, -2 for an absent key. */
  ttl(key: string): Promise<number>;

  /**
   * Atomically adds `by` (default 1) to a counter and returns the new value. `ttlMs` is applied
   * only when the counter is created, so a fixed window keeps its original expiry.
   */
  increment(key: string, options?: { by?: number; ttlMs?: number }): Promise<number>;

  /** Appends values to the end of a list; `ttlMs` (re)sets the list's expiry. Returns the new length. */
  append(key: string, values: string[], options?: { ttlMs?: number }): Promise<number>;
  /** Items `start` to `end` inclusive (0-based; negative counts from the end), like LRANGE. */
  range(key: string, start: number, end: number): Promise<string[]>;
  /** Length of a list; 0 when absent. */
  length(key: string): Promise<number>;

  /** Delivers a message to every subscriber of the channel on every instance. */
  publish(channel: string, message: string): Promise<void>;
  /** Subscribes; the returned function unsubscribes. */
  subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>>;

  /** Round trip to the backing store; throws when it is unreachable. */
  ping(): Promise<void>;
  /** Releases connections and timers. */
  close(): Promise<void>;
}
