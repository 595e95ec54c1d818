/**
 * Test fixtures for the executor: a sink that only records calls, a world of real lifecycles on a
 * migrated store, real connectors on files and local servers, and draining a stream with a
 * deadline (through the event-order checker).
 */
import { AppError } from "../errors/mod.ts";
import type { Db } from "../store/mod.ts";
import { MemoryStore } from "../shared/mod.ts";
import {
  type JsonObject,
  type OpContext,
  PIPELINE_KIND,
  TEMPLATE_KIND,
  VersionLifecycle,
} from "../versions/mod.ts";
import { addUser, addWorkspace } from "../versions/test_fixtures.ts";
import { makeDuckdbFile, makeSqliteFile } from "../datasources/connectors/test_fixtures.ts";
import { type Connector, connectorConfig, openConnector } from "../datasources/mod.ts";
import { checkEventOrder, type EventFrame } from "./event_order.ts";
import { type Connect, type Datasource, Executor, lifecycleCatalog } from "./executor.ts";
import { ResultStore } from "./result_store.ts";
import type { ExecutionHandle, ExecutionRecord, ExecutionRequest, ExecutionSink } from "./types.ts";

/** The progress states a read that succeeds enters, in order. */
export const SUCCESS_STATES = [
  "connecting",
  "executing",
  "fetching",
  "writing",
  "finalizing",
  "completed",
];

/** Records every sink call, in order; the real sink is the executions service's. */
export class RecordingSink implements ExecutionSink {
  readonly calls: {
    kind: "started" | "event" | "finished";
    executionId: string;
    value: unknown;
  }[] = [];
  started(record: ExecutionRecord): Promise<void> {
    this.calls.push({ kind: "started", executionId: record.execution_id, value: record });
    return Promise.resolve();
  }
  event(executionId: string, frame: EventFrame): Promise<void> {
    this.calls.push({ kind: "event", executionId, value: frame });
    return Promise.resolve();
  }
  finished(record: ExecutionRecord): Promise<void> {
    this.calls.push({ kind: "finished", executionId: record.execution_id, value: record });
    return Promise.resolve();
  }
  frames(executionId: string): EventFrame[] {
    return this.calls.filter((c) => c.kind === "event" && c.executionId === executionId)
      .map((c) => c.value as EventFrame);
  }
}

export interface World {
  db: Db;
  workspaceId: string;
  userId: string;
  ctx: OpContext;
  pipelines: VersionLifecycle;
  templates: VersionLifecycle;
  datasources: Map<string, Datasource>;
  connect: Connect;
  results: ResultStore;
  executor(options?: ExecutorOptions): Executor;
  dir: string;
  /** Runs `cleanup` when the world closes, after its connectors, the last deferred first. */
  defer(cleanup: () => unknown): void;
  close(): Promise<void>;
}

export type ExecutorOptions = Partial<ConstructorParameters<typeof Executor>[0]>;

let n = 0;
export async function world(db: Db): Promise<World> {
  const workspaceId = await addWorkspace(db, `exec-ws-${++n}-${crypto.randomUUID().slice(0, 6)}`);
  const user = await addUser(db, `runner-${n}-${crypto.randomUUID().slice(0, 6)}@x.example`);
  const pipelines = new VersionLifecycle({ db, kind: PIPELINE_KIND, authoringEnabled: true });
  const templates = new VersionLifecycle({ db, kind: TEMPLATE_KIND, authoringEnabled: true });
  const datasources = new Map<string, Datasource>();
  const connect: Connect = (ws, name) => {
    const ds = ws === workspaceId ? datasources.get(name) : undefined;
    if (!ds) return Promise.reject(new AppError("datasource.not_found", { datasource: name }));
    return Promise.resolve(ds);
  };
  const results = new ResultStore(new MemoryStore(), { maxBytes: 10_000_000, chunkRows: 100 });
  const dir = await Deno.makeTempDir({ prefix: "exec_test_" });
  const cleanups: (() => unknown)[] = [];
  const w: World = {
    db,
    workspaceId,
    userId: user.userId,
    ctx: { actor: user, workspaceId },
    pipelines,
    templates,
    datasources,
    connect,
    results,
    dir,
    executor: (options = {}) =>
      new Executor({
        catalog: lifecycleCatalog(pipelines, templates),
        connect,
        results,
        baseUrl: "http://localhost:8080",
        ...options,
      }),
    defer: (cleanup) => void cleanups.push(cleanup),
    async close() {
      // One connector may stand under two names (a read-only alias, say): closed once.
      for (const c of new Set([...datasources.values()].map((ds) => ds.connector))) await c.close();
      await Deno.remove(dir, { recursive: true });
      for (const cleanup of cleanups.reverse()) await cleanup();
    },
  };
  return w;
}

/** Registers a real connector under `name`. */
export function addDatasource(
  w: World,
  name: string,
  connector: Connector,
  readonly = false,
): void {
  w.datasources.set(name, { connector, dialect: connector.dialect, readonly });
}

/** A SQLite file `name.sqlite` made by `setup`, as a datasource; returns its path. */
export function sqliteFile(
  w: World,
  name: string,
  setup: string,
  options: { readonly?: boolean; hikari?: Record<string, unknown> } = {},
): string {
  const path = `${w.dir}/${name}.sqlite`;
  makeSqliteFile(path, setup);
  const config = connectorConfig("SQLITE", `jdbc:sqlite:${path}`, { hikari: options.hikari });
  addDatasource(w, name, openConnector(config), options.readonly);
  return path;
}

/** A DuckDB file `name.duckdb` made by `setup`, as a datasource; returns its path. */
export async function duckdbFile(
  w: World,
  name: string,
  setup: string,
  options: { readonly?: boolean; hikari?: Record<string, unknown> } = {},
): Promise<string> {
  const path = `${w.dir}/${name}.duckdb`;
  await makeDuckdbFile(path, setup);
  const config = connectorConfig("DUCKDB", `jdbc:duckdb:${path}`, { hikari: options.hikari });
  addDatasource(w, name, openConnector(config), options.readonly);
  return path;
}

/** A SQLite file with `people(id, name, team)`, as a datasource. */
export function sqliteSource(w: World, name: string, readonly = false): string {
  return sqliteFile(
    w,
    name,
    `CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, team TEXT);
    INSERT INTO people VALUES (1, 'Ada', 'red'), (2, 'Bo', 'blue'), (3, 'Cy', 'red');`,
    { readonly },
  );
}

/** A DuckDB file with `teams(team, city)`, as a datasource. */
export function duckdbSource(w: World, name: string): Promise<string> {
  return duckdbFile(
    w,
    name,
    `CREATE TABLE teams (team VARCHAR, city VARCHAR);
    INSERT INTO teams VALUES ('red', 'Oslo'), ('blue', 'Lima');`,
  );
}

/** Creates a pipeline (a draft) with `nodes`; returns its id. */
export async function pipeline(
  w: World,
  nodes: unknown[],
  extra: Record<string, unknown> = {},
  options: { release?: boolean } = {},
): Promise<string> {
  const name = `team/p${++n}-${crypto.randomUUID().slice(0, 6)}`;
  const saved = await w.pipelines.create(w.ctx, {
    name,
    body: { name, schema_version: 1, nodes, ...extra } as JsonObject,
    attrs: {},
  });
  if (options.release) await w.pipelines.release(w.ctx, saved.entity.id, saved.version.body_hash);
  return saved.entity.id;
}

export function request(
  w: World,
  pipelineId: string,
  extra: Partial<ExecutionRequest> = {},
): ExecutionRequest {
  return {
    executionId: crypto.randomUUID(),
    workspaceId: w.workspaceId,
    pipelineId,
    parameters: {},
    triggeredBy: w.userId,
    triggeredVia: "REST",
    correlationId: crypto.randomUUID(),
    resultTtlSeconds: 300,
    pageRows: 1000,
    ...extra,
  };
}

export interface RunOptions {
  /** Options for the world's executor (ignored when `executor` is given). */
  options?: ExecutorOptions;
  executor?: Executor;
  request?: Partial<ExecutionRequest>;
  /** Where the run writes; a fresh `RecordingSink` when omitted. */
  sink?: ExecutionSink;
}

/** Prepares and starts a run of `pipelineId`. */
export async function start(
  w: World,
  pipelineId: string,
  { options, executor, request: extra, sink }: RunOptions = {},
): Promise<ExecutionHandle> {
  const prepared = await (executor ?? w.executor(options)).prepare(
    request(w, pipelineId, extra),
  );
  return prepared.run(sink ?? new RecordingSink());
}

export interface DrainOptions {
  expectDataReady?: boolean;
  ms?: number;
}

/** Starts a run of `pipelineId` and drains it (see `drainStream`). */
export async function run(
  w: World,
  pipelineId: string,
  options: RunOptions & DrainOptions = {},
): Promise<Drained> {
  return await drainStream(await start(w, pipelineId, options), options);
}

export interface Drained {
  frames: EventFrame[];
  byType: Map<string, EventFrame[]>;
  record: ExecutionRecord;
}

/** The last progress sample of `nodeId`'s node. */
export function lastSample(
  { byType }: { byType: Map<string, EventFrame[]> },
  nodeId: string,
): EventFrame["data"] {
  return byType.get("node_progress")!.filter((f) => f.data.node_id === nodeId).at(-1)!.data;
}

/** The status `record.node_stats` gives `nodeId`. */
export function statusOf(record: ExecutionRecord, nodeId: string): string | undefined {
  return record.node_stats!.find((s) => s.node_id === nodeId)?.status;
}

/** Reads the whole stream (deadline `ms`), checks the event order, returns frames by type. */
export async function drainStream(
  handle: ExecutionHandle,
  options: DrainOptions = {},
): Promise<Drained> {
  const frames: EventFrame[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("stream did not end in time")), options.ms ?? 20_000);
  });
  try {
    await Promise.race([
      (async () => {
        for await (const frame of handle.events()) frames.push(frame);
      })(),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
  const byType = checkEventOrder(frames, { expectDataReady: options.expectDataReady });
  return { frames, byType, record: await handle.done };
}

/** Waits until `frames` has an event matching `test`, with a deadline. */
export async function waitForEvent(
  handle: ExecutionHandle,
  test: (f: EventFrame) => boolean,
  ms = 10_000,
): Promise<EventFrame> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      (async () => {
        for await (const frame of handle.events()) if (test(frame)) return frame;
        throw new Error("stream ended without the awaited event");
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("event did not arrive in time")), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
