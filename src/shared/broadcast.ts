/**
 * A change applied on this instance at once and on every other instance following the same
 * channel of the shared store: how per-instance caches (validated keys, access facts) drop an
 * entry everywhere when the row behind it changes. Delivery is best effort; each cache keeps its
 * own time bound for a message lost to a broken connection.
 */
import type { Logger } from "../lib/log.ts";
import type { SharedStore } from "./types.ts";

export class Broadcast<T> {
  readonly #channel: string;
  readonly #apply: (change: T) => void;
  readonly #instance = crypto.randomUUID();
  #shared?: SharedStore;
  #logger?: Logger;
  #unsubscribe?: () => Promise<void>;

  constructor(channel: string, apply: (change: T) => void) {
    this.#channel = channel;
    this.#apply = apply;
  }

  /** Follows the changes other instances send. */
  async open(shared: SharedStore, logger?: Logger): Promise<void> {
    this.#shared = shared;
    this.#logger = logger;
    this.#unsubscribe = await shared.subscribe(this.#channel, (message) => {
      let parsed: { from?: unknown; change?: T };
      try {
        parsed = JSON.parse(message);
      } catch {
        this.#logger?.warn("ignored a malformed message", { channel: this.#channel });
        return;
      }
      if (parsed.from !== this.#instance && parsed.change !== undefined) {
        this.#apply(parsed.change);
      }
    });
  }

  async close(): Promise<void> {
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Applies `change` here before returning, then tells the other instances. */
  send(change: T): void {
    this.#apply(change);
    if (!this.#shared) return;
    const message = JSON.stringify({ from: this.#instance, change });
    this.#shared.publish(this.#channel, message).catch((error) =>
      // Applied here; the others catch up at their cache's time bound.
      this.#logger?.warn("change announcement failed", { channel: this.#channel, error })
    );
  }
}
