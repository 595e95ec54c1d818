/** SQL for published endpoints (table `endpoints`, migration 0010). */
import { toIso } from "../lib/time.ts";
import { bool, countOf, type Queryable, readPage } from "../store/mod.ts";
import type { Counted, Page } from "../lib/paged_view.ts";

export interface EndpointRow {
  id: string;
  path_pattern: string;
  workspace_id: string;
  /** The workspace's name, joined for the record. */
  workspace: string;
  pipeline_id: string;
  /** Null once the pipeline is deleted. */
  pipeline_name: string | null;
  timeout_seconds: number;
  enabled: boolean;
  description: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

// The workspace's and the pipeline's names are read here, joined, because every record shows
// them; their own domains own the writes.
const SELECT = `SELECT e.*, w.name AS workspace_name, p.name AS pipeline_name
  FROM endpoints e JOIN workspaces w ON w.id = e.workspace_id
  LEFT JOIN pipelines p ON p.id = e.pipeline_id`;

function toRow(r: Record<string, unknown>): EndpointRow {
  return {
    id: String(r.id),
    path_pattern: String(r.path_pattern),
    workspace_id: String(r.workspace_id),
    workspace: String(r.workspace_name),
    pipeline_id: String(r.pipeline_id),
    pipeline_name: (r.pipeline_name as string | null) ?? null,
    timeout_seconds: Number(r.timeout_seconds),
    enabled: bool(r.enabled),
    description: (r.description as string | null) ?? null,
    created_by: String(r.created_by),
    created_at: toIso(r.created_at)!,
    updated_at: toIso(r.updated_at)!,
  };
}

/**
 * Serialises publishes: the conflict rule is wider than the unique index, so two concurrent
 * publishes must not both pass it. SQLite's writer lock (BEGIN IMMEDIATE) already does this.
 */
export async function lockForPublish(tx: Queryable): Promise<void> {
  if (tx.dialect === "postgres") {
    await tx.execute("SELECT pg_advisory_xact_lock(hashtext('svc.endpoints.publish'))");
  }
}

export async function insertEndpoint(
  db: Queryable,
  e: Omit<EndpointRow, "workspace" | "pipeline_name">,
): Promise<void> {
  await db.execute(
    `INSERT INTO endpoints (id, path_pattern, workspace_id, pipeline_id, timeout_seconds, enabled,
       description, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      e.id,
      e.path_pattern,
      e.workspace_id,
      e.pipeline_id,
      e.timeout_seconds,
      e.enabled,
      e.description,
      e.created_by,
      e.created_at,
      e.updated_at,
    ],
  );
}

/** An endpoint by its pattern, in any workspace. */
export async function findByPattern(
  db: Queryable,
  pathPattern: string,
): Promise<EndpointRow | undefined> {
  const r = await db.first<Record<string, unknown>>(`${SELECT} WHERE e.path_pattern = $1`, [
    pathPattern,
  ]);
  return r && toRow(r);
}

/** Every endpoint's pattern (the publish-time conflict check of the whole deployment). */
export async function allPatterns(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ path_pattern: string }>("SELECT path_pattern FROM endpoints");
  return rows.map((r) => String(r.path_pattern));
}

/** What the serving matcher compiles: every enabled endpoint. */
export async function servable(db: Queryable): Promise<EndpointRow[]> {
  const rows = await db.query<Record<string, unknown>>(`${SELECT} WHERE e.enabled = $1`, [true]);
  return rows.map(toRow);
}

/** What a serve checks in the store before it runs, read in one statement. */
export interface ServeState {
  /** The workspace exists and is not deactivated. */
  active: boolean;
  /** The pipeline still exists in the workspace. */
  pipeline: boolean;
  /** Its latest RELEASED version, or null when it has none. */
  latest: { version: number; bodyHash: string } | null;
}

/**
 * The workspace's state and the pinned pipeline's latest release in one read: a serve's verdict
 * needs both (a deactivated workspace is 404, a gone or unreleased pipeline 503), and one
 * statement costs a third of three. A released version's number and hash are what the serve needs; its body
 * is immutable and cached by `ReleasedVersions`.
 */
export async function serveState(
  db: Queryable,
  workspaceId: string,
  pipelineId: string,
): Promise<ServeState> {
  // With a release, the LEFT JOIN yields only released rows, so the highest version comes first.
  const r = await db.first<Record<string, unknown>>(
    `SELECT w.deactivated_at, p.id AS pipeline_id, v.version, v.body_hash
       FROM workspaces w
       LEFT JOIN pipelines p ON p.id = $2 AND p.workspace_id = w.id
       LEFT JOIN pipeline_versions v ON v.pipeline_id = p.id AND v.status = 'RELEASED'
      WHERE w.id = $1
      ORDER BY v.version DESC LIMIT 1`,
    [workspaceId, pipelineId],
  );
  if (!r) return { active: false, pipeline: false, latest: null };
  return {
    active: r.deactivated_at === null || r.deactivated_at === undefined,
    pipeline: r.pipeline_id !== null && r.pipeline_id !== undefined,
    latest: r.version === null || r.version === undefined
      ? null
      : { version: Number(r.version), bodyHash: String(r.body_hash) },
  };
}

/** A page of a workspace's endpoints by pattern, with the exact total. */
export function listInWorkspace(
  db: Queryable,
  workspaceId: string,
  page: Page,
): Promise<Counted<EndpointRow>> {
  return readPage(
    db,
    "SELECT COUNT(*) AS n FROM endpoints WHERE workspace_id = $1",
    `${SELECT} WHERE e.workspace_id = $1 ORDER BY e.path_pattern`,
    [workspaceId],
    page,
    toRow,
  );
}

/** Every endpoint of a workspace over one pipeline, by pattern. */
export async function listForPipeline(
  db: Queryable,
  workspaceId: string,
  pipelineId: string,
): Promise<EndpointRow[]> {
  const rows = await db.query<Record<string, unknown>>(
    `${SELECT} WHERE e.workspace_id = $1 AND e.pipeline_id = $2 ORDER BY e.path_pattern`,
    [workspaceId, pipelineId],
  );
  return rows.map(toRow);
}

export async function setEnabled(
  db: Queryable,
  id: string,
  enabled: boolean,
  at: string,
): Promise<void> {
  await db.execute("UPDATE endpoints SET enabled = $2, updated_at = $3 WHERE id = $1", [
    id,
    enabled,
    at,
  ]);
}

export async function deleteEndpoint(db: Queryable, id: string): Promise<void> {
  await db.execute("DELETE FROM endpoints WHERE id = $1", [id]);
}

/** Endpoints in a workspace (it cannot be deleted while it publishes any). */
export function countInWorkspace(db: Queryable, workspaceId: string): Promise<number> {
  return countOf(db, "SELECT COUNT(*) AS n FROM endpoints WHERE workspace_id = $1", [workspaceId]);
}

/**
 * Whether an `endpoint.served` row pairs the key (`svck_…`) with the execution: the only way an
 * endpoint-kind key may read an execution
 * (docs/decisions.md#every-serve-is-recorded-before-its-answer). Uses the partial index of 0010.
 */
export async function keyStartedExecution(
  db: Queryable,
  keyId: string,
  executionId: string,
): Promise<boolean> {
  const field = (name: string) =>
    db.dialect === "postgres"
      ? `((details::jsonb) ->> '${name}')`
      : `json_extract(details, '$.${name}')`;
  const r = await db.first(
    `SELECT 1 AS one FROM audit_log
     WHERE event = 'endpoint.served' AND ${field("execution_id")} = $1 AND ${field("key_id")} = $2
     LIMIT 1`,
    [executionId, keyId],
  );
  return r !== undefined;
}
