/**
 * The whole request order, in one function: what runs before any route (correlation, security
 * headers, access log, body limit), then the access steps, numbered 1 to 12
 * (docs/http.md#request-pipeline). Read top to bottom: this is the way every request takes to its
 * handler. The docs point here; they do not copy the list.
 *
 * A step that can only ever apply to some paths is registered on those paths (its own check
 * stays), and a step that is off in this configuration is not registered: the router then leaves
 * it out of every other request's chain, which is cheaper than entering it to step aside.
 */
import type { Hono } from "hono";
import { tracing } from "../lib/tracing.ts";
import type { AccessDeps } from "./access_deps.ts";
import type { AppEnv } from "./context.ts";
import { accessLog } from "./middleware/access_log.ts";
import { apiKey } from "./middleware/api_key.ts";
import { requireAuthentication } from "./middleware/authentication.ts";
import { bodyLimit } from "./middleware/body_limit.ts";
import { correlation } from "./middleware/correlation.ts";
import { compression } from "./middleware/compression.ts";
import { cors } from "./middleware/cors.ts";
import { csrf } from "./middleware/csrf.ts";
import { getOnly, SERVE_PATH } from "./middleware/get_only.ts";
import { LOGIN_PATHS, loginRateLimit } from "./middleware/login_rate_limit.ts";
import { observeRequests } from "./middleware/observe.ts";
import { passwordGate } from "./middleware/password_gate.ts";
import { PROMOTION_RECEIVERS, promotionGate } from "./middleware/promotion_gate.ts";
import { requestBudget } from "./middleware/request_budget.ts";
import { securityHeaders } from "./middleware/security_headers.ts";
import { session } from "./middleware/session.ts";
import { TOOL_PATH, toolOrigin } from "./middleware/tool_origin.ts";
import { workspaceResolution } from "./middleware/workspace.ts";

export function installPipeline(app: Hono<AppEnv>, deps: AccessDeps): void {
  const { settings } = deps;
  // Outermost of all when on, so its time and count include every refusal and error.
  if (deps.metrics || tracing) app.use(observeRequests(deps.metrics)); // metrics, request span
  // Outermost, so every answer (refusals and errors included) carries the correlation id and the
  // security headers, and is logged.
  app.use(correlation(settings.http.trustedProxies)); //            SVC-Correlation-Id, client address
  app.use(securityHeaders(settings.baseUrl)); //               security headers
  app.use(compression()); //                                      pages and documents, br or gzip
  if (deps.logger.enabled("debug")) app.use(accessLog(deps.logger)); // a line per request
  app.use(bodyLimit(settings.http.maxBodyBytes)); //                413 request.body_too_large

  // Without a base-url, same-origin only: no CORS headers, so no step.
  if (settings.baseUrl) app.use(cors(settings.baseUrl)); // 1. CORS
  app.use(TOOL_PATH, toolOrigin(settings.baseUrl, settings.http.host)); // Origin, Host of /mcp
  app.use(SERVE_PATH, getOnly()); //                               /api/x: GET only, else 405
  app.use(csrf()); //                                          2. CSRF
  const gate = promotionGate(deps);
  for (const path of PROMOTION_RECEIVERS) app.use(path, gate); // 3. promotion key gate
  const limit = loginRateLimit(deps.loginLimiter);
  for (const path of LOGIN_PATHS) app.use(path, limit); //     4. login rate limit
  app.use(apiKey(deps)); //                                    5. API key filter
  app.use(session(deps)); //                                   6. session filter
  app.use(workspaceResolution(deps)); //                       7. workspace resolution
  //                                                           8. OIDC: routes/oidc.ts, registered
  //                                                              only with a configured provider
  app.use(requireAuthentication()); //                         9. authorization (public allowlist)
  app.use(requestBudget(deps.budget, deps.logger)); //            per-user budget, so
  //                                                              refused requests count too
  app.use(passwordGate()); //                                 10. forced password change gate
  //                                                          11. scope and role: each route's own
  //                                                              middleware (routing.ts →
  //                                                              middleware/scope_role.ts), so
  //                                                              Hono's match is the only one
} //                                                          12. the route's handler (routing.ts)
