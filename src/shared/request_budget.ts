/**
 * The per-user request budget of spec 2 §8: a per-second and a per-minute fixed window, counted in
 * the shared store so every replica draws from one budget (an API key draws from its owner's).
 * The limiter fails closed: when the store cannot answer, `take()` throws and the caller refuses
 * the request (`rate_limit.unavailable`).
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

const WINDOWS = [
  { name: "s", ms: 1_000, limit: (l: BudgetLimits) => l.perSecond },
  { name: "m", ms: 60_000, limit: (l: BudgetLimits) => l.perMinute },
] as const;

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
    const counted = await Promise.all(WINDOWS.map(async (w) => {
      const window = Math.floor(now / w.ms);
      const count = await this.#store.increment(`ratelimit:${w.name}:${subject}:${window}`, {
        // Outlives the window a little so a slow replica's clock never revives a counter.
        ttlMs: w.ms * 2,
      });
      const limit = w.limit(this.#limits);
      return {
        limit,
        count,
        remaining: Math.max(0, limit - count),
        resetSeconds: Math.max(1, Math.ceil(((window + 1) * w.ms - now) / 1000)),
      };
    }));
    const exceeded = counted.filter((w) => w.count > w.limit);
    // Exceeded: the window that frees last decides the wait. Otherwise the one with least room.
    const binding = exceeded.length > 0
      ? exceeded.reduce((a, b) => (b.resetSeconds > a.resetSeconds ? b : a))
      : counted.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    return {
      allowed: exceeded.length === 0,
      limit: binding.limit,
      remaining: binding.remaining,
      resetSeconds: binding.resetSeconds,
    };
  }
}
