/**
 * The whole request order, in one function: what runs before any route (correlation, security
 * headers, access log, body limit), then spec 1 §5.8, numbered as the spec numbers it. Read top to
 * bottom: this is the way every request takes to its handler. Documents point here; they do not
 * copy the list.
 */
import type { Hono } from "hono";
import type { AccessDeps } from "./access_deps.ts";
import type { AppEnv } from "./context.ts";
import { accessLog } from "./middleware/access_log.ts";
import { apiKey } from "./middleware/api_key.ts";
import { requireAuthentication } from "./middleware/authentication.ts";
import { bodyLimit } from "./middleware/body_limit.ts";
import { correlation } from "./middleware/correlation.ts";
import { cors } from "./middleware/cors.ts";
import { csrf } from "./middleware/csrf.ts";
import { loginRateLimit } from "./middleware/login_rate_limit.ts";
import { passwordGate } from "./middleware/password_gate.ts";
import { promotionGate } from "./middleware/promotion_gate.ts";
import { requestBudget } from "./middleware/request_budget.ts";
import { securityHeaders } from "./middleware/security_headers.ts";
import { session } from "./middleware/session.ts";
import { toolOrigin } from "./middleware/tool_origin.ts";
import { workspaceResolution } from "./middleware/workspace.ts";

export function installPipeline(app: Hono<AppEnv>, deps: AccessDeps): void {
  const { config } = deps;
  // Outermost, so every answer (refusals and errors included) carries the correlation id and the
  // security headers (§5.8: written before the filter chain continues), and is logged.
  app.use(correlation(config.auth.trustedProxies)); //            SVC-Correlation-Id, client address
  app.use(securityHeaders(config.auth.baseUrl)); //               security headers
  app.use(accessLog(deps.logger)); //                             one debug line per request
  app.use(bodyLimit(config.http.maxBodyBytes)); //                413 request.body_too_large

  app.use(cors(config.auth.baseUrl)); //                       1. CORS
  app.use(toolOrigin(config.auth.baseUrl, config.http.host)); //    Origin and Host of /mcp
  app.use(csrf()); //                                          2. CSRF
  app.use(promotionGate(deps)); //                             3. promotion key gate
  app.use(loginRateLimit(deps.loginLimiter)); //               4. login rate limit
  app.use(apiKey(deps)); //                                    5. API key filter
  app.use(session(deps)); //                                   6. session filter
  app.use(workspaceResolution(deps)); //                       7. workspace resolution
  //                                                           8. OIDC: routes/oidc.ts, registered
  //                                                              only with a configured provider
  app.use(requireAuthentication()); //                         9. authorization (public allowlist)
  app.use(requestBudget(deps.budget, deps.logger)); //            per-user budget (spec 2 §8), so
  //                                                              refused requests count too
  app.use(passwordGate()); //                                 10. forced password change gate
  //                                                          11. scope and role: each route's own
  //                                                              middleware (routing.ts →
  //                                                              middleware/scope_role.ts), so
  //                                                              Hono's match is the only one
} //                                                          12. the route's handler (routing.ts)
