/**
 * The browser UI's pages (docs/ui.md): handlers over the same domain services REST calls, with
 * views from `ui/`. Mutating partials live beside the REST routes they mirror.
 */
import type { Services } from "../../services.ts";
import { secureCookies } from "../cookies.ts";
import type { Router } from "../routing.ts";
import { auditPageRoutes } from "./audit.tsx";
import { apiKeyPageRoutes } from "./api_keys.tsx";
import { adminWorkspaceRoutes } from "./admin_workspaces.tsx";
import { dashboardRoutes } from "./dashboard.tsx";
import { datasourceFormRoutes } from "./datasource_forms.tsx";
import { datasourcePageRoutes } from "./datasources.tsx";
import { endpointActRoutes } from "./endpoint_acts.tsx";
import { endpointPageRoutes } from "./endpoints.tsx";
import { localAccountRoutes } from "./local_accounts.tsx";
import { pipelineAuthoringRoutes } from "./pipeline_authoring.tsx";
import { pipelinePageRoutes } from "./pipelines.tsx";
import { promotionPageRoutes } from "./promotion.tsx";
import { runNodeRoutes } from "./run_nodes.tsx";
import { runPageRoutes } from "./runs.tsx";
import { templateAuthoringRoutes } from "./template_authoring.tsx";
import { templatePageRoutes } from "./templates.tsx";
import type { UiPageDeps } from "./shell.ts";
import { userPageRoutes } from "./users.tsx";
import { workspacePageRoutes } from "./workspace_admin.tsx";

export type { UiPageDeps } from "./shell.ts";

/** The UI's share of the one `Services` value (app.tsx registers every resource this way). */
export function registerRoutes(router: Router, services: Services): void {
  uiRoutes(router, { ...services, secureCookies: secureCookies(services.settings.baseUrl) });
}

export function uiRoutes(router: Router, deps: UiPageDeps): void {
  dashboardRoutes(router, deps);
  pipelineAuthoringRoutes(router, deps);
  pipelinePageRoutes(router, deps);
  promotionPageRoutes(router, deps);
  runPageRoutes(router, deps);
  runNodeRoutes(router, deps);
  // Before the template pages: /templates/new and /templates/edit are literal paths.
  templateAuthoringRoutes(router, deps);
  templatePageRoutes(router, deps);
  // Before the datasource pages: /datasources/new is a literal path.
  datasourceFormRoutes(router, deps);
  datasourcePageRoutes(router, deps);
  endpointPageRoutes(router, deps);
  endpointActRoutes(router, deps);
  auditPageRoutes(router, deps);
  apiKeyPageRoutes(router, deps);
  // Before the user pages: /admin/users/new is a literal path.
  localAccountRoutes(router, deps);
  userPageRoutes(router, deps);
  workspacePageRoutes(router, deps);
  adminWorkspaceRoutes(router, deps);
}
