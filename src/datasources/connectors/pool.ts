/**
 * A connection pool with HikariCP's knobs (docs/datasources.md#datasource-connectors), generic over a driver's
 * connection type. Every dialect pools its own single-connection driver handles here, so the
 * seven keys mean the same thing everywhere:
 * - `maximumPoolSize` bounds open plus opening connections;
 * - `minimumIdle` is opened at the first lease and kept by the housekeeper (every 30 s);
 * - `connectionTimeout` bounds a lease, including a connect that hangs;
 * - `idleTimeout` closes idle connections above `minimumIdle`; `maxLifetime` retires old ones;
 * - `validationTimeout` bounds the liveness check of a connection idle for more than a moment;
 * - `leakDetectionThreshold` logs a warning for a lease held longer than that.
 */
import { AppError } from "../../errors/mod.ts";
import type { Logger } from "../../lib/log.ts";
import type { PoolSettings } from "./pool_settings.ts";

export interface PoolDriver<C> {
  /** Opens one connection. Must give up when `signal` aborts (the connection timeout). */
  connect(signal: AbortSignal): Promise<C>;
  /** True when the connection answers within `timeoutMs`. */
  validate(conn: C, timeoutMs: number): Promise<boolean>;
  /** Closes the connection; a running statement on it is abandoned. */
  close(conn: C): Promise<void>;
}

export interface Lease<C> {
  readonly conn: C;
  /** Back to the pool; `broken` closes the connection instead. Later calls do nothing. */
  release(options?: { broken?: boolean }): void;
}

interface Entry<C> {
  conn: C;
  createdAt: number;
  lastUsedAt: number;
  /** The leak-detection timer of the current lease. */
  leak?: ReturnType<typeof setTimeout>;
}

type Waiter<C> = (entry: Entry<C> | null) => void;

/** A connection unused for less than this is handed out without a liveness check (HikariCP). */
const VALIDATION_BYPASS_MS = 500;
const HOUSEKEEPING_MS = 30_000;

export interface PoolOptions<C> {
  name: string;
  settings: PoolSettings;
  driver: PoolDriver<C>;
  logger?: Logger;
  /** Classifies a connect failure for the `datasource_unreachable` details. */
  classify?: (error: unknown) => string;
  /** Clock for the housekeeper's decisions; tests move it instead of waiting. */
  now?: () => number;
}

export class Pool<C> {
  readonly name: string;
  readonly settings: PoolSettings;
  readonly #driver: PoolDriver<C>;
  readonly #logger?: Logger;
  readonly #classify: (error: unknown) => string;
  readonly #now: () => number;
  readonly #idle: Entry<C>[] = [];
  readonly #leased = new Set<Entry<C>>();
  readonly #waiters: Waiter<C>[] = [];
  readonly #connecting = new Set<Promise<unknown>>();
  /** Connections the refill has opened or is opening but not yet placed: counted against the max. */
  #refilling = 0;
  /** Entries between two owners, being checked for a lease (see `#take`). */
  #checking = 0;
  #closed = false;
  #used = false;
  #housekeeper: ReturnType<typeof setInterval> | undefined;
  #drained: (() => void) | undefined;

  constructor(options: PoolOptions<C>) {
    this.name = options.name;
    this.settings = options.settings;
    this.#driver = options.driver;
    this.#logger = options.logger;
    this.#classify = options.classify ?? (() => "unknown");
    this.#now = options.now ?? Date.now;
  }

  /** Open connections: idle plus leased (not counting connects in flight). */
  get size(): number {
    return this.#idle.length + this.#leased.size;
  }

  get stats(): { idle: number; leased: number; connecting: number; waiting: number } {
    return {
      idle: this.#idle.length,
      leased: this.#leased.size,
      connecting: this.#connecting.size,
      waiting: this.#waiters.length,
    };
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Leases a connection: an idle one (checked when it sat unused), a new one while below the
   * maximum, or the next one released. Fails with `pipeline.execution.datasource_unreachable`
   * when nothing is available within `connectionTimeout`.
   */
  async acquire(signal?: AbortSignal): Promise<Lease<C>> {
    if (this.#closed) throw new Error(`the pool of ${this.name} is closed`);
    signal?.throwIfAborted();
    this.#startHousekeeping();
    const deadline = Date.now() + this.settings.connectionTimeout;
    while (true) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw this.#timeout();
      const idle = this.#idle.pop();
      if (idle) {
        this.#checking++;
        const lease = await this.#take(idle, remaining);
        if (lease) return lease;
        continue;
      }
      if (this.#opened < this.settings.maximumPoolSize) {
        return this.#lease(await this.#open(remaining, signal));
      }
      const entry = await this.#wait(remaining, signal);
      const lease = entry && await this.#take(entry, deadline - Date.now());
      if (lease) return lease;
    }
  }

  /** Runs `fn` on a leased connection and releases it, broken when `fn` throws `broken`. */
  async use<T>(fn: (conn: C) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const lease = await this.acquire(signal);
    try {
      const result = await fn(lease.conn);
      lease.release();
      return result;
    } catch (error) {
      lease.release({ broken: isBroken(error) });
      throw error;
    }
  }

  /**
   * Stops leasing, closes idle connections, waits for leased ones to come back until `deadline`,
   * then closes what is still leased (abandoning its statement).
   */
  async close(deadline?: Date): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      clearInterval(this.#housekeeper);
      for (const waiter of this.#waiters.splice(0)) waiter(null);
    }
    await Promise.allSettled([...this.#connecting]);
    await Promise.all(this.#idle.splice(0).map((e) => this.#dispose(e)));
    if (this.#leased.size > 0) {
      const drained = new Promise<void>((resolve) => (this.#drained = resolve));
      const wait = Math.max(0, (deadline?.getTime() ?? Date.now()) - Date.now());
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([drained, new Promise((r) => (timer = setTimeout(r, wait)))]);
      clearTimeout(timer);
      for (const entry of this.#leased) clearTimeout(entry.leak);
      await Promise.all([...this.#leased].map((e) => this.#dispose(e)));
      this.#leased.clear();
    }
  }

  /**
   * One housekeeping pass (the timer runs it every 30 s): closes connections idle past
   * `idleTimeout` above `minimumIdle` and those past `maxLifetime`, then refills `minimumIdle`.
   */
  async housekeep(): Promise<void> {
    if (this.#closed) return;
    const now = this.#now();
    const { idleTimeout, minimumIdle } = this.settings;
    const doomed: Entry<C>[] = [];
    // Oldest-used first, so the recently used stay warm.
    const byAge = [...this.#idle].sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    let open = this.size;
    for (const entry of byAge) {
      const idleTooLong = idleTimeout > 0 && now - entry.lastUsedAt > idleTimeout &&
        open > minimumIdle;
      if (idleTooLong || this.#expired(entry, now)) {
        doomed.push(entry);
        open--;
      }
    }
    for (const entry of doomed) this.#idle.splice(this.#idle.indexOf(entry), 1);
    await Promise.all(doomed.map((e) => this.#dispose(e)));
    await this.#fill();
  }

  /** Connections open or opening, with those between two owners (being checked for a lease). */
  get #opened(): number {
    return this.size + this.#checking + this.#connecting.size + this.#refilling;
  }

  #expired(entry: Entry<C>, now = this.#now()): boolean {
    return this.settings.maxLifetime > 0 && now - entry.createdAt >= this.settings.maxLifetime;
  }

  /**
   * Leases an entry taken from the idle list or handed over by a releasing owner, unless it is
   * past its lifetime or fails its check (then it is closed). The taker counts it in
   * `#checking` first: in neither list meanwhile, it must still count as open, or a concurrent
   * acquire opens a connection in its place and the pool passes maximumPoolSize.
   */
  async #take(entry: Entry<C>, remaining: number): Promise<Lease<C> | undefined> {
    try {
      if (this.#expired(entry)) {
        await this.#dispose(entry);
        return undefined;
      }
      if (this.#now() - entry.lastUsedAt >= VALIDATION_BYPASS_MS) {
        const timeout = Math.max(1, Math.min(this.settings.validationTimeout, remaining));
        const alive = await this.#driver.validate(entry.conn, timeout).catch(() => false);
        if (!alive) {
          await this.#dispose(entry);
          return undefined;
        }
      }
      return this.#lease(entry);
    } finally {
      this.#checking--;
    }
  }

  #lease(entry: Entry<C>): Lease<C> {
    // Counted before the first fill runs, so the fill never opens past maximumPoolSize.
    this.#leased.add(entry);
    if (!this.#used) {
      // The first use opens minimumIdle; an unused datasource holds no connections.
      this.#used = true;
      void this.#fill();
    }
    const leasedAt = Date.now();
    const threshold = this.settings.leakDetectionThreshold;
    entry.leak = threshold > 0
      ? setTimeout(() => {
        this.#logger?.warn("datasource connection held past leakDetectionThreshold", {
          datasource: this.name,
          held_ms: Date.now() - leasedAt,
          leak_detection_threshold_ms: threshold,
        });
      }, threshold)
      : undefined;
    let released = false;
    return {
      conn: entry.conn,
      release: (options) => {
        if (released) return;
        released = true;
        clearTimeout(entry.leak);
        this.#giveBack(entry, options?.broken === true);
      },
    };
  }

  #giveBack(entry: Entry<C>, broken: boolean): void {
    if (!this.#leased.delete(entry)) return;
    if (broken || this.#closed || this.#expired(entry)) {
      void this.#dispose(entry).then(() => this.#wakeOne());
    } else {
      entry.lastUsedAt = this.#now();
      this.#handOver(entry);
    }
    if (this.#closed && this.#leased.size === 0) this.#drained?.();
  }

  /** To the first waiter (counted until it takes the entry), else to the idle list. */
  #handOver(entry: Entry<C>): void {
    const waiter = this.#waiters.shift();
    if (!waiter) return void this.#idle.push(entry);
    this.#checking++;
    waiter(entry);
  }

  /** A slot freed up: let one waiter try to open a connection in it. */
  #wakeOne(): void {
    this.#waiters.shift()?.(null);
  }

  #wait(remaining: number, signal?: AbortSignal): Promise<Entry<C> | null> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(this.#timeout());
      }, remaining);
      const onAbort = () => {
        clearTimeout(timer);
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(signal!.reason);
      };
      const waiter: Waiter<C> = (entry) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        if (this.#closed && entry === null) reject(new Error(`the pool of ${this.name} is closed`));
        else resolve(entry);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  async #open(timeoutMs: number, signal?: AbortSignal, wake = true): Promise<Entry<C>> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new Error(`no connection within connectionTimeout (${timeoutMs} ms)`));
      }, timeoutMs);
      // The caller gave up: stop connecting for it rather than make it wait out the timeout.
      onAbort = () => {
        controller.abort();
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    const connecting = this.#driver.connect(controller.signal);
    // A driver that ignores the signal may still connect later: close what nobody will use.
    connecting.then(
      (conn) => {
        if (controller.signal.aborted) this.#driver.close(conn).catch(() => {});
      },
      () => {},
    );
    // Counted until the race settles, so close() never waits on a driver that hangs.
    const attempt = Promise.race([connecting, timedOut]);
    this.#connecting.add(attempt);
    attempt.catch(() => {}).finally(() => this.#connecting.delete(attempt));
    try {
      const conn = await attempt;
      const now = this.#now();
      return { conn, createdAt: now, lastUsedAt: now };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const timeout = controller.signal.aborted;
      throw new AppError("pipeline.execution.datasource_unreachable", {
        datasource: this.name,
        error_class: timeout ? "timeout" : this.#classify(error),
        reason: error instanceof Error ? error.message : String(error),
      });
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
      if (wake) this.#wakeOne();
    }
  }

  async #fill(): Promise<void> {
    if (!this.#used) return;
    const missing = Math.max(
      0,
      Math.min(
        this.settings.minimumIdle - this.#idle.length - this.#refilling,
        this.settings.maximumPoolSize - this.#opened,
      ),
    );
    // Reserved until placed: between a connect finishing and its placing, a waiter that retries
    // must still see it counted, or the pool opens past maximumPoolSize.
    this.#refilling += missing;
    await Promise.all(Array.from({ length: missing }, async () => {
      try {
        const entry = await this.#open(this.settings.connectionTimeout, undefined, false);
        this.#refilling--;
        if (this.#closed) await this.#dispose(entry);
        else this.#handOver(entry);
      } catch (error) {
        this.#refilling--;
        this.#logger?.debug("pool refill failed", { datasource: this.name, error });
      }
      this.#wakeOne();
    }));
  }

  #startHousekeeping(): void {
    if (this.#housekeeper !== undefined) return;
    this.#housekeeper = setInterval(() => {
      this.housekeep().catch((error) =>
        this.#logger?.warn("pool housekeeping failed", { datasource: this.name, error })
      );
    }, HOUSEKEEPING_MS);
    Deno.unrefTimer(this.#housekeeper);
  }

  async #dispose(entry: Entry<C>): Promise<void> {
    await this.#driver.close(entry.conn).catch((error) =>
      this.#logger?.debug("closing a pooled connection failed", { datasource: this.name, error })
    );
  }

  #timeout(): AppError {
    return new AppError("pipeline.execution.datasource_unreachable", {
      datasource: this.name,
      error_class: "timeout",
      reason:
        `no connection available within connectionTimeout (${this.settings.connectionTimeout} ms)`,
    });
  }
}

/** Marks an error after which the connection must not be reused. */
export class BrokenConnection extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

function isBroken(error: unknown): boolean {
  return error instanceof BrokenConnection;
}
