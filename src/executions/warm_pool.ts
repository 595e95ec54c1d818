/**
 * Warm things a run borrows and gives back (docs/executions.md#the-staging-pool): each is lent
 * to one run at a time, reset after it, and lent again only when the reset proved it clean;
 * spares are made in the background, never while a run waits, unless there is none at all. The
 * staging pool keeps one of these per staging engine.
 */
import type { Logger } from "../lib/log.ts";

/** What the pool keeps warm. */
export interface Warm {
  /** False once it can never serve again (a worker ended by an abort): closed, not reset. */
  readonly reusable: boolean;
  /** Makes it ready for another run; answers what was left (then it is discarded), or undefined. */
  reset(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Lent to one run; `release` gives it back once the run stopped using it. */
export interface WarmLease<H> {
  readonly host: H;
  release(): void;
}

export interface WarmPoolOptions<H> {
  /** How many are kept warm between runs; 0 keeps none (each run makes its own). */
  size: number;
  make(): Promise<H>;
  /** What a host is, for the log: "staging instance", "SQLite staging worker". */
  what: string;
  logger?: Logger;
}

/** Counters the tests and the benchmark read. */
export interface WarmPoolStats {
  created: number;
  reused: number;
  discarded: number;
  idle: number;
  lent: number;
}

export class WarmPool<H extends Warm> {
  readonly #o: WarmPoolOptions<H>;
  readonly #idle: H[] = [];
  /** Background work in flight (spares being made, hosts being reset). */
  readonly #pending = new Set<Promise<void>>();
  #spares = 0;
  /** Hosts lent to runs now. */
  #lent = 0;
  #closed = false;
  readonly #stats = { created: 0, reused: 0, discarded: 0 };

  constructor(options: WarmPoolOptions<H>) {
    this.#o = options;
  }

  get size(): number {
    return this.#o.size;
  }

  stats(): WarmPoolStats {
    return { ...this.#stats, idle: this.#idle.length, lent: this.#lent };
  }

  /** Lends a host: an idle one, else a new one made now. Keeps one spare coming. */
  async lease(): Promise<WarmLease<H>> {
    if (this.#closed) throw new Error(`the ${this.#o.what} pool is closed`);
    let host = this.#idle.pop();
    if (host) this.#stats.reused++;
    else {
      host = await this.#o.make();
      this.#stats.created++;
    }
    this.#lent++;
    this.#topUp();
    let released = false;
    const lent = host;
    return {
      host: lent,
      release: () => {
        if (released) return;
        released = true;
        this.#background(this.#giveBack(lent));
      },
    };
  }

  /**
   * A lease taken on first use: `host()` lends a host the first time it is called and answers the
   * same one after; `release()` gives it back, if one was lent (a run that never staged takes
   * none).
   */
  onFirstUse(): { host(): Promise<H>; release(): Promise<void> } {
    let lease: Promise<WarmLease<H>> | undefined;
    return {
      host: () => (lease ??= this.lease()).then((l) => l.host),
      release: async () => (await lease?.catch(() => undefined))?.release(),
    };
  }

  /** Resolves once no spare or reset is in flight (tests, the benchmark, shutdown). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.settled();
    await Promise.allSettled(this.#idle.splice(0).map((h) => h.close()));
  }

  async #giveBack(host: H): Promise<void> {
    this.#lent--;
    if (!host.reusable) this.#stats.discarded++;
    else if (!this.#closed && this.#idle.length < this.#o.size) {
      const left = await host.reset().catch((error) =>
        `reset failed: ${error instanceof Error ? error.message : String(error)}`
      );
      // Another host may have come back while this one was reset.
      if (left === undefined && this.#idle.length < this.#o.size) {
        this.#idle.push(host);
        return;
      }
      if (left !== undefined) {
        this.#stats.discarded++;
        this.#o.logger?.warn(`${this.#o.what} not clean after a run; discarded`, { left });
      }
    }
    await host.close();
    this.#topUp();
  }

  /**
   * Makes a spare in the background when none waits and fewer than `size` are lent, so the next
   * run finds one made while nobody waited.
   */
  #topUp(): void {
    if (this.#closed || this.#idle.length + this.#spares > 0) return;
    if (this.#lent + this.#spares >= this.#o.size) return;
    this.#spares++;
    this.#background(
      this.#o.make().then(async (host) => {
        this.#stats.created++;
        if (this.#closed || this.#idle.length >= this.#o.size) await host.close();
        else this.#idle.push(host);
      }).catch((error) => {
        this.#o.logger?.warn(`${this.#o.what} spare not made`, {
          error: error instanceof Error ? error.message : String(error),
        });
      }).finally(() => this.#spares--),
    );
  }

  #background(work: Promise<void>): void {
    const tracked = work.catch(() => {}).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }
}
