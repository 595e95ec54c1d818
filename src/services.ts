/**
 * The domain services of a running instance, built once, in groups the way
 * `executions/wiring.ts` builds its own: platform (stores, health, mail, workspaces), identity,
 * datasources, authoring, executions. The one `Services` value is what every front end receives
 * whole (the REST routes, later the tool catalogue and the UI handlers); each group's fields are
 * written once, in what its builder returns.
 */
import { AuditLog } from "./audit/mod.ts";
import {
  type BootstrapDatasource,
  type ResolvedConfig,
  resolveSecrets,
  type Secrets,
  StartupError,
} from "./config/mod.ts";
import {
  BootstrapFileError,
  countWorkspaceDatasources,
  CredentialCipher,
  DatasourceConnections,
  DatasourceService,
  LakeTables,
  PoolManager,
  Semantics,
} from "./datasources/mod.ts";
import { LakeConnector } from "./datasources/mod.ts";
import { lakeTablesOf } from "./datasources/mod.ts";
import { probeStagingEngine } from "./executions/mod.ts";
import type { ExecutorPort } from "./executions/mod.ts";
import { openExecutions } from "./executions/mod.ts";
import { type ExecutionRecord, renderedNodeSql } from "./executions/mod.ts";
import { type BuildInfo, HealthService, readBuildInfo } from "./health/mod.ts";
import {
  countEndpoints,
  EndpointServer,
  EndpointService,
  LiveEndpoints,
  type PublishRules,
  ReleasedVersions,
} from "./endpoints/mod.ts";
import { AccessGuard, ApiKeyService } from "./identity/mod.ts";
import { LocalAccounts } from "./identity/mod.ts";
import { LocalUserAdmin } from "./identity/mod.ts";
import { ensureSystemActor } from "./identity/mod.ts";
import { OidcClients } from "./identity/mod.ts";
import { type NewUserNotice, OidcLogin } from "./identity/mod.ts";
import { SessionTokens } from "./identity/mod.ts";
import { UserService } from "./identity/mod.ts";
import type { Logger } from "./lib/log.ts";
import type { StartupPhases } from "./lib/startup_phases.ts";
import { createMailService } from "./mail/mod.ts";
import { countPipelines, datasourceReferences, PipelineService } from "./pipelines/mod.ts";
import { PromotionKeys, PromotionReceiver, PromotionSender } from "./promotion/mod.ts";
import { openSharedStore } from "./shared/mod.ts";
import { RequestBudget } from "./shared/mod.ts";
import { onServed, openMetrics, watchInstance } from "./observe.ts";
import { seedAccounts, seedBootstrapPlaceholder, seedDemo } from "./startup_seeds.ts";
import { type Db, ensureIncrementalVacuum, migrate, openDb } from "./store/mod.ts";
import { countTemplates, TemplateService } from "./templates/mod.ts";
import {
  CachedAccessDirectory,
  joinAtCreation,
  type LandingUser,
  materialiseInvitations,
  WorkspaceService,
} from "./workspaces/mod.ts";

/**
 * The content that keeps a workspace from being deleted (`workspace.in_use`), by kind: each
 * domain exports the count over its own table, and the workspace service runs them all.
 */
const CONTENT_COUNTERS = {
  pipelines: countPipelines,
  templates: countTemplates,
  datasources: countWorkspaceDatasources,
  endpoints: countEndpoints,
};

export interface ServicesOptions {
  env: Record<string, string>;
  logger: Logger;
  /** `deno task start`: create a first admin with a one-time password when none is configured. */
  quickStart?: boolean;
  /**
   * Hook for the `new_user` notice of a first social login (docs/access.md#mail), called after
   * commit; failures are logged, never fatal to the login.
   */
  onNewUser?: (notice: NewUserNotice) => void | Promise<void>;
  /** Replaces the real executor (the executions service's own tests script their runs). */
  executor?: ExecutorPort;
  /** Clock of the executions service (tests move the replay window without waiting). */
  now?: () => number;
  /** `main.ts serve` times each step of the start (its "startup phases" debug line). */
  phases?: StartupPhases;
}

/** Shuts a group down; `graceMs` 0 when startup failed half-way. */
type Closer = (graceMs: number) => Promise<void>;

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Stores, health, mail, workspaces and the per-user budget: what every other group stands on. */
async function openPlatform(
  config: ResolvedConfig,
  db: Db,
  logger: Logger,
  closers: Closer[],
  build: Promise<BuildInfo>,
  phases?: StartupPhases,
) {
  const applied = await migrate(db);
  if (applied.length > 0) logger.info("migrations applied", { store: config.store.kind, applied });
  if (await ensureIncrementalVacuum(db)) {
    logger.info("embedded store switched to incremental vacuum", { store: config.store.kind });
  }
  phases?.mark("migrate");
  const systemActor = await ensureSystemActor(db);
  const shared = await openSharedStore(config.sharedStore.url, {
    timeoutMs: config.health.probeTimeoutMs,
    memoryMaxChars: config.sharedStore.memoryMaxBytes,
  });
  closers.push(() => shared.close());
  const health = new HealthService({
    database: () => db.ping(),
    shared_store: () => shared.ping(),
    staging_engine: probeStagingEngine,
  }, { timeoutMs: config.health.probeTimeoutMs, cacheMs: config.health.probeCacheMs, logger });
  const mail = await createMailService(config, { db, logger });
  closers.push((grace) => mail.close(grace));
  const workspaces = new WorkspaceService({
    db,
    allowlistDomains: config.auth.allowlistDomains,
    contentCounters: CONTENT_COUNTERS,
  });
  await workspaces.seedDemoWorkspace();
  const budget = new RequestBudget(shared, {
    perSecond: config.rateLimit.requestsPerSecond,
    perMinute: config.rateLimit.requestsPerMinute,
  });
  const buildInfo = await build;
  const metrics = await openMetrics(config, buildInfo);
  // Front ends judge requests and write or read audit rows through these, never the store.
  const audit = new AuditLog(db);
  const access = new AccessGuard(db);
  return {
    config,
    logger,
    db,
    systemActor,
    shared,
    health,
    buildInfo,
    mail,
    workspaces,
    budget,
    audit,
    access,
    metrics,
  };
}

type Platform = Awaited<ReturnType<typeof openPlatform>>;

/** Users, sessions, keys, local accounts, OIDC, and the cached access facts they invalidate. */
async function openIdentity(
  p: Platform,
  secrets: Secrets,
  options: ServicesOptions,
  closers: Closer[],
  onBindingsChanged: () => Promise<void>,
) {
  const { config, db, logger, workspaces } = p;
  const directory = new CachedAccessDirectory(db, workspaces, config.auth.apiKeys.cacheTtlSeconds);
  const forget = (id: string) => directory.forgetUser(id);
  const keys = new ApiKeyService({
    db,
    logger,
    cacheTtlSeconds: config.auth.apiKeys.cacheTtlSeconds,
    onBindingsChanged,
  });
  closers.push(() => keys.close());
  // Revocations, deactivations and membership changes reach every replica's caches at once.
  await keys.follow(p.shared);
  await directory.follow(p.shared, logger);
  closers.push(() => directory.unfollow());
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
    onChange: forget,
  });
  const quickStartCredential = await seedAccounts(config, local, options.quickStart ?? false);
  const bootstrapDatasources: BootstrapDatasource[] = await seedBootstrapPlaceholder(config, db);
  const landing = async (user: LandingUser, invitationMaterialised = false) => {
    const ws = await workspaces.landing(user, { invitationMaterialised });
    // A demo join changed what this user can reach: this instance sees it at once.
    directory.forgetUser(user.userId);
    return ws?.name;
  };
  /** Where a local sign-in lands; invitations a deactivated workspace left pending go live. */
  const signInLanding = async (user: LandingUser) => {
    const joined = await db.transaction((tx) => materialiseInvitations(tx, user));
    return await landing(user, joined.length > 0);
  };
  const admin = new LocalUserAdmin({
    db,
    bootstrapAdminEmail: config.auth.bootstrapAdminEmail,
    onChange: forget,
    // The requested workspace first: the admin's decision in this act beats an older invitation.
    onCreate: async (tx, user, request, actor) => [
      ...(request.workspace
        ? [await joinAtCreation(tx, actor, user, request.workspace, request.flags)]
        : []),
      ...await materialiseInvitations(tx, user),
    ],
  });
  const sessions = new SessionTokens(secrets.jwtSecret, config.auth.jwt.ttlHours);
  const oidc = openOidc(p, secrets, options, landing, forget);
  return {
    directory,
    keys,
    users,
    local,
    admin,
    sessions,
    oidc,
    signInLanding,
    quickStartCredential,
    bootstrapDatasources,
  };
}

/** OIDC login; undefined when no provider is configured. */
function openOidc(
  p: Platform,
  secrets: Secrets,
  options: ServicesOptions,
  landing: (user: LandingUser, invitationMaterialised?: boolean) => Promise<string | undefined>,
  forget: (userId: string) => void,
): OidcLogin | undefined {
  const { config, db, logger, mail } = p;
  if (config.auth.oidc.providers.length === 0) return undefined;
  for (const provider of config.auth.oidc.providers) {
    const issuer = new URL(provider.issuerUri);
    if (issuer.protocol === "http:" && !LOOPBACK.has(issuer.hostname)) {
      logger.warn("oidc.insecure_issuer", { provider: provider.name, issuer: issuer.origin });
    }
  }
  return new OidcLogin({
    db,
    logger,
    clients: new OidcClients(config.auth.oidc.providers, config.auth.baseUrl),
    secret: secrets.jwtSecret,
    allowlistDomains: config.auth.allowlistDomains,
    bootstrapAdminEmail: config.auth.bootstrapAdminEmail,
    materialise: materialiseInvitations,
    landing: (user, o) => landing(user, o.invitationMaterialised),
    onChange: forget,
    onNewUser: async (notice) => {
      await options.onNewUser?.(notice);
      // A first social login happens once per user, so the user id is the act that keys it.
      await mail.newUser({
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
}

/** The registry, one pool per datasource on this instance, and the connections over them. */
async function openDatasources(
  p: Platform,
  secrets: Secrets,
  options: ServicesOptions,
  closers: Closer[],
) {
  const { config, db, logger, shared, workspaces } = p;
  const datasources = new DatasourceService({
    db,
    cipher: await CredentialCipher.create(secrets.encryptionKey),
    logger,
    memberWritesEnabled: config.datasources.memberWritesEnabled,
    findWorkspace: (name) => workspaces.get(name),
    referenceFinders: [datasourceReferences],
  });
  // Runs read datasource records from a cache that follows changes made on every instance.
  await datasources.follow(shared);
  closers.push(() => datasources.unfollow());
  const pools = await PoolManager.create({
    retireCeilingMs: config.datasources.retireCeilingSeconds * 1000,
    logger,
    shared,
  });
  closers.push(() => pools.closeAll());
  const limits = {
    maxCellBytes: config.executor.maxCellBytes,
    duckdbMemoryMb: config.executor.duckdbMemoryLimitMb,
  };
  const connections = new DatasourceConnections({
    db,
    datasources,
    pools,
    logger,
    limits,
    // A LAKE datasource reads its registered tables in place, so its "pool" is built from them.
    openLake: async (d) =>
      new LakeConnector({
        datasource: d.name,
        jdbc_url: d.jdbc_url,
        tables: await lakeTablesOf(db, d.id),
        memoryMb: limits.duckdbMemoryMb,
      }),
  });
  if (config.auth.bootstrapDatasourceFile) {
    try {
      await datasources.importBootstrap(
        p.systemActor,
        config.auth.bootstrapDatasourceFile,
        options.env,
      );
    } catch (e) {
      // A bad file stops startup with its one line, like any other configuration refusal.
      if (e instanceof BootstrapFileError) throw new StartupError(e.message);
      throw e;
    }
  }
  // Learned facts as a workspace reads and writes them (the semantics_* tools).
  const semantics = new Semantics({ db, datasources, connections });
  const lakeTables = new LakeTables({ db, datasources, pools });
  return { datasources, pools, connections, semantics, lakeTables };
}

/** Templates and pipelines, their release checks probing through the connections. */
function openAuthoring(p: Platform, connections: DatasourceConnections) {
  const { config, db } = p;
  const templates = new TemplateService({
    db,
    authoringEnabled: config.deployment.authoringEnabled,
  });
  const pipelines = new PipelineService({
    db,
    authoringEnabled: config.deployment.authoringEnabled,
    templates,
    probe: (actor, scope, name, statement, limits) =>
      connections.probe(actor, scope, name, statement, limits),
  });
  return { templates, pipelines };
}

/** The promotion receiver behind its key gate, and the sender towards the configured target. */
function openPromotion(
  p: Platform,
  keys: ApiKeyService,
  authoring: ReturnType<typeof openAuthoring>,
  live: LiveEndpoints,
  publishRules: PublishRules,
) {
  const { config, db, logger } = p;
  const settings = config.deployment.promotion;
  if (settings.serverKey !== undefined) {
    logger.warn("service.deployment.promotion.server-key is deprecated", {
      advice: "mint a server-kind key (POST /api/v1/auth/api-keys, kind server) and revoke this",
    });
  }
  return {
    promotionKeys: new PromotionKeys({ db, keys, configured: settings.serverKey }),
    promotionReceiver: new PromotionReceiver({
      db,
      pipelines: authoring.pipelines,
      live,
      publishRules,
      systemActor: p.systemActor,
      deploymentName: config.deployment.name,
      authoringEnabled: config.deployment.authoringEnabled,
      findWorkspace: async (name) => {
        const ws = await p.workspaces.get(name);
        return ws && { id: ws.id, name: ws.name, active: !ws.deactivated_at && !ws.deleted_at };
      },
    }),
    promotionSender: new PromotionSender({
      db,
      pipelines: authoring.pipelines,
      templates: authoring.templates,
      deploymentName: config.deployment.name,
      target: {
        url: settings.targetUrl,
        key: settings.targetKey,
        keyFile: settings.targetKeyFile,
      },
    }),
  };
}

/**
 * Builds every group in order; a failure half-way closes what was opened. The second value is the
 * instance's lifecycle, kept apart from what front ends receive.
 */
export async function openServices(config: ResolvedConfig, options: ServicesOptions) {
  const { logger, phases } = options;
  // Started first: a checkout asks git for its commit, which runs while the stores open.
  const build = readBuildInfo();
  const secrets = await resolveSecrets(config, options.env);
  for (const path of secrets.generated) {
    logger.info("generated a secret for the embedded quick start", { file: path, mode: "0600" });
  }
  phases?.mark("keys");
  const db = await openDb(config.store.url, {
    poolSize: config.store.poolSize,
    // Replacing the pool is recovery, not failure; an operator still wants to see it happen.
    onRenew: (reason) => logger.warn("replaced the PostgreSQL connection pool", { reason }),
  });
  phases?.mark("store_open");
  const closers: Closer[] = [() => db.close()];
  const closeAll = async (graceMs: number) => {
    for (const close of closers.splice(0).reverse()) await close(graceMs);
  };
  try {
    const platform = await openPlatform(config, db, logger, closers, build, phases);
    phases?.mark("platform");
    // Endpoint matching and bindings follow changes from every replica over the shared store.
    const liveEndpoints = new LiveEndpoints({ db, shared: platform.shared, logger });
    await liveEndpoints.open();
    closers.push(() => liveEndpoints.close());
    phases?.mark("live_endpoints");
    // A serve's verdict (workspace active, latest release side-effect-free) is cached per
    // snapshot: every change it depends on moves every replica to a new snapshot.
    platform.workspaces.onStateChange(() => liveEndpoints.changed());
    const identity = await openIdentity(
      platform,
      secrets,
      options,
      closers,
      () => liveEndpoints.changed(),
    );
    phases?.mark("identity");
    const datasources = await openDatasources(platform, secrets, options, closers);
    phases?.mark("datasources");
    const authoring = openAuthoring(platform, datasources.connections);
    authoring.pipelines.lifecycle.onChange(() => liveEndpoints.changed());
    const executions = await openExecutions({
      config,
      db,
      shared: platform.shared,
      logger,
      systemActor: platform.systemActor,
      connections: datasources.connections,
      pipelines: authoring.pipelines.lifecycle,
      executor: options.executor,
      now: options.now,
      meter: platform.metrics,
    });
    // Closed after the executions below (closers run in reverse): every run has given back its
    // staging instance by then.
    closers.push(() => executions.stagingPool.close());
    // Running executions end first (reason `shutdown`) while the stores can take their records;
    // after `drain()` nothing is left to end.
    closers.push(async (grace) => {
      executions.housekeeping.stop();
      await executions.executions.close(grace);
    });
    phases?.mark("executions");
    const released = new ReleasedVersions(authoring.pipelines.lifecycle);
    // A publish and a promotion push write endpoint rows by the same rules.
    const publishRules = {
      released,
      timeoutMinSeconds: config.endpoints.timeoutMinSeconds,
      timeoutMaxSeconds: config.endpoints.timeoutMaxSeconds,
    };
    const endpoints = {
      liveEndpoints,
      endpoints: new EndpointService({ db, live: liveEndpoints, ...publishRules }),
      endpointServer: new EndpointServer({
        db,
        live: liveEndpoints,
        released,
        executions: executions.executions,
        resultLimits: config.result,
        onServed: onServed(platform.metrics),
      }),
    };
    watchInstance(platform.metrics, { db, health: platform.health, pools: datasources.pools });
    const promotion = openPromotion(
      platform,
      identity.keys,
      authoring,
      liveEndpoints,
      publishRules,
    );
    await seedDemo(config, {
      db,
      dataDir: config.dataDir,
      logger,
      systemActor: platform.systemActor,
      findWorkspace: (name) => platform.workspaces.get(name),
      datasources: datasources.datasources,
      templates: authoring.templates,
      pipelines: authoring.pipelines,
    });
    phases?.mark("demo");

    let origin = config.auth.baseUrl ?? `http://${config.http.host}:${config.http.port}`;
    const { quickStartCredential, bootstrapDatasources, admin: userAdmin, ...identityServices } =
      identity;
    // What front ends receive, in groups; the stores and the configuration are not among them.
    const services = {
      platform: {
        health: platform.health,
        buildInfo: platform.buildInfo,
        /** `GET /metrics`'s registry, when `service.metrics.enabled`. */
        metrics: platform.metrics,
        logger,
        budget: platform.budget,
        systemActor: platform.systemActor,
        /** The external origin for links: base-url, else where the listener bound. */
        origin: () => origin,
      },
      identity: { ...identityServices, userAdmin, access: platform.access },
      admin: { workspaces: platform.workspaces, audit: platform.audit, mail: platform.mail },
      content: { ...datasources, ...authoring },
      runs: {
        executions: executions.executions,
        /** A node's statement as the run rendered it, for the run view (node_sql.ts). */
        nodeSql: (record: ExecutionRecord, nodeId: string) =>
          renderedNodeSql(executions.executor, record, nodeId),
      },
      publishing: {
        endpoints: endpoints.endpoints,
        endpointServer: endpoints.endpointServer,
        ...promotion,
      },
      settings: frontEndSettings(config),
    };
    /** Beside the services: what the process (main.ts) and tests reach, never a front end. */
    const internals = {
      config,
      db,
      shared: platform.shared,
      pools: datasources.pools,
      liveEndpoints,
      ...executions,
    };
    const lifecycle = {
      /**
       * A shutdown's work, beside the listener's (which stops accepting and waits for in-flight
       * requests): readiness turns false at once; the runs under way (an `/api/x` serve's, a tool
       * call's, a stream's) get `finishMs` to end on their own, still beaten for; what is still
       * running then ends ABORTED (reason `shutdown`), its streams on `execution_aborted`, awaited
       * up to `abortMs`. By default the two share `service.http.shutdown-grace-seconds`: a quarter
       * of it, at most 5 s, is kept for the abort, so the whole drain fits in the grace an
       * orchestrator gives before its SIGKILL.
       */
      async drain(bounds: { finishMs?: number; abortMs?: number } = {}) {
        platform.health.markDraining();
        const graceMs = config.http.shutdownGraceSeconds * 1000;
        const abortMs = bounds.abortMs ?? Math.min(5_000, graceMs / 4);
        await executions.executions.runsEnded(bounds.finishMs ?? graceMs - abortMs);
        executions.housekeeping.stop();
        await executions.executions.close(abortMs);
      },
      secrets,
      quickStartCredential,
      /** The bootstrap datasource file's entries, kept for the datasource import. */
      bootstrapDatasources,
      /** Tells the services the external origin once the listener has bound (port 0 picks one). */
      setListenOrigin(listen: string) {
        if (config.auth.baseUrl) return;
        origin = listen;
        // data_ready's result_url names the origin the listener actually bound.
        executions.executor.options.baseUrl = listen;
      },
      /** Executions first, then pools, keys, mail, the shared store and the metadata store. */
      close: () => closeAll(config.http.shutdownGraceSeconds * 1000),
    };
    return { services, internals, lifecycle };
  } catch (e) {
    await closeAll(0);
    throw e;
  }
}

/** What every front end receives whole, in its groups. */
export type Services = Awaited<ReturnType<typeof openServices>>["services"];

/**
 * The settings a front end reads, resolved once here: front ends never read the configuration,
 * so this list is every setting that shapes an answer outside the domain services.
 */
function frontEndSettings(config: ResolvedConfig) {
  return {
    /** `service.auth.base-url`: CORS, cookies' `Secure`, the tool endpoint's Origin check. */
    baseUrl: config.auth.baseUrl,
    http: {
      host: config.http.host,
      maxBodyBytes: config.http.maxBodyBytes,
      trustedProxies: config.auth.trustedProxies,
      loginPerMinute: config.auth.rateLimit.loginPerMinute,
    },
    paging: config.paging,
    sse: {
      heartbeatMs: config.sse.heartbeatIntervalSeconds * 1000,
      disconnectGraceMs: config.sse.disconnectGraceSeconds * 1000,
    },
    resultPage: { defaultLimit: config.result.pageRows, maxLimit: config.result.pageRowsMax },
    mcp: {
      maxRows: config.mcp.maxRows,
      maxChars: config.mcp.maxChars,
      executeTimeoutSeconds: config.mcp.executeTimeoutSeconds,
    },
    signIn: {
      localEnabled: config.auth.local.enabled,
      providers: config.auth.oidc.providers.map((p) => ({
        name: p.name,
        label: p.displayName ?? p.name,
      })),
    },
    metricsToken: config.metrics.token,
    memberDatasourceWrites: config.datasources.memberWritesEnabled,
  };
}

export type FrontEndSettings = ReturnType<typeof frontEndSettings>;
