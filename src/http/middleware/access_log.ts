/**
 * One debug line per request; 5xx answers are logged at error by the error handler instead.
 * Installed only when the logger writes debug lines (pipeline.ts).
 */
import type { MiddlewareHandler } from "hono";
import type { Logger } from "../../lib/log.ts";
import type { AppEnv } from "../context.ts";

export function accessLog(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    logger.debug("request", {
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
    });
  };
}
