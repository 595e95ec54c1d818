/**
 * Step 4, the login rate limit (docs/access.md#local-accounts): per client address, fixed
 * one-minute window, per instance. At most 10,000 clients are tracked; past that new clients are
 * admitted unmetered and each such admission counts `service.auth.login_rate_limit.saturated`.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { AppEnv } from "../context.ts";

export class LoginRateLimiter {
  readonly #limit: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  #window = -1;
  #counts = new Map<string, number>();
  /** `service.auth.login_rate_limit.saturated`. */
  saturated = 0;

  constructor(limitPerMinute: number, options: { maxClients?: number; now?: () => number } = {}) {
    this.#limit = limitPerMinute;
    this.#maxClients = options.maxClients ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Counts one attempt; returns seconds to wait when over the limit, else 0. */
  hit(client: string): number {
    const now = this.#now();
    const window = Math.floor(now / 60_000);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts = new Map();
    }
    const count = this.#counts.get(client);
    if (count === undefined && this.#counts.size >= this.#maxClients) {
      this.saturated++;
      return 0;
    }
    const next = (count ?? 0) + 1;
    this.#counts.set(client, next);
    return next > this.#limit ? Math.ceil(((window + 1) * 60_000 - now) / 1000) : 0;
  }
}

/**
 * Where the pipeline registers the limit (a Hono `/x/*` also matches `/x`); the step's own test
 * below decides, as before.
 */
export const LOGIN_PATHS = ["/login/*", "/oauth2/*"];

export function loginRateLimit(limiter: LoginRateLimiter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const path = c.req.path;
    if (path !== "/login" && !path.startsWith("/login/") && !path.startsWith("/oauth2/")) {
      return await next();
    }
    const wait = limiter.hit(c.get("clientIp") ?? "unknown");
    if (wait > 0) {
      throw new AppError("rate_limit.exceeded", { retry_after: wait }, {
        "Retry-After": String(wait),
      });
    }
    await next();
  };
}
