/**
 * A world for the endpoint tests on a migrated store: the executor world's workspace, author,
 * lifecycles and real connectors, a real executions service, real API keys, and the endpoint
 * service and server over one `LiveEndpoints`.
 */
import { ExecutionService, IdempotencyCache, ResultStore } from "../executions/mod.ts";
import { pipeline, sqliteSource, type World, world } from "../executions/executor_fixtures.ts";
import { ApiKeyService } from "../identity/mod.ts";
import { expandScopes, type Principal } from "../identity/mod.ts";
import { createLogger } from "../lib/log.ts";
import { MemoryStore, type SharedStore } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import type { JsonObject } from "../versions/mod.ts";
import { LiveEndpoints } from "./live.ts";
import { ReleasedVersions } from "./released.ts";
import { EndpointServer } from "./serve.ts";
import { type EndpointContext, EndpointService } from "./service.ts";

export const RESULT_LIMITS = {
  ttlDefaultSeconds: 300,
  ttlMinSeconds: 30,
  ttlMaxSeconds: 86400,
  pageRows: 1000,
  pageRowsMax: 10000,
};

export interface EndpointWorld {
  w: World;
  db: Db;
  shared: SharedStore;
  live: LiveEndpoints;
  /** The release reader the server and the service share. */
  versions: ReleasedVersions;
  keys: ApiKeyService;
  service: EndpointService;
  server: EndpointServer;
  executions: ExecutionService;
  /** The executor world's author, acting in its workspace. */
  ctx: EndpointContext;
  /** A released pipeline of `nodes` (and `extra` body fields); returns its id. */
  released(nodes: unknown[], extra?: Record<string, unknown>): Promise<string>;
  /** Mints a key for the author in the workspace and answers the principal it validates to. */
  key(
    input: { name?: string; kind?: "user" | "endpoint"; scopes?: string[]; bindings?: unknown },
    issuer?: { userId: string; workspaceId: string },
  ): Promise<Principal>;
  close(): Promise<void>;
}

/** `fn` in a fresh endpoint world with an SQLite datasource `lite`, closed after. */
export async function withEndpointWorld(
  db: Db,
  fn: (e: EndpointWorld) => Promise<void>,
  options: Parameters<typeof endpointWorld>[1] = {},
): Promise<void> {
  const e = await endpointWorld(db, options);
  try {
    sqliteSource(e.w, "lite");
    await fn(e);
  } finally {
    await e.close();
  }
}

export async function endpointWorld(
  db: Db,
  options: {
    shared?: SharedStore;
    /** Where runs keep their results (default: the world's, on a memory store). */
    results?: ResultStore;
    timeoutMinSeconds?: number;
    maxConcurrentPerUser?: number;
  } = {},
): Promise<EndpointWorld> {
  const w = await world(db);
  const shared = options.shared ?? new MemoryStore();
  const logger = createLogger("error");
  const live = new LiveEndpoints({ db, shared, logger });
  await live.open();
  // As services.ts wires it: a pipeline write moves serving to a new snapshot.
  w.pipelines.onChange(() => live.changed());
  const keys = new ApiKeyService({
    db,
    logger,
    cacheTtlSeconds: 60,
    sampleUsed: () => false,
    onBindingsChanged: () => live.changed(),
  });
  const released = new ReleasedVersions(w.pipelines);
  const executions = new ExecutionService({
    db,
    shared,
    results: options.results ?? w.results,
    idempotency: new IdempotencyCache(shared, 3600),
    logger,
    executor: w.executor(options.results ? { results: options.results } : {}),
    resultLimits: RESULT_LIMITS,
    maxConcurrentPerUser: options.maxConcurrentPerUser ?? 10,
    maxStreamsPerUser: 50,
    followPollMs: 1000,
  });
  await executions.open();
  const service = new EndpointService({
    db,
    live,
    released,
    timeoutMinSeconds: options.timeoutMinSeconds ?? 1,
    timeoutMaxSeconds: 300,
  });
  const server = new EndpointServer({
    db,
    live,
    released,
    executions,
    resultLimits: RESULT_LIMITS,
  });
  const actor = w.ctx.actor;
  return {
    w,
    db,
    shared,
    live,
    versions: released,
    keys,
    service,
    server,
    executions,
    ctx: { actor, workspaceId: w.workspaceId },
    released: (nodes, extra = {}) => pipeline(w, nodes, extra, { release: true }),
    async key(input, issuer = { userId: actor.userId, workspaceId: w.workspaceId }) {
      const issued = await keys.issue(
        {
          ...actor,
          userId: issuer.userId,
          activeWorkspaceId: issuer.workspaceId,
        },
        { name: input.name ?? "k", ...input },
        { flags: { author: true, promoter: false, admin: false }, isSuperAdmin: false },
      );
      const k = await keys.validate(issued.key);
      return {
        userId: k.userId,
        email: k.email,
        displayName: k.display_name,
        provider: k.provider,
        isSuperAdmin: k.is_admin,
        authMethod: "API_KEY",
        mustChangePassword: false,
        keyId: k.keyId,
        keyKind: k.kind,
        scopes: k.kind === "user" ? expandScopes(k.scopes) : [],
        pinnedWorkspaceId: k.pinnedWorkspaceId,
      };
    },
    async close() {
      await executions.close(5000);
      await keys.close();
      await live.close();
      await w.close();
      if (!options.shared) await shared.close();
    },
  };
}

/** A one-node read of the SQLite `people` table by `team` (default `red`). */
export const PEOPLE_BY_TEAM = {
  parameters: { team: { type: "string", default: "red" }, limit: { type: "integer" } },
};
export function peopleNodes(source: string, sql?: string): JsonObject[] {
  return [{
    id: "read",
    type: "DQL",
    source,
    sql: sql ?? "SELECT id, name FROM people WHERE team = :team ORDER BY id",
  }];
}

/**
 * The people-by-team read released and published at `/people/{team}`, with a user key `app`
 * that may execute: what most serve tests start from.
 */
export async function publishPeople(e: EndpointWorld): Promise<{ id: string; key: Principal }> {
  const id = await peopleAt(e, "/people/{team}");
  return { id, key: await e.key({ name: "app", scopes: ["execute"] }) };
}

/** The people-by-team pipeline, released and published at each of `patterns`; answers its id. */
export async function peopleAt(e: EndpointWorld, ...patterns: string[]): Promise<string> {
  const id = await e.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
  for (const path_pattern of patterns) {
    await e.service.publish(e.ctx, { path_pattern, pipeline_id: id });
  }
  return id;
}
