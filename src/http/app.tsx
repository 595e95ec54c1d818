/**
 * The HTTP front end: Hono over Deno.serve. The request order is pipeline.ts; then every resource
 * registers its routes over the one `Services` value, then come the answers for a path's other
 * methods (405), unknown paths (404) and errors.
 */
import { Hono } from "hono";
import { AppError, toAppError } from "../errors/mod.ts";
import type { Services } from "../services.ts";
import { renderPage } from "../../ui/render.tsx";
import { ErrorPage } from "../../ui/pages/error.tsx";
import type { AppContext } from "./context.ts";
import { NotFoundPage } from "../../ui/pages/not_found.tsx";
import type { AppEnv } from "./context.ts";
import { secureCookies } from "./cookies.ts";
import { errorResponse } from "./envelope.ts";
import { LoginRateLimiter } from "./middleware/login_rate_limit.ts";
import { routeAccess } from "./middleware/scope_role.ts";
import type { AccessDeps } from "./access_deps.ts";
import { installPipeline } from "./pipeline.ts";
import * as apiKeys from "./routes/api_keys.ts";
import * as authPages from "./routes/auth_pages.tsx";
import * as datasources from "./routes/datasources.ts";
import * as endpoints from "./routes/endpoints.ts";
import * as executions from "./routes/executions.ts";
import * as identityApi from "./routes/identity_api.ts";
import * as lakeTables from "./routes/lake_tables.ts";
import * as metrics from "./routes/metrics.ts";
import * as oidc from "./routes/oidc.ts";
import * as pages from "./routes/pages.tsx";
import * as pipelines from "./routes/pipelines.ts";
import * as platform from "./routes/platform.ts";
import * as promotion from "./routes/promotion.ts";
import * as site from "./routes/site.tsx";
import * as templates from "./routes/templates.ts";
import * as ui from "./ui/mod.ts";
import * as workspaces from "./routes/workspaces.ts";
import { Router } from "./routing.ts";
import { errorFrame } from "./ui/shell.ts";
import type { ShellContext } from "../../ui/layouts/shell.tsx";
import { mountToolEndpoint, type ToolEndpoint, toolEndpointChallenge } from "./tool_endpoint.ts";

/** Every resource's routes; registration order is the order Hono tries them. */
const RESOURCES = [
  platform,
  metrics,
  pages,
  site,
  authPages,
  oidc,
  identityApi,
  apiKeys,
  workspaces,
  templates,
  datasources,
  lakeTables,
  executions,
  pipelines,
  endpoints,
  promotion,
  ui,
];

/**
 * Builds the application; `extend` lets tests add routes through the Router; `tools` is the tool
 * endpoint mounted at `/mcp` (src/mcp, handed in by src/runtime.ts: front ends do not import
 * each other). Without it `/mcp` answers 404 like any unknown path. `checkResponses` (tests)
 * checks every success answer against its route's declaration.
 */
export function buildApp(
  services: Services,
  extend?: (router: Router) => void,
  tools?: ToolEndpoint,
  options: { checkResponses?: boolean } = {},
): { app: Hono<AppEnv>; router: Router } {
  const { platform, identity, settings } = services;
  const { logger } = platform;
  const app = new Hono<AppEnv>();
  const cookies = { secureCookies: secureCookies(settings.baseUrl) };
  const access: AccessDeps = {
    ...identity,
    ...platform,
    ...cookies,
    settings,
    loginLimiter: new LoginRateLimiter(settings.http.loginPerMinute),
    promotionKeys: services.publishing.promotionKeys,
  };
  const frame = (c: AppContext) => errorFrame(c, { ...services, ...cookies });
  const router = new Router(app, {
    guard: (spec) => routeAccess(spec, access),
    paging: settings.paging,
    checkResponses: options.checkResponses,
  });

  installPipeline(app, access);
  for (const resource of RESOURCES) resource.registerRoutes(router, services);
  if (tools) mountToolEndpoint(app, router, tools, services.platform.origin);
  extend?.(router);

  router.answerOtherMethods((c, allowed) => {
    if (c.req.method === "OPTIONS") return c.body(null, 204, { Allow: allowed.join(", ") });
    const error = new AppError(
      "request.method_not_allowed",
      { method: c.req.method, path: c.req.path, allowed },
      { Allow: allowed.join(", ") },
    );
    return errorResponse(c, error, services.platform.origin());
  });
  app.notFound(async (c) => {
    const isApi = /^\/(api|mcp)(\/|$)/.test(c.req.path);
    if (!isApi && c.req.header("accept")?.includes("text/html")) {
      return c.html(renderPage(<NotFoundPage path={c.req.path} ctx={await frame(c)} />), 404);
    }
    return errorResponse(
      c,
      new AppError("request.not_found", { method: c.req.method, path: c.req.path }),
      services.platform.origin(),
    );
  });

  app.onError(async (err, c) => {
    const thrown = toAppError(err);
    const error = c.req.path === "/mcp" ? toolEndpointChallenge(thrown) : thrown;
    if (error.code === "internal.unexpected" && thrown !== err) {
      logger.error("unexpected error", {
        method: c.req.method,
        path: c.req.path,
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
    } else if (error.status >= 500) {
      logger.error(error.message, { code: error.code, details: error.details });
    }
    if (wantsPage(c)) return errorPage(c, error, await frame(c));
    return errorResponse(c, error, services.platform.origin());
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
function errorPage(c: AppContext, error: AppError, ctx: ShellContext | undefined): Response {
  for (const [k, v] of Object.entries(error.headers ?? {})) c.header(k, v);
  const page = (
    <ErrorPage
      status={error.status}
      code={error.code}
      userMessage={error.userMessage}
      correlationId={c.get("correlationId")}
      ctx={ctx}
    />
  );
  // deno-lint-ignore no-explicit-any
  return c.html(renderPage(page), error.status as any);
}
