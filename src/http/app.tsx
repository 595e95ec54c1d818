/**
 * The HTTP front end: Hono over Deno.serve. Correlation, security headers and the body cap are
 * outermost so every answer, errors included, carries them; then the access pipeline of spec 1
 * §5.8 (pipeline.ts), then the routes.
 */
import { Hono } from "hono";
import type { ResolvedConfig } from "../config/mod.ts";
import { AppError } from "../errors/mod.ts";
import type { BuildInfo, HealthService } from "../health/mod.ts";
import type { Logger } from "../lib/log.ts";
import { renderPage } from "../../ui/render.tsx";
import { ErrorPage } from "../../ui/pages/error.tsx";
import type { AppContext } from "./context.ts";
import { NotFoundPage } from "../../ui/pages/not_found.tsx";
import type { AccessDeps } from "./access_deps.ts";
import type { AppEnv } from "./context.ts";
import { errorResponse } from "./envelope.ts";
import { accessLog } from "./middleware/access_log.ts";
import { bodyLimit } from "./middleware/body_limit.ts";
import { correlation } from "./middleware/correlation.ts";
import { securityHeaders } from "./middleware/security_headers.ts";
import { installAccessPipeline } from "./pipeline.ts";
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
  access: Omit<AccessDeps, "router">;
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
  const router = new Router(app);

  app.use(correlation(config.auth.trustedProxies));
  app.use(securityHeaders(config.auth.baseUrl));
  app.use(accessLog(logger));
  app.use(bodyLimit(config.http.maxBodyBytes));
  installAccessPipeline(app, { ...deps.access, router });

  platformRoutes(router, deps);
  pageRoutes(router, { version: deps.buildInfo.version });
  for (const add of deps.routes ?? []) add(router);
  extend?.(router);

  app.notFound((c) => {
    const allowed = router.allowedMethods(c.req.path);
    if (allowed.length > 0) {
      if (c.req.method === "OPTIONS") return c.body(null, 204, { Allow: allowed.join(", ") });
      const error = new AppError(
        "request.method_not_allowed",
        { method: c.req.method, path: c.req.path, allowed },
        { Allow: allowed.join(", ") },
      );
      return errorResponse(c, error, deps.baseUrl());
    }
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
      if (wantsPage(c)) return errorPage(c, err);
      return errorResponse(c, err, deps.baseUrl());
    }
    logger.error("unexpected error", {
      method: c.req.method,
      path: c.req.path,
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    const unexpected = new AppError("internal.unexpected");
    return wantsPage(c) ? errorPage(c, unexpected) : errorResponse(c, unexpected, deps.baseUrl());
  });

  return { app, router };
}

/**
 * A browser navigating to a page: a GET outside the API, the tool endpoint and the partials (whose
 * callers read the envelope), not sent by htmx, accepting HTML.
 */
function wantsPage(c: AppContext): boolean {
  return c.req.method === "GET" && !/^\/(api|mcp|partials)(\/|$)/.test(c.req.path) &&
    c.req.header("hx-request") !== "true" && (c.req.header("accept") ?? "").includes("text/html");
}

/** The error as a page: the envelope's user message, code and correlation id. */
function errorPage(c: AppContext, error: AppError): Response {
  for (const [k, v] of Object.entries(error.headers ?? {})) c.header(k, v);
  const page = (
    <ErrorPage
      status={error.status}
      code={error.code}
      userMessage={error.userMessage}
      correlationId={c.get("correlationId")}
    />
  );
  // deno-lint-ignore no-explicit-any
  return c.html(renderPage(page), error.status as any);
}
