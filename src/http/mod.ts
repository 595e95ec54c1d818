/** The HTTP front end. */
export { buildApp } from "./app.tsx";
export type { AppContext, AppEnv } from "./context.ts";
export { errorResponse, ok, paged, pagedData, successEnvelope } from "./envelope.ts";
export { readJson, validate } from "./input.ts";
export { Router, type RouteSpec } from "./routing.ts";
export { type RunningServer, startServer } from "./server.ts";
export { secureCookies } from "./cookies.ts";
export { LoginRateLimiter } from "./middleware/login_rate_limit.ts";
