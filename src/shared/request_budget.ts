/**
 * The per-user request budget (docs/decisions.md#one-request-budget-per-user): a per-second and a
 * per-minute fixed window, counted in the shared store so every replica draws from one budget (an
 * API key draws from its owner's). The limiter fails closed: when the store cannot answer, `take()`
 * throws and the caller refuses the request (`rate_limit.unavailable`).
 */
import type { SharedStore } from "./types.ts";

export interface BudgetLimits {
  perSecond: number;
  perMinute: number;
}

/** The window that binds tightest, for the `RateLimit-*` headers and `Retry-After`. */
export interface BudgetDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the binding window resets (at least 1). */
  resetSeconds: number;
}

export class RequestBudget {
  readonly #store: SharedStore;
  readonly #limits: BudgetLimits;
  readonly #now: () => number;

  constructor(store: SharedStore, limits: BudgetLimits, now: () => number = Date.now) {
    this.#store = store;
    this.#limits = limits;
    this.#now = now;
  }

  /** Counts one request of `subject` in both windows and says whether it fits. */
  async take(subject: string): Promise<BudgetDecision> {
    const now = this.#now();
    // Both counters in one round trip. On the hot path of every request: no closures per window.
    const [perSecond, perMinute] = await Promise.all([
      this.#count("s", 1_000, subject, now),
      this.#count("m", 60_000, subject, now),
    ]);
    const second = window(perSecond, this.#limits.perSecond, 1_000, now);
    const minute = window(perMinute, this.#limits.perMinute, 60_000, now);
    const allowed = second.remaining >= 0 && minute.remaining >= 0;
    const binding = binds(second, minute);
    return {
      allowed,
      limit: binding.limit,
      remaining: Math.max(0, binding.remaining),
      resetSeconds: binding.resetSeconds,
    };
  }

  #count(name: string, ms: number, subject: string, now: number): Promise<number> {
    // Outlives the window a little so a slow replica's clock never revives a counter.
    return this.#store.increment(`ratelimit:${name}:${subject}:${Math.floor(now / ms)}`, {
      ttlMs: ms * 2,
    });
  }
}

/** One window's standing; `remaining` goes negative once the window is exceeded. */
function window(count: number, limit: number, ms: number, now: number) {
  return {
    limit,
    remaining: limit - count,
    resetSeconds: Math.max(1, Math.ceil(((Math.floor(now / ms) + 1) * ms - now) / 1000)),
  };
}

type Window = ReturnType<typeof window>;

/** Exceeded: the window that frees last decides the wait. Otherwise the one with least room. */
function binds(second: Window, minute: Window): Window {
  const secondOver = second.remaining < 0;
  const minuteOver = minute.remaining < 0;
  if (secondOver && minuteOver) return minute.resetSeconds > second.resetSeconds ? minute : second;
  if (secondOver) return second;
  if (minuteOver) return minute;
  return minute.remaining < second.remaining ? minute : second;
}
