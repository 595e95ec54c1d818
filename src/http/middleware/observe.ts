/**
 * Outermost step when metrics or traces are on (pipeline.ts): times every answer, refusals and
 * errors included, and counts it by method, route and status; names the request's span after its
 * route and gives it the correlation id. The route is the pattern the request matched, never its
 * path, so label values stay as few as the routes are (`unmatched` for a 404 of no route).
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { activeSpan, CORRELATION_ATTRIBUTE } from "../../lib/tracing.ts";
import type { Metrics } from "../../telemetry/mod.ts";
import type { AppEnv } from "../context.ts";

/** Middleware registered for every path (`app.use(fn)`), which say nothing of the route. */
const anyPath = (path: string) => path === "*" || path === "/*";

/**
 * The pattern of the route that answered (`/api/v1/pipelines/:id`). A request refused by a step
 * before its route (401, 429) is counted under the route it was on its way to.
 */
export function routeFamily(c: Context): string {
  const routes = matchedRoutes(c);
  const answered = routes[c.req.routeIndex];
  if (answered && !anyPath(answered.path)) return answered.path;
  for (let i = c.req.routeIndex + 1; i < routes.length; i++) {
    if (!anyPath(routes[i].path)) return routes[i].path;
  }
  return "unmatched";
}

export function observeRequests(
  metrics: Pick<Metrics, "request"> | undefined,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const began = performance.now();
    await next();
    const route = routeFamily(c);
    metrics?.request(c.req.method, route, c.res.status, (performance.now() - began) / 1000);
    // Deno's own server span (its listener makes one per request when traces are exported).
    const span = activeSpan();
    if (span) {
      span.updateName(`${c.req.method} ${route}`);
      span.setAttribute("http.route", route);
      const id = c.get("correlationId");
      if (id) span.setAttribute(CORRELATION_ATTRIBUTE, id);
    }
  };
}
