/**
 * `/api/x` answers GET only (docs/decisions.md#head-is-refused-under-apix): any other method is 405
 * with `Allow: GET` and the error envelope, before a credential is read, whatever the path below
 * it. The step sits right after CORS, which answers a preflight from the configured origin itself
 * (cors.ts) and lets every other OPTIONS through to here.
 *
 * HEAD is 405 too. Elsewhere HEAD is served as GET (Hono runs the GET route and drops the body),
 * but here that GET is a whole pipeline run whose answer would be thrown away.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { AppEnv } from "../context.ts";

/** The served prefix; Hono's `/*` also matches the prefix itself. */
export const SERVE_PATH = "/api/x/*";

export function getOnly(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method === "GET") return await next();
    throw new AppError(
      "request.method_not_allowed",
      { method: c.req.method, path: c.req.path.slice(0, 300), allowed: ["GET"] },
      { Allow: "GET" },
    );
  };
}
