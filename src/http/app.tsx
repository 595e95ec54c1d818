/**
 * The HTTP front end: Hono over Deno.serve. The request order is pipeline.ts; then the routes, then
 * the answers for a path's other methods (405), unknown paths (404) and errors.
 */
import { Hono } from "hono";
import type { ResolvedConfig } from "../config/mod.ts";
import { AppError } from "../errors/mod.ts";
import type { BuildInfo, HealthService } from "../health/mod.ts";
import type { Logger } from "../lib/log.ts";
import { renderPage } from "../../ui/render.tsx";
import { NotFoundPage } from "../../ui/pages/not_found.tsx";
import type { AccessDeps } from "./access_deps.ts";
import type { AppEnv } from "./context.ts";
import { errorResponse } from "./envelope.ts";
import { routeAccess } from "./middleware/scope_role.ts";
import { installPipeline } from "./pipeline.ts";
import { pageRoutes } from "./routes/pages.tsx";
import { platformRoutes } from "./routes/platform.ts";
import { Router } from "./routing.ts";

export interface AppDeps {
  config: ResolvedConfig;
  logger: Logger;
  health: HealthService;
  buildInfo: BuildInfo;
  /** The external origin for links; known once the server has bound its port. */
  baseUrl: () => string;
  /** What the access steps of the pipeline need (the router is added here). */
  access: AccessDeps;
  /** Route modules beyond the platform ones, each given the router. */
  routes?: ((router: Router) => void)[];
}

/** Builds the application; `extend` lets tests and later domains add routes through the Router. */
export function buildApp(
  deps: AppDeps,
  extend?: (router: Router) => void,
): { app: Hono<AppEnv>; router: Router } {
  const { config, logger } = deps;
  const app = new Hono<AppEnv>();
  const router = new Router(app, {
    guard: (spec) => routeAccess(spec, deps.access),
    paging: config.paging,
  });

  installPipeline(app, deps.access);

  platformRoutes(router, deps);
  pageRoutes(router, { version: deps.buildInfo.version });
  for (const add of deps.routes ?? []) add(router);
  extend?.(router);

  router.answerOtherMethods((c, allowed) => {
    if (c.req.method === "OPTIONS") return c.body(null, 204, { Allow: allowed.join(", ") });
    const error = new AppError(
      "request.method_not_allowed",
      { method: c.req.method, path: c.req.path, allowed },
      { Allow: allowed.join(", ") },
    );
    return errorResponse(c, error, deps.baseUrl());
  });
  app.notFound((c) => {
    const isApi = /^\/(api|mcp)(\/|$)/.test(c.req.path);
    if (!isApi && c.req.header("accept")?.includes("text/html")) {
      return c.html(renderPage(<NotFoundPage path={c.req.path} />), 404);
    }
    return errorResponse(
      c,
      new AppError("request.not_found", { method: c.req.method, path: c.req.path }),
      deps.baseUrl(),
    );
  });

  app.onError((err, c) => {
    if (err instanceof AppError) {
      if (err.status >= 500) logger.error(err.message, { code: err.code, details: err.details });
      return errorResponse(c, err, deps.baseUrl());
    }
    logger.error("unexpected error", {
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return errorResponse(c, new AppError("internal.unexpected"), deps.baseUrl());
  });

  return { app, router };
}
