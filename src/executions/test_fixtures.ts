/**
 * Set-up for the executions tests: a workspace, users and a pipeline row to hang executions on,
 * records in their stored shape, and the frames of a complete run, written through the real sink
 * the way the executor writes them.
 */
import { ensureSystemActor } from "../identity/mod.ts";
import { newId } from "../lib/ids.ts";
import { MemoryStore } from "../shared/mod.ts";
import type { Db, Queryable } from "../store/mod.ts";
import { insertRow, insertUser, insertWorkspace } from "../store/row_fixtures.ts";
import { createLogger } from "../lib/log.ts";
import type { EventFrame } from "./event_order.ts";
import { ExecutionHousekeeping, type HousekeepingOptions } from "./reaper.ts";
import { ExecutionRepo } from "./repo.ts";
import { DurableSink } from "./sink.ts";
import type { ExecutionRecord } from "./types.ts";

export function addPipelineRow(
  db: Queryable,
  workspaceId: string,
  ownerId: string,
  name = `p-${newId().slice(-8)}`,
): Promise<string> {
  return insertRow(db, "pipelines", { workspace_id: workspaceId, name, owner_id: ownerId });
}

/** A workspace, a user and a pipeline row of theirs: what a stored execution hangs on. */
export async function addRunRows(
  db: Queryable,
): Promise<{ workspaceId: string; userId: string; pipelineId: string }> {
  const workspaceId = await insertWorkspace(db);
  const userId = await insertUser(db);
  return { workspaceId, userId, pipelineId: await addPipelineRow(db, workspaceId, userId) };
}

/**
 * Housekeeping instances over one store, as replicas run them: quiet, a week's retention, and
 * whatever clock and heartbeat the test injects; call the answer with an instance id.
 */
export function housekeepers(
  options: Omit<HousekeepingOptions, "logger" | "instanceId" | "retentionDays">,
): (instanceId: string) => ExecutionHousekeeping {
  return (instanceId) =>
    new ExecutionHousekeeping({
      ...options,
      logger: createLogger("error", () => {}),
      instanceId,
      retentionDays: 7,
    });
}

type WorldOptions = Omit<
  HousekeepingOptions,
  "db" | "shared" | "systemActor" | "now" | "logger" | "instanceId" | "retentionDays"
>;

/**
 * The housekeeping world of one store: the rows runs hang on, an in-memory shared store, the
 * system actor and a clock the test moves. `keeper` is an instance's housekeeping on that clock
 * (with `options`, and `more` for that call); `sink` an instance's durable sink on it.
 */
export async function housekeepingWorld(db: Db, options: WorldOptions = {}) {
  const ids = await addRunRows(db);
  const shared = new MemoryStore();
  const clock = { now: Date.now() };
  const systemActor = await ensureSystemActor(db);
  const now = () => clock.now;
  const keeper = (instanceId: string, more: WorldOptions = {}) =>
    housekeepers({ db, shared, systemActor, now, ...options, ...more })(instanceId);
  const sink = (instanceId: string) =>
    new DurableSink(new ExecutionRepo(db), shared, instanceId, now);
  return { ids, shared, clock, systemActor, keeper, sink, repo: new ExecutionRepo(db) };
}

export {
  insertUser as addUserRow,
  insertWorkspace as addWorkspaceRow,
} from "../store/row_fixtures.ts";

/**
 * An instance that stalls beside its world and the others that reap it: a shared store of their
 * own (closed with the world), the stalled instance's sink, and the housekeeping of any instance,
 * ten minutes on, when the stalled one has missed every heartbeat.
 */
export async function stalledInstance(
  w: { db: Db; defer(fn: () => unknown): void },
  repo: ExecutionRepo,
) {
  const shared = new MemoryStore();
  w.defer(() => shared.close());
  const systemActor = await ensureSystemActor(w.db);
  return {
    sink: new DurableSink(repo, shared, "stalled"),
    keeper: housekeepers({
      db: w.db,
      shared,
      systemActor,
      now: () => Date.now() + 10 * 60_000,
    }),
  };
}

/** Run rows (workspace, pipeline, user) and the execution repository over their store. */
export async function runRows(db: Db) {
  return { ids: await addRunRows(db), repo: new ExecutionRepo(db) };
}

/** A RUNNING record as the executor hands it to `started`. */
export function runningRecord(
  ids: { workspaceId: string; pipelineId: string; userId: string },
  overrides: Partial<ExecutionRecord> = {},
): ExecutionRecord {
  const executionId = overrides.execution_id ?? newId();
  return {
    execution_id: executionId,
    workspace_id: ids.workspaceId,
    pipeline_id: ids.pipelineId,
    pipeline_version: 1,
    status: "RUNNING",
    draft_run: false,
    parameters: { region: "emea" },
    started_at: new Date().toISOString(),
    completed_at: null,
    duration_ms: null,
    node_stats: null,
    error: null,
    failed_node_id: null,
    correlation_id: crypto.randomUUID(),
    triggered_by: ids.userId,
    triggered_via: "REST",
    result_row_count: null,
    result_size_bytes: null,
    result_expires_at: null,
    parent_execution_id: null,
    parent_node_id: null,
    root_execution_id: executionId,
    abort_reason: null,
    ...overrides,
  };
}

/** The frames of a one-node run that succeeds (no caller node, so no data_ready). */
export function successFrames(r: ExecutionRecord): EventFrame[] {
  const base = { execution_id: r.execution_id, correlation_id: r.correlation_id };
  const at = r.started_at;
  return [
    {
      id: 1,
      event: "execution_started",
      data: { ...base, pipeline_id: r.pipeline_id, pipeline_version: 1, started_at: at },
    },
    { id: 2, event: "node_started", data: { ...base, node_id: "a", attempt: 1, started_at: at } },
    {
      id: 3,
      event: "node_progress",
      data: { ...base, node_id: "a", attempt: 1, sequence: 1, state: "executing", observed_at: at },
    },
    {
      id: 4,
      event: "node_progress",
      data: { ...base, node_id: "a", attempt: 1, sequence: 2, state: "completed", observed_at: at },
    },
    { id: 5, event: "node_completed", data: { ...base, node_id: "a", rows_out: 3 } },
    {
      id: 6,
      event: "pipeline_completed",
      data: { ...base, pipeline_id: r.pipeline_id, status: "SUCCESS", node_stats: [] },
    },
  ];
}

export function succeeded(r: ExecutionRecord, extra: Partial<ExecutionRecord> = {}) {
  return {
    ...r,
    status: "SUCCESS" as const,
    completed_at: new Date().toISOString(),
    duration_ms: 5,
    node_stats: [{
      node_id: "a",
      duration_ms: 5,
      rows_out: 3,
      bytes_out: 30,
      status: "SUCCESS" as const,
    }],
    ...extra,
  };
}
