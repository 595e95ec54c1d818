/**
 * CORS (docs/http.md): one allowed origin, the configured base-url's; unset means same-origin only,
 * so no CORS headers are ever sent.
 */
import type { MiddlewareHandler } from "hono";
import { cors as honoCors } from "hono/cors";
import type { AppEnv } from "../context.ts";

export const CORS_ALLOWED_HEADERS = [
  "Authorization",
  "SVC-API-Key",
  "SVC-Correlation-Id",
  "SVC-CSRF-Token",
  "SVC-Result-TTL-Seconds",
  "Content-Type",
  "Idempotency-Key",
];

/**
 * Installed only with a base-url (pipeline.ts): unset, no CORS headers are ever sent. Hono's step
 * answers every OPTIONS 204 itself; only a preflight (`Origin` and `Access-Control-Request-Method`)
 * from the allowed origin is CORS's to answer, and any other OPTIONS goes on to the path's own
 * method rules (`/api/x` refuses it with 405, docs/decisions.md#head-is-refused-under-apix).
 */
export function cors(baseUrl: string): MiddlewareHandler<AppEnv> {
  const allowed = new URL(baseUrl).origin;
  const step = corsStep(allowed);
  return (c, next) => {
    const preflight = c.req.method === "OPTIONS" && c.req.header("origin") === allowed &&
      c.req.header("access-control-request-method") !== undefined;
    if (c.req.method === "OPTIONS" && !preflight) return next();
    return step(c, next);
  };
}

function corsStep(allowed: string): MiddlewareHandler<AppEnv> {
  return honoCors({
    origin: (origin) => (origin === allowed ? origin : null),
    allowMethods: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
    allowHeaders: CORS_ALLOWED_HEADERS,
    exposeHeaders: [
      "SVC-Correlation-Id",
      "SVC-Execution-Id",
      "Retry-After",
      "RateLimit-Limit",
      "RateLimit-Remaining",
      "RateLimit-Reset",
    ],
    credentials: true,
    maxAge: 600,
  });
}
