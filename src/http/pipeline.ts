/**
 * The request pipeline of spec 1 §5.8, in order, one middleware per step. Read top to bottom: this
 * is the order every request takes before its handler.
 */
import type { Hono } from "hono";
import type { AccessDeps } from "./access_deps.ts";
import type { AppEnv } from "./context.ts";
import { apiKey } from "./middleware/api_key.ts";
import { requireAuthentication } from "./middleware/authentication.ts";
import { cors } from "./middleware/cors.ts";
import { csrf } from "./middleware/csrf.ts";
import { loginRateLimit } from "./middleware/login_rate_limit.ts";
import { passwordGate } from "./middleware/password_gate.ts";
import { promotionGate } from "./middleware/promotion_gate.ts";
import { requestBudget } from "./middleware/request_budget.ts";
import { scopeAndRole } from "./middleware/scope_role.ts";
import { session } from "./middleware/session.ts";
import { workspaceResolution } from "./middleware/workspace.ts";

export function installAccessPipeline(app: Hono<AppEnv>, deps: AccessDeps): void {
  app.use(cors(deps.config.auth.baseUrl)); //                 1. CORS
  app.use(csrf()); //                                          2. CSRF
  app.use(promotionGate(deps)); //                             3. promotion key gate
  app.use(loginRateLimit(deps.loginLimiter)); //               4. login rate limit
  app.use(apiKey(deps)); //                                    5. API key filter
  app.use(session(deps)); //                                   6. session filter
  app.use(workspaceResolution(deps)); //                       7. workspace resolution
  //                                                           8. OIDC: routes/oidc.ts, registered
  //                                                              only with a configured provider
  app.use(requireAuthentication()); //                         9. authorization (public allowlist)
  app.use(requestBudget(deps.budget, deps.logger)); //            per-user budget (spec 2 §8)
  app.use(passwordGate()); //                                 10. forced password change gate
  app.use(scopeAndRole(deps)); //                             11. scope and role check
} //                                                          12. the route's handler
