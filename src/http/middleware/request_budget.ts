/**
 * The per-user request budget (docs/decisions.md#one-request-budget-per-user) on `/api/**` and
 * `/mcp`, placed right after step 9 so every authenticated request counts, refused ones included.
 * An API key draws from its owner's budget. `RateLimit-*` headers go on every budgeted response;
 * past the budget the answer is 429 `rate_limit.exceeded` with `Retry-After`. When the shared store
 * cannot answer, the request is refused with `rate_limit.unavailable` and `Retry-After: 1`, naming
 * neither limits nor store.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { Logger } from "../../lib/log.ts";
import type { BudgetDecision, RequestBudget } from "../../shared/mod.ts";
import type { AppEnv } from "../context.ts";

const BUDGETED = /^\/(api|mcp)(\/|$)/;

export function requestBudget(budget: RequestBudget, logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = c.get("principal");
    if (!principal || !BUDGETED.test(c.req.path)) return await next();
    let decision: BudgetDecision;
    try {
      decision = await budget.take(principal.userId);
    } catch (e) {
      logger.warn("request budget unavailable; refusing", {
        error: e instanceof Error ? e.message : String(e),
      });
      throw new AppError("rate_limit.unavailable", {}, { "Retry-After": "1" });
    }
    const headers = {
      "RateLimit-Limit": String(decision.limit),
      "RateLimit-Remaining": String(decision.remaining),
      "RateLimit-Reset": String(decision.resetSeconds),
    };
    if (!decision.allowed) {
      throw new AppError("rate_limit.exceeded", { retry_after: decision.resetSeconds }, {
        ...headers,
        "Retry-After": String(decision.resetSeconds),
      });
    }
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
