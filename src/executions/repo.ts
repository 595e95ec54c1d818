/**
 * The executions table and its durable events (migrations 0008, 0011, 0012). SQL only: the sink,
 * the service and the reaper decide when to call these. JSON columns are text on both stores;
 * timestamps are ISO text on SQLite and TIMESTAMPTZ on PostgreSQL, normalised by `toIso` on the
 * way out.
 */
import { toIso } from "../lib/time.ts";
import type { Queryable, Row, RowInsert, SqlValue } from "../store/mod.ts";
import { bool, Conditions, countOf, markers, readPage, rowInsertSql } from "../store/mod.ts";
import type { EventFrame } from "./event_order.ts";
import { frameJson } from "./frame_json.ts";
import { batchFrames, FRAMES, type RunConstants } from "./frame_batch.ts";
import { PACKED, unpackFrames } from "./packed_events.ts";
import type { AbortReason, ExecutionRecord, ExecutionStatus, TriggeredVia } from "./types.ts";
import type { Counted } from "../lib/paged_view.ts";

/** A stored execution with the bookkeeping the record itself does not show. */
export interface StoredExecution {
  record: ExecutionRecord;
  instanceId: string;
  heartbeatAt: string;
  abortedBy: string | null;
}

export interface ExecutionFilter {
  workspaceId: string;
  /** Only executions this user triggered (everyone but a super admin). */
  triggeredBy?: string;
  pipelineId?: string;
  status?: ExecutionStatus;
  startedAfter?: string;
  startedBefore?: string;
  triggeredVia?: TriggeredVia;
  /** Only runs nobody's PIPELINE node started (the history nests child runs under them). */
  topLevel?: boolean;
}

function filterConditions(f: ExecutionFilter): Conditions {
  const w = new Conditions().add("workspace_id = $?", f.workspaceId).addGiven({
    "triggered_by = $?": f.triggeredBy,
    "pipeline_id = $?": f.pipelineId,
    "status = $?": f.status,
    "started_at > $?": f.startedAfter,
    "started_at < $?": f.startedBefore,
    "triggered_via = $?": f.triggeredVia,
  });
  if (f.topLevel) w.add("parent_execution_id IS NULL");
  return w;
}

const COLUMNS = `id, workspace_id, pipeline_id, pipeline_version, status, draft_run, parameters,
  started_at, completed_at, duration_ms, node_stats, error, failed_node_id, correlation_id,
  triggered_by, triggered_via, result_row_count, result_size_bytes, result_expires_at,
  parent_execution_id, parent_node_id, root_execution_id, abort_reason, aborted_by, instance_id,
  heartbeat_at`;

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
const parse = (v: unknown) => (v === null || v === undefined ? null : JSON.parse(String(v)));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function fromRow(r: Row): StoredExecution {
  return {
    record: {
      execution_id: String(r.id),
      workspace_id: String(r.workspace_id),
      pipeline_id: String(r.pipeline_id),
      pipeline_version: Number(r.pipeline_version),
      status: String(r.status) as ExecutionStatus,
      draft_run: bool(r.draft_run),
      parameters: parse(r.parameters) ?? {},
      started_at: toIso(r.started_at)!,
      completed_at: toIso(r.completed_at),
      duration_ms: num(r.duration_ms),
      node_stats: parse(r.node_stats),
      error: parse(r.error),
      failed_node_id: (r.failed_node_id as string | null) ?? null,
      correlation_id: r.correlation_id === null ? null : String(r.correlation_id),
      triggered_by: String(r.triggered_by),
      triggered_via: String(r.triggered_via) as TriggeredVia,
      result_row_count: num(r.result_row_count),
      result_size_bytes: num(r.result_size_bytes),
      result_expires_at: toIso(r.result_expires_at),
      parent_execution_id: r.parent_execution_id === null ? null : String(r.parent_execution_id),
      parent_node_id: (r.parent_node_id as string | null) ?? null,
      root_execution_id: String(r.root_execution_id),
      abort_reason: (r.abort_reason as AbortReason | null) ?? null,
    },
    instanceId: String(r.instance_id),
    heartbeatAt: toIso(r.heartbeat_at)!,
    abortedBy: r.aborted_by === null ? null : String(r.aborted_by),
  };
}

/** The final-state columns, in the order `finish` binds them from $2. */
function finalValues(r: ExecutionRecord): SqlValue[] {
  return [
    r.status,
    r.completed_at,
    r.duration_ms,
    json(r.node_stats),
    json(r.error),
    r.failed_node_id,
    r.result_row_count,
    r.result_size_bytes,
    r.result_expires_at,
    r.abort_reason,
  ];
}

/** A new execution's row (RUNNING, on `instanceId`, last heartbeat `now`). */
export function executionRow(r: ExecutionRecord, instanceId: string, now: string): RowInsert {
  return {
    table: "executions",
    columns: COLUMNS,
    values: [
      r.execution_id,
      r.workspace_id,
      r.pipeline_id,
      r.pipeline_version,
      r.status,
      r.draft_run,
      JSON.stringify(r.parameters),
      r.started_at,
      r.completed_at,
      r.duration_ms,
      json(r.node_stats),
      json(r.error),
      r.failed_node_id,
      r.correlation_id,
      r.triggered_by,
      r.triggered_via,
      r.result_row_count,
      r.result_size_bytes,
      r.result_expires_at,
      r.parent_execution_id,
      r.parent_node_id,
      r.root_execution_id,
      r.abort_reason,
      null,
      instanceId,
      now,
    ],
  };
}

/** Newest first along executions_by_pipeline (migration 0013), not over every execution. */
export const LAST_SUCCESS_SQL = `SELECT id FROM executions
  WHERE pipeline_id = $1 AND pipeline_version = $2 AND draft_run = $3 AND status = 'SUCCESS'
  ORDER BY started_at DESC LIMIT 1`;

/**
 * The result schema (`data_ready`'s `schema`) of the latest successful released run of a
 * pipeline version, read from its stored frames (packed ones too); null when there is none.
 */
export async function lastResultSchema(
  db: Queryable,
  pipelineId: string,
  version: number,
): Promise<{ name: unknown; type: unknown }[] | null> {
  const last = await db.first<{ id: string }>(LAST_SUCCESS_SQL, [pipelineId, version, false]);
  if (!last) return null;
  const frames = await new ExecutionRepo(db).events(String(last.id));
  const ready = frames.find((f) => f.event === "data_ready");
  return ready ? (ready.data.schema ?? []) as { name: unknown; type: unknown }[] : null;
}

/** A run's constants as its record stores them (frame_batch.ts puts them back into payloads). */
export function runConstants(
  executionId: string,
  r: { pipeline_id: unknown; correlation_id: unknown },
): RunConstants {
  return {
    execution_id: executionId,
    pipeline_id: String(r.pipeline_id),
    correlation_id: r.correlation_id === null ? null : String(r.correlation_id),
  };
}

/** The last frame id a row holds: a batch row's `last_event_id`, else its own (migration 0016). */
const LAST_ID = "COALESCE(last_event_id, event_id)";

/** A lone frame's durable row (the reaper's ending; a run's frames go in batches, journal.ts). */
export function eventRow(executionId: string, frame: EventFrame, observedAt: string): RowInsert {
  return {
    table: "execution_events",
    columns: "execution_id, event_id, event_type, data, observed_at",
    values: [executionId, frame.id, frame.event, frameJson(frame), observedAt],
  };
}

/**
 * How far past the cutoff the sweep's id range reaches: an id may be minted ahead of the clock that
 * stamps its frames (a millisecond borrowed in a burst, a reaping instance whose clock is behind).
 * A frame beyond it is only swept a round later, never early: observed_at decides.
 */
const ID_CLOCK_SLACK_MS = 60_000;

/** Ids per heartbeat statement: far inside both stores' limits on bound values. */
const HEARTBEAT_IDS = 500;

/** The smallest UUIDv7 of millisecond `ms` (lib/ids.ts): every id minted before it sorts below. */
export function idFloor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/**
 * The runs of a pipeline (of one version when `$2` is given) and, at any depth, the child runs they
 * started (executions_by_parent): what a purge takes with a draft
 * (docs/decisions.md#purging-a-draft-takes-its-runs).
 */
function runTrees(version: number | undefined): string {
  return `WITH RECURSIVE doomed (id) AS (
      SELECT id FROM executions
      WHERE pipeline_id = $1${version === undefined ? "" : " AND pipeline_version = $2"}
      UNION
      SELECT e.id FROM executions e JOIN doomed d ON e.parent_execution_id = d.id)`;
}

export class ExecutionRepo {
  constructor(readonly db: Queryable) {}

  async insert(r: ExecutionRecord, instanceId: string, now: string): Promise<void> {
    const row = executionRow(r, instanceId, now);
    await this.db.execute(rowInsertSql(row), row.values);
  }

  /**
   * Writes the final record of a run still RUNNING; false when it was already terminal (the
   * reaper got there first, and its verdict stands).
   */
  async finish(r: ExecutionRecord, abortedBy: string | null = null): Promise<boolean> {
    const changed = await this.db.execute(
      // The version and draft flag are the started record's (they never change): naming them
      // here would make SQLite rewrite executions_by_pipeline's entry on every run's end.
      `UPDATE executions SET status = $2, completed_at = $3, duration_ms = $4, node_stats = $5,
         error = $6, failed_node_id = $7, result_row_count = $8, result_size_bytes = $9,
         result_expires_at = $10, abort_reason = $11, aborted_by = $12
       WHERE id = $1 AND status = 'RUNNING'`,
      [r.execution_id, ...finalValues(r), abortedBy],
    );
    return changed > 0;
  }

  async get(executionId: string): Promise<StoredExecution | undefined> {
    const row = await this.db.first(`SELECT ${COLUMNS} FROM executions WHERE id = $1`, [
      executionId,
    ]);
    return row ? fromRow(row) : undefined;
  }

  list(
    f: ExecutionFilter,
    offset: number,
    limit: number,
  ): Promise<Counted<ExecutionRecord>> {
    const w = filterConditions(f);
    return readPage(
      this.db,
      `SELECT COUNT(*) AS n FROM executions WHERE ${w.sql}`,
      `SELECT ${COLUMNS} FROM executions WHERE ${w.sql} ORDER BY started_at DESC, id DESC`,
      w.params,
      { offset, limit },
      (r) => fromRow(r).record,
    );
  }

  /**
   * The newest `limit` executions matching, newest first. Unlike `list` nothing is counted: a
   * glance at the latest runs (the dashboard) costs `limit` rows, however many runs there are.
   */
  async latest(f: ExecutionFilter, limit: number): Promise<ExecutionRecord[]> {
    const w = filterConditions(f);
    const rows = await this.db.query(
      `SELECT ${COLUMNS} FROM executions WHERE ${w.sql} ORDER BY started_at DESC, id DESC
       LIMIT $${w.params.length + 1}`,
      [...w.params, limit],
    );
    return rows.map((r) => fromRow(r).record);
  }

  /** Whether any execution matches: the first one found ends the search, nothing is counted. */
  async exists(f: ExecutionFilter): Promise<boolean> {
    const w = filterConditions(f);
    return (await this.db.first(
      `SELECT 1 AS x FROM executions WHERE ${w.sql} LIMIT 1`,
      w.params,
    )) !==
      undefined;
  }

  /**
   * The runs PIPELINE nodes of `parentIds` started, oldest first (executions_by_parent), only
   * `triggeredBy`'s when given (a child runs as its parent's starter, so this only narrows).
   */
  async children(parentIds: readonly string[], triggeredBy?: string): Promise<ExecutionRecord[]> {
    if (parentIds.length === 0) return [];
    const w = new Conditions().add(`parent_execution_id IN (${markers(parentIds.length)})`);
    w.params.push(...parentIds);
    if (triggeredBy) w.add("triggered_by = $?", triggeredBy);
    const rows = await this.db.query(
      `SELECT ${COLUMNS} FROM executions WHERE ${w.sql} ORDER BY started_at, id`,
      w.params,
    );
    return rows.map((r) => fromRow(r).record);
  }

  /** Who triggered executions in a workspace (the history's "who" choices), at most `limit`. */
  async triggerers(workspaceId: string, limit = 500): Promise<string[]> {
    const rows = await this.db.query(
      `SELECT DISTINCT triggered_by FROM executions WHERE workspace_id = $1 LIMIT ${limit}`,
      [workspaceId],
    );
    return rows.map((r) => String(r.triggered_by));
  }

  /** RUNNING executions of one user, on every instance but `exceptInstance` when given. */
  async countRunning(userId: string, exceptInstance?: string): Promise<number> {
    // Two ranges of executions_running_by_user around the instance, not `<>`: that reads every
    // entry of the user's own runs here (fifty at the endpoint bench's load) to count none.
    return await countOf(
      this.db,
      `SELECT (SELECT COUNT(*) FROM executions WHERE triggered_by = $1 AND status = 'RUNNING'
                 AND instance_id < $2)
            + (SELECT COUNT(*) FROM executions WHERE triggered_by = $1 AND status = 'RUNNING'
                 AND instance_id > $2) AS n`,
      [userId, exceptInstance ?? ""],
    );
  }

  async appendEvent(executionId: string, frame: EventFrame, observedAt: string): Promise<void> {
    const row = eventRow(executionId, frame, observedAt);
    await this.db.execute(rowInsertSql(row), row.values);
  }

  /**
   * Stored frames after `afterId`, in emission order: lone frame rows (the reaper's), batch rows
   * (frame_batch.ts) and a packed stream (packed_events.ts) alike.
   */
  async events(executionId: string, afterId = -1): Promise<EventFrame[]> {
    // The run's record names the constants a batch row cut from its payloads (frame_batch.ts).
    const rows = await this.db.query<
      {
        event_id: unknown;
        event_type: string;
        data: string;
        packed: Uint8Array | null;
        pipeline_id: unknown;
        correlation_id: unknown;
      }
    >(
      `SELECT e.event_id, e.event_type, e.data, e.packed, x.pipeline_id, x.correlation_id
       FROM execution_events e JOIN executions x ON x.id = e.execution_id
       WHERE e.execution_id = $1 AND COALESCE(e.last_event_id, e.event_id) > $2
       ORDER BY e.event_id`,
      [executionId, afterId],
    );
    return rows.flatMap((r) => {
      if (r.event_type === FRAMES) {
        return batchFrames(r.data, runConstants(executionId, r), afterId);
      }
      if (r.event_type === PACKED && r.packed) return unpackFrames(r.packed, afterId);
      return [{ id: Number(r.event_id), event: r.event_type, data: JSON.parse(r.data) }];
    });
  }

  /** The id of the run's last stored frame; -1 before the first. */
  async lastEventId(executionId: string): Promise<number> {
    const row = await this.db.first<{ n: unknown }>(
      `SELECT MAX(${LAST_ID}) AS n FROM execution_events WHERE execution_id = $1`,
      [executionId],
    );
    return row?.n === null || row?.n === undefined ? -1 : Number(row.n);
  }

  /**
   * Proves this instance still runs its executions: `ids` only when given (the runs it still
   * holds; a record it gave up on goes stale, and a reaper takes it), else every RUNNING one.
   */
  async heartbeat(instanceId: string, now: string, ids?: readonly string[]): Promise<void> {
    const beat = (only = "") => {
      const running = `instance_id = $1 AND status = 'RUNNING'${only}`;
      // On PostgreSQL a row another transaction holds (this instance's group commit writing the
      // run's frames or its end) is skipped, not waited for: a heartbeat that waited took row
      // locks in its own order, against the batch's, and the two could deadlock. The skipped
      // run is being written by a live instance; the next beat covers it.
      return this.db.dialect === "postgres"
        ? `UPDATE executions SET heartbeat_at = $2 WHERE id IN
             (SELECT id FROM executions WHERE ${running} FOR UPDATE SKIP LOCKED)`
        : `UPDATE executions SET heartbeat_at = $2 WHERE ${running}`;
    };
    if (ids === undefined) {
      await this.db.execute(beat(), [instanceId, now]);
      return;
    }
    for (let i = 0; i < ids.length; i += HEARTBEAT_IDS) {
      const chunk = ids.slice(i, i + HEARTBEAT_IDS);
      await this.db.execute(beat(` AND id IN (${markers(chunk.length, 3)})`), [
        instanceId,
        now,
        ...chunk,
      ]);
    }
  }

  /**
   * RUNNING executions whose instance has not beaten since `before`, other than `exceptInstance`'s
   * (the asking instance is alive: a stall that delayed its own heartbeat is no death).
   */
  async staleRunning(before: string, exceptInstance = ""): Promise<StoredExecution[]> {
    const rows = await this.db.query(
      `SELECT ${COLUMNS} FROM executions WHERE status = 'RUNNING' AND heartbeat_at < $1
       AND instance_id <> $2`,
      [before, exceptInstance],
    );
    return rows.map(fromRow);
  }

  /** The runs a purge of `pipelineId` (`version` alone when given) takes, child runs included. */
  async runTrees(
    pipelineId: string,
    version?: number,
  ): Promise<{ id: string; status: ExecutionStatus; started_at: string }[]> {
    const params = version === undefined ? [pipelineId] : [pipelineId, version];
    const rows = await this.db.query(
      `${runTrees(version)}
       SELECT id, status, started_at FROM executions WHERE id IN (SELECT id FROM doomed)`,
      params,
    );
    return rows.map((r) => ({
      id: String(r.id),
      status: String(r.status) as ExecutionStatus,
      started_at: toIso(r.started_at)!,
    }));
  }

  /**
   * Deletes those runs, their events with them (ON DELETE CASCADE); returns how many runs went.
   * One statement: a parent and its children go together, so the self-reference holds at its end.
   */
  async deleteRunTrees(pipelineId: string, version?: number): Promise<number> {
    const params = version === undefined ? [pipelineId] : [pipelineId, version];
    return await this.db.execute(
      `${runTrees(version)}
       DELETE FROM executions WHERE id IN (SELECT id FROM doomed)`,
      params,
    );
  }

  /** The node ids of a pipeline version's body, in body order; empty when it is gone. */
  async nodeIds(pipelineId: string, version: number): Promise<string[]> {
    const row = await this.db.first<{ body: string }>(
      `SELECT body FROM pipeline_versions WHERE pipeline_id = $1 AND version = $2`,
      [pipelineId, version],
    );
    try {
      const nodes = JSON.parse(row?.body ?? "{}").nodes;
      return Array.isArray(nodes) ? nodes.map((n: { id: unknown }) => String(n.id)) : [];
    } catch {
      return [];
    }
  }

  /**
   * Deletes durable events observed before `cutoff`; returns how many went. No index on
   * observed_at (a write per frame for an hourly sweep): an event is observed after its run's id
   * was minted, and ids are time-ordered, so the primary key's range below `cutoff`'s id holds
   * every such event, plus the frames of runs still going then, which observed_at keeps.
   */
  async deleteEventsBefore(cutoff: string, limit?: number): Promise<number> {
    const where = `execution_id < $1 AND observed_at < $2`;
    return await this.db.execute(
      limit === undefined
        ? `DELETE FROM execution_events WHERE ${where}`
        // At most `limit` rows: the sweep deletes a busy week's frames in short transactions.
        : `DELETE FROM execution_events WHERE (execution_id, event_id) IN (
             SELECT execution_id, event_id FROM execution_events WHERE ${where} LIMIT ${limit})`,
      [idFloor(Date.parse(cutoff) + ID_CLOCK_SLACK_MS), cutoff],
    );
  }
}
