/**
 * Every domain's routes, in registration order, over the services the runtime built. The runtime
 * owns the object graph; this file only says which service each route module talks to.
 */
import type { ResolvedConfig } from "../config/mod.ts";
import type { DatasourceConnections, DatasourceService, PoolManager } from "../datasources/mod.ts";
import type { ExecutionService } from "../executions/mod.ts";
import type {
  ApiKeyService,
  LocalAccounts,
  LocalUserAdmin,
  OidcLogin,
  SessionTokens,
  UserService,
} from "../identity/mod.ts";
import type { MailService } from "../mail/mod.ts";
import type { PipelineService } from "../pipelines/mod.ts";
import type { Db } from "../store/mod.ts";
import type { TemplateService } from "../templates/mod.ts";
import type { WorkspaceService } from "../workspaces/mod.ts";
import type { CachedAccessDirectory } from "./access_directory.ts";
import { adminUserRoutes } from "./routes/admin_users.tsx";
import { apiKeyRoutes } from "./routes/api_keys.ts";
import { authPageRoutes } from "./routes/auth_pages.tsx";
import { datasourceRoutes } from "./routes/datasources.ts";
import { executionRoutes } from "./routes/executions.ts";
import { identityApiRoutes } from "./routes/identity_api.ts";
import { lakeTableRoutes } from "./routes/lake_tables.ts";
import { oidcRoutes } from "./routes/oidc.ts";
import { pipelineRoutes } from "./routes/pipelines.ts";
import { templateRoutes } from "./routes/templates.ts";
import { uiRoutes } from "./ui/mod.ts";
import { workspaceRoutes } from "./routes/workspaces.ts";
import type { Router } from "./routing.ts";

export interface AppRouteDeps {
  config: ResolvedConfig;
  db: Db;
  local: LocalAccounts;
  sessions: SessionTokens;
  directory: CachedAccessDirectory;
  secureCookies: boolean;
  /** Where a local sign-in lands (the workspace name), invitations materialised first. */
  signInLanding: Parameters<typeof authPageRoutes>[1]["landing"];
  workspaces: WorkspaceService;
  oidc?: OidcLogin;
  users: UserService;
  admin: LocalUserAdmin;
  mail: MailService;
  keys: ApiKeyService;
  templates: TemplateService;
  datasources: DatasourceService;
  connections: DatasourceConnections;
  pools: PoolManager;
  executions: ExecutionService;
  pipelines: PipelineService;
  /** The external origin, known once the listener has bound. */
  origin: () => string;
}

export function appRoutes(d: AppRouteDeps): ((router: Router) => void)[] {
  const { config, db, directory, sessions, secureCookies } = d;
  return [
    (r) =>
      authPageRoutes(r, {
        db,
        local: d.local,
        localEnabled: config.auth.local.enabled,
        providers: config.auth.oidc.providers.map((p) => ({
          name: p.name,
          label: p.displayName ?? p.name,
        })),
        sessions,
        directory,
        secureCookies,
        landing: d.signInLanding,
      }),
    (r) => {
      if (d.oidc) oidcRoutes(r, { db, sessions, secureCookies, oidc: d.oidc });
    },
    (r) => identityApiRoutes(r, { db, config, users: d.users, directory }),
    (r) => adminUserRoutes(r, { admin: d.admin, mail: d.mail, directory }),
    (r) => apiKeyRoutes(r, { keys: d.keys, workspaces: d.workspaces, directory }),
    (r) => workspaceRoutes(r, { workspaces: d.workspaces, directory }),
    (r) => templateRoutes(r, { templates: d.templates, config }),
    (r) =>
      datasourceRoutes(r, {
        datasources: d.datasources,
        connections: d.connections,
        directory,
        paging: config.paging,
      }),
    (r) =>
      lakeTableRoutes(r, {
        db,
        datasource: async (c, name) => {
          const found = await d.datasources.record(c.get("principal")!, c.get("workspace"), name);
          return { ...found, global: found.is_global };
        },
        // The registry changed what the lake serves: rebuild its views here and elsewhere.
        onChange: (changed) => d.pools.publishRetire(changed.name),
      }),
    (r) => executionRoutes(r, { executions: d.executions, config, baseUrl: d.origin }),
    (r) => pipelineRoutes(r, { pipelines: d.pipelines, config }),
    (r) =>
      uiRoutes(r, {
        users: d.users,
        workspaces: d.workspaces,
        pipelines: d.pipelines,
        executions: d.executions,
        templates: d.templates,
        datasources: d.datasources,
        connections: d.connections,
        secureCookies,
      }),
  ];
}
