/**
 * The current pool (connector) of each datasource on this instance, and retirement (docs/datasources.md#datasource-connectors):
 * a save, update or delete retires the pool, new leases miss it at once, statements already
 * running finish on the connection they hold, and a reaper closes it when drained or at the
 * retire ceiling. Retirements are broadcast over the shared store so every instance drops its
 * pool of a changed or deleted datasource.
 *
 * Ask the manager for the connector at each use; a connector kept across a retirement refuses
 * new statements once its pool is closed.
 */
import type { Logger } from "../../lib/log.ts";
import type { SharedStore } from "../../shared/mod.ts";
import { Pool } from "./pool.ts";
import type { Connector } from "./types.ts";

/** The shared store's invalidation channel for datasource pools. */
export const INVALIDATE_CHANNEL = "datasources.invalidate";

export interface PoolManagerOptions {
  /** `service.datasources.retire-ceiling-seconds`, in milliseconds. */
  retireCeilingMs: number;
  logger?: Logger;
  /** With a shared store, retirements published by other instances retire pools here too. */
  shared?: SharedStore;
  channel?: string;
}

interface Slot {
  connector: Promise<Connector>;
  /** The connector once opened (read by `usage()`, which cannot wait). */
  opened?: Connector;
}

/** One pool's connections by state, as the metrics report them. */
export interface PoolUsage {
  datasource: string;
  idle: number;
  leased: number;
  connecting: number;
  waiting: number;
  max: number;
}

export class PoolManager {
  readonly #ceilingMs: number;
  readonly #logger?: Logger;
  readonly #shared?: SharedStore;
  readonly #channel: string;
  readonly #instance = crypto.randomUUID();
  readonly #current = new Map<string, Slot>();
  readonly #retiring = new Set<Promise<void>>();
  readonly #retiredListeners = new Set<(name: string) => void>();
  #unsubscribe?: () => Promise<void>;
  #closed = false;

  private constructor(options: PoolManagerOptions) {
    this.#ceilingMs = options.retireCeilingMs;
    this.#logger = options.logger;
    this.#shared = options.shared;
    this.#channel = options.channel ?? INVALIDATE_CHANNEL;
  }

  /** A manager, subscribed to the invalidation channel when a shared store is given. */
  static async create(options: PoolManagerOptions): Promise<PoolManager> {
    const manager = new PoolManager(options);
    if (options.shared) {
      manager.#unsubscribe = await options.shared.subscribe(
        manager.#channel,
        (message) => manager.#onMessage(message),
      );
    }
    return manager;
  }

  /**
   * The datasource's current connector, opened with `open` when there is none. Concurrent callers
   * share one opening.
   */
  async get(name: string, open: () => Connector | Promise<Connector>): Promise<Connector> {
    if (this.#closed) throw new Error("the pool manager is closed");
    let slot = this.#current.get(name);
    if (!slot) {
      const fresh: Slot = { connector: Promise.resolve().then(open) };
      fresh.connector.then((c) => {
        fresh.opened = c;
      }, () => {});
      slot = fresh;
      this.#current.set(name, slot);
      const opened = slot;
      // A failed open leaves no slot behind, so the next caller tries again.
      opened.connector.catch(() => {
        if (this.#current.get(name) === opened) this.#current.delete(name);
      });
    }
    return await slot.connector;
  }

  /** True when the datasource has a current (not retired) pool here. */
  has(name: string): boolean {
    return this.#current.has(name);
  }

  /**
   * The current pool of each datasource opened here, by connection state (`/metrics`). A
   * connector without a pool of its own (a LAKE reads through DuckDB in place) is left out.
   */
  usage(): PoolUsage[] {
    const out: PoolUsage[] = [];
    for (const [datasource, slot] of this.#current) {
      const pool = (slot.opened as { pool?: unknown } | undefined)?.pool;
      if (!(pool instanceof Pool)) continue;
      out.push({ datasource, ...pool.stats, max: pool.settings.maximumPoolSize });
    }
    return out;
  }

  /** Pools retired and not yet closed. */
  get retiring(): number {
    return this.#retiring.size;
  }

  /** Calls `listener(name)` whenever a retired pool of `name` has been closed. */
  onRetired(listener: (name: string) => void): () => void {
    this.#retiredListeners.add(listener);
    return () => this.#retiredListeners.delete(listener);
  }

  /**
   * Retires the datasource's pool on this instance: the next `get` opens a new one; the old one
   * closes when its leases are back, or at the ceiling. Returns once it is closed.
   */
  retire(name: string): Promise<void> {
    const slot = this.#current.get(name);
    if (!slot) return Promise.resolve();
    this.#current.delete(name);
    const closing = this.#reap(name, slot, new Date(Date.now() + this.#ceilingMs));
    this.#retiring.add(closing);
    closing.finally(() => this.#retiring.delete(closing));
    return closing;
  }

  /** Retires here and tells every other instance to retire theirs. */
  async publishRetire(name: string): Promise<void> {
    const closing = this.retire(name);
    if (this.#shared) {
      await this.#shared.publish(
        this.#channel,
        JSON.stringify({ retire: name, from: this.#instance }),
      );
    }
    // The caller does not wait for the reaper: running statements may take until the ceiling.
    closing.catch(() => {});
  }

  /** Shutdown: retires every pool (deadline `graceMs`, default now) and waits for all to close. */
  async closeAll(graceMs = 0): Promise<void> {
    this.#closed = true;
    await this.#unsubscribe?.();
    const deadline = new Date(Date.now() + graceMs);
    const slots = [...this.#current.entries()];
    this.#current.clear();
    await Promise.allSettled([
      ...slots.map(([name, slot]) => this.#reap(name, slot, deadline)),
      ...this.#retiring,
    ]);
  }

  async #reap(name: string, slot: Slot, deadline: Date): Promise<void> {
    try {
      const connector = await slot.connector.catch(() => null);
      await connector?.close(deadline);
    } catch (error) {
      this.#logger?.warn("closing a retired datasource pool failed", { datasource: name, error });
    } finally {
      for (const listener of this.#retiredListeners) listener(name);
    }
  }

  #onMessage(message: string): void {
    try {
      const parsed = JSON.parse(message) as { retire?: unknown; from?: unknown };
      if (typeof parsed.retire !== "string" || parsed.from === this.#instance) return;
      this.retire(parsed.retire).catch(() => {});
    } catch {
      this.#logger?.warn("ignored a malformed datasource invalidation message");
    }
  }
}
