/**
 * The object graph of a running instance, built in one place: config → secrets → store → migrate
 * → system actor → shared store → health → app. `main.ts` serves it; `tests/harness.ts` builds the
 * very same graph.
 */
import type { Hono } from "hono";
import {
  type BootstrapDatasource,
  type ResolvedConfig,
  resolveSecrets,
  type Secrets,
  StartupError,
} from "./config/mod.ts";
import {
  EndpointServer,
  EndpointService,
  LiveEndpoints,
  ReleasedVersions,
} from "./endpoints/mod.ts";
import {
  type ExecutionHousekeeping,
  type ExecutionService,
  type ExecutorPort,
  openExecutions,
  probeStagingEngine,
  type ResultStore,
} from "./executions/mod.ts";
import { type BuildInfo, HealthService, readBuildInfo } from "./health/mod.ts";
import {
  type AppEnv,
  appRoutes,
  buildApp,
  CachedAccessDirectory,
  LoginRateLimiter,
  type Router,
  secureCookies,
} from "./http/mod.ts";
import {
  ApiKeyService,
  ensureSystemActor,
  LocalAccounts,
  LocalUserAdmin,
  type NewUserNotice,
  OidcClients,
  OidcLogin,
  SessionTokens,
  type SystemActor,
  UserService,
} from "./identity/mod.ts";
import { createMailService, type MailService } from "./mail/mod.ts";
import { TemplateService } from "./templates/mod.ts";
import { PipelineService } from "./pipelines/mod.ts";
import {
  joinAtCreation,
  type LandingUser,
  materialiseInvitations,
  WorkspaceService,
} from "./workspaces/mod.ts";
import {
  BootstrapFileError,
  CredentialCipher,
  DatasourceConnections,
  DatasourceService,
  LakeConnector,
  lakeTablesOf,
  PoolManager,
} from "./datasources/mod.ts";
import type { Logger } from "./lib/log.ts";
import { openSharedStore, RequestBudget, type SharedStore } from "./shared/mod.ts";
import { type Db, migrate, openDb } from "./store/mod.ts";
import { seedAccounts, seedBootstrapPlaceholder, seedDemo } from "./startup_seeds.ts";

export interface Runtime {
  config: ResolvedConfig;
  secrets: Secrets;
  logger: Logger;
  db: Db;
  shared: SharedStore;
  health: HealthService;
  buildInfo: BuildInfo;
  systemActor: SystemActor;
  app: Hono<AppEnv>;
  /** Every registered route and its declared operation. */
  router: Router;
  sessions: SessionTokens;
  keys: ApiKeyService;
  users: UserService;
  local: LocalAccounts;
  workspaces: WorkspaceService;
  templates: TemplateService;
  datasources: DatasourceService;
  /** One pool per datasource on this instance; retired on every change, here and elsewhere. */
  pools: PoolManager;
  connections: DatasourceConnections;
  pipelines: PipelineService;
  directory: CachedAccessDirectory;
  loginLimiter: LoginRateLimiter;
  /** OIDC login; absent when no provider is configured. */
  oidc?: OidcLogin;
  /** The bootstrap datasource file's entries, kept for the datasource import (a later issue). */
  bootstrapDatasources: BootstrapDatasource[];
  /** Execution history, replay, cancel, results; runs through the executor when one is wired. */
  executions: ExecutionService;
  /** Heartbeat, reaper and event retention of executions. */
  housekeeping: ExecutionHousekeeping;
  results: ResultStore;
  /** Mail notices; `newUser` is the hook a first social login calls. */
  mail: MailService;
  /** Published endpoints: management, and serving `/api/x` over the shared matcher. */
  endpoints: EndpointService;
  endpointServer: EndpointServer;
  liveEndpoints: LiveEndpoints;
  /** The quick start's generated admin credential, to print once on the terminal (never logged). */
  quickStartCredential?: { email: string; password: string };
  /** Tells the app its external origin once the listener has bound (port 0 picks one). */
  setListenOrigin(origin: string): void;
  /**
   * The first step of a shutdown, before the listener waits for in-flight requests: marks the
   * instance draining and ends its running executions (reason `shutdown`), so every open
   * execution stream ends on its `execution_aborted` instead of holding the listener open until
   * the grace runs out (spec 2 §3.2).
   */
  drain(): Promise<void>;
  /** Drains the mail pool, then closes the shared store and the metadata store. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  env: Record<string, string>;
  logger: Logger;
  /** Extra routes (tests use this to exercise the HTTP core with routes of their own). */
  extendRoutes?: (router: Router) => void;
  /** `deno task start`: create a first admin with a one-time password when none is configured. */
  quickStart?: boolean;
  /**
   * Hook for the `new_user` notice of a first social login (spec 1 §5.4 item 8); the mail issue
   * wires its sender here. Called after commit; failures are logged, never fatal to the login.
   */
  onNewUser?: (notice: NewUserNotice) => void | Promise<void>;
  /** Replaces the real executor (the executions service's own tests script their runs). */
  executor?: ExecutorPort;
  /** Clock of the executions service (tests move the replay window without waiting). */
  now?: () => number;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

export async function createRuntime(
  config: ResolvedConfig,
  options: RuntimeOptions,
): Promise<Runtime> {
  const { logger } = options;
  const secrets = await resolveSecrets(config, options.env);
  for (const path of secrets.generated) {
    logger.info("generated a secret for the embedded quick start", { file: path, mode: "0600" });
  }

  const db = await openDb(config.store.url, { poolSize: config.store.poolSize });
  let shared: SharedStore | undefined;
  let mail: MailService | undefined;
  let pools: PoolManager | undefined;
  let stopExecutions: (() => Promise<void>) | undefined;
  let live: LiveEndpoints | undefined;
  try {
    const applied = await migrate(db);
    if (applied.length > 0) {
      logger.info("migrations applied", { store: config.store.kind, applied });
    }
    const systemActor = await ensureSystemActor(db);
    shared = await openSharedStore(config.sharedStore.url, {
      timeoutMs: config.health.probeTimeoutMs,
    });

    const health = new HealthService({
      database: () => db.ping(),
      shared_store: () => shared!.ping(),
      staging_engine: probeStagingEngine,
    }, { timeoutMs: config.health.probeTimeoutMs, cacheMs: config.health.probeCacheMs, logger });

    const workspaces = new WorkspaceService({ db, allowlistDomains: config.auth.allowlistDomains });
    await workspaces.seedDemoWorkspace();
    const directory = new CachedAccessDirectory(
      db,
      workspaces,
      config.auth.apiKeys.cacheTtlSeconds,
    );
    // Endpoint matching and bindings follow changes from every replica over the shared store.
    const liveEndpoints = new LiveEndpoints({ db, shared, logger });
    await liveEndpoints.open();
    live = liveEndpoints;
    const keys = new ApiKeyService({
      db,
      logger,
      cacheTtlSeconds: config.auth.apiKeys.cacheTtlSeconds,
      onBindingsChanged: () => liveEndpoints.changed(),
    });
    const users = new UserService({
      db,
      onChange: (id) => {
        directory.forgetUser(id);
        keys.invalidateUser(id);
      },
    });
    const local = new LocalAccounts({
      db,
      logger,
      maxFailures: config.auth.local.lockout.maxFailures,
      lockMinutes: config.auth.local.lockout.durationMinutes,
      onChange: (id) => directory.forgetUser(id),
    });
    const quickStartCredential = await seedAccounts(config, local, options.quickStart ?? false);
    const bootstrap = await seedBootstrapPlaceholder(config, db);
    const landing = async (user: LandingUser, invitationMaterialised = false) => {
      const ws = await workspaces.landing(user, { invitationMaterialised });
      // A demo join changed what this user can reach: this instance sees it at once.
      directory.forgetUser(user.userId);
      return ws?.name;
    };
    const mailService = await createMailService(config, { db, logger });
    mail = mailService;
    const admin = new LocalUserAdmin({
      db,
      bootstrapAdminEmail: config.auth.bootstrapAdminEmail,
      onChange: (id) => directory.forgetUser(id),
      // The requested workspace first: the admin's decision in this act beats an older invitation.
      onCreate: async (tx, user, request, actor) => [
        ...(request.workspace
          ? [await joinAtCreation(tx, actor, user, request.workspace, request.flags)]
          : []),
        ...await materialiseInvitations(tx, user),
      ],
    });
    const datasources = new DatasourceService({
      db,
      cipher: await CredentialCipher.create(secrets.encryptionKey),
      logger,
      memberWritesEnabled: config.datasources.memberWritesEnabled,
      findWorkspace: (name) => workspaces.get(name),
    });
    const datasourcePools = await PoolManager.create({
      retireCeilingMs: config.datasources.retireCeilingSeconds * 1000,
      logger,
      shared,
    });
    pools = datasourcePools;
    const connections = new DatasourceConnections({
      db,
      datasources,
      pools: datasourcePools,
      logger,
      // A LAKE datasource reads its registered tables in place, so its "pool" is built from them.
      openLake: async (d) =>
        new LakeConnector({
          datasource: d.name,
          jdbc_url: d.jdbc_url,
          tables: await lakeTablesOf(db, d.id),
        }),
    });
    if (config.auth.bootstrapDatasourceFile) {
      try {
        await datasources.importBootstrap(
          systemActor,
          config.auth.bootstrapDatasourceFile,
          options.env,
        );
      } catch (e) {
        // A bad file stops startup with its one line, like any other configuration refusal.
        if (e instanceof BootstrapFileError) throw new StartupError(e.message);
        throw e;
      }
    }
    const sessions = new SessionTokens(secrets.jwtSecret, config.auth.jwt.ttlHours);
    const loginLimiter = new LoginRateLimiter(config.auth.rateLimit.loginPerMinute);
    const budget = new RequestBudget(shared, {
      perSecond: config.rateLimit.requestsPerSecond,
      perMinute: config.rateLimit.requestsPerMinute,
    });
    const secure = secureCookies(config.auth.baseUrl);
    for (const p of config.auth.oidc.providers) {
      const issuer = new URL(p.issuerUri);
      if (issuer.protocol === "http:" && !LOOPBACK.has(issuer.hostname)) {
        logger.warn("oidc.insecure_issuer", { provider: p.name, issuer: issuer.origin });
      }
    }
    const oidc = config.auth.oidc.providers.length === 0 ? undefined : new OidcLogin({
      db,
      logger,
      clients: new OidcClients(config.auth.oidc.providers, config.auth.baseUrl),
      secret: secrets.jwtSecret,
      allowlistDomains: config.auth.allowlistDomains,
      bootstrapAdminEmail: config.auth.bootstrapAdminEmail,
      materialise: materialiseInvitations,
      landing: (user, o) => landing(user, o.invitationMaterialised),
      onChange: (id) => directory.forgetUser(id),
      onNewUser: async (notice) => {
        await options.onNewUser?.(notice);
        // A first social login happens once per user, so the user id is the act that keys it.
        await mailService.newUser({
          userId: notice.userId,
          actId: `first-login:${notice.userId}`,
          email: notice.email,
          displayName: notice.displayName,
          provider: notice.provider,
          creator: "first sign-in",
          workspace: notice.workspace ?? null,
          at: notice.at,
          actor: { userId: notice.userId, provider: notice.provider },
        });
      },
    });

    const templates = new TemplateService({
      db,
      authoringEnabled: config.deployment.authoringEnabled,
    });
    const { results, executor, executions, housekeeping } = await openExecutions({
      config,
      db,
      shared,
      logger,
      systemActor,
      connections,
      executor: options.executor,
      now: options.now,
    });
    stopExecutions = () => executions.close(0).finally(() => housekeeping.stop());
    const pipelines = new PipelineService({
      db,
      authoringEnabled: config.deployment.authoringEnabled,
      templates,
      probe: (actor, scope, name, statement, limits) =>
        connections.probe(actor, scope, name, statement, limits),
    });

    const released = new ReleasedVersions(pipelines.lifecycle);
    const endpoints = new EndpointService({
      db,
      live: liveEndpoints,
      released,
      timeoutMinSeconds: config.endpoints.timeoutMinSeconds,
      timeoutMaxSeconds: config.endpoints.timeoutMaxSeconds,
    });
    const endpointServer = new EndpointServer({
      db,
      live: liveEndpoints,
      released,
      executions,
      resultLimits: config.result,
    });

    await seedDemo(config, {
      db,
      dataDir: config.dataDir,
      logger,
      systemActor,
      findWorkspace: (name) => workspaces.get(name),
      datasources,
      templates,
      pipelines,
    });

    const buildInfo = await readBuildInfo();
    let origin = config.auth.baseUrl ?? `http://${config.http.host}:${config.http.port}`;
    const { app, router } = buildApp({
      config,
      logger,
      health,
      buildInfo,
      baseUrl: () => origin,
      access: {
        config,
        db,
        logger,
        sessions,
        keys,
        directory,
        loginLimiter,
        budget,
        secureCookies: secure,
        systemActor,
      },
      routes: appRoutes({
        config,
        db,
        local,
        sessions,
        directory,
        secureCookies: secure,
        // Invitations left pending by a deactivated workspace go live at the next login.
        signInLanding: async (user) => {
          const joined = await db.transaction((tx) => materialiseInvitations(tx, user));
          return await landing(user, joined.length > 0);
        },
        workspaces,
        oidc,
        users,
        admin,
        mail: mailService,
        keys,
        templates,
        datasources,
        connections,
        pools: datasourcePools,
        executions,
        pipelines,
        origin: () => origin,
      }),
    }, options.extendRoutes);
    const sharedStore = shared;
    return {
      config,
      secrets,
      logger,
      db,
      shared: sharedStore,
      health,
      buildInfo,
      systemActor,
      app,
      router,
      sessions,
      keys,
      users,
      local,
      workspaces,
      templates,
      datasources,
      pools: datasourcePools,
      connections,
      pipelines,
      directory,
      loginLimiter,
      oidc,
      bootstrapDatasources: bootstrap,
      mail: mailService,
      endpoints,
      endpointServer,
      liveEndpoints,
      executions,
      housekeeping,
      results,
      quickStartCredential,
      setListenOrigin(listen: string) {
        if (!config.auth.baseUrl) {
          origin = listen;
          // data_ready's result_url names the origin the listener actually bound.
          executor.options.baseUrl = listen;
        }
      },
      async drain() {
        health.markDraining();
        housekeeping.stop();
        await executions.close(config.http.shutdownGraceSeconds * 1000);
      },
      async close() {
        // Running executions end first (reason `shutdown`) while the stores can still take
        // their final records; after `drain()` nothing is left to end.
        housekeeping.stop();
        await executions.close(config.http.shutdownGraceSeconds * 1000);
        await mailService.close(config.http.shutdownGraceSeconds * 1000);
        await datasourcePools.closeAll();
        await keys.close();
        await liveEndpoints.close();
        await sharedStore.close();
        await db.close();
      },
    };
  } catch (e) {
    await stopExecutions?.();
    await mail?.close(0);
    await pools?.closeAll();
    await live?.close();
    await shared?.close();
    await db.close();
    throw e;
  }
}
