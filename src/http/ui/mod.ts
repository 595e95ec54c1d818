/**
 * The browser UI's pages (spec 1 §4.1): handlers over the same domain services REST calls, with
 * views from `ui/`. Mutating partials live beside the REST routes they mirror.
 */
import type { Services } from "../../services.ts";
import { secureCookies } from "../cookies.ts";
import type { Router } from "../routing.ts";
import { dashboardRoutes } from "./dashboard.tsx";
import { pipelinePageRoutes } from "./pipelines.tsx";
import { runPageRoutes } from "./runs.tsx";
import type { UiPageDeps } from "./shell.ts";

export type { UiPageDeps } from "./shell.ts";

/** The UI's share of the one `Services` value (app.tsx registers every resource this way). */
export function registerRoutes(router: Router, services: Services): void {
  uiRoutes(router, { ...services, secureCookies: secureCookies(services.config.auth.baseUrl) });
}

export function uiRoutes(router: Router, deps: UiPageDeps): void {
  dashboardRoutes(router, deps);
  pipelinePageRoutes(router, deps);
  runPageRoutes(router, deps);
}
