/**
 * Pipeline SQL outside the shared lifecycle: the list and folder reads of the index, datasource
 * references of stored versions (`datasource.in_use`, the `datasource=` filter), visibility of
 * datasources from a workspace, and release check runs.
 */
import { likeLiteral } from "../lib/folder_path.ts";
import { newId } from "../lib/ids.ts";
import { toIso } from "../lib/time.ts";
import { Conditions, countOf, markers, type Queryable, readPage } from "../store/mod.ts";
import type { Counted, Page } from "../lib/paged_view.ts";

/** A list row of `GET /pipelines`: working version and status, both null when none. */
export interface PipelineListRow {
  id: string;
  name: string;
  display_name: string | null;
  description: string | null;
  owner: string;
  current_version: number | null;
  version: number | null;
  status: string | null;
  created_at: string;
  updated_at: string;
}

export interface ListFilter {
  owner?: string;
  /** Only pipelines with an open draft. */
  hasDraft?: boolean;
  datasource?: string;
  q?: string;
}

// The working version: the draft when one exists, else the pointer.
const WORKING = `COALESCE(
  (SELECT d.version FROM pipeline_versions d WHERE d.pipeline_id = p.id AND d.status = 'DRAFT'),
  p.current_version)`;

const ROW = `SELECT p.id, p.name, p.display_name, p.description, p.owner_id, p.current_version,
  p.created_at, p.updated_at, w.version AS working_version, w.status AS working_status
  FROM pipelines p
  LEFT JOIN pipeline_versions w ON w.pipeline_id = p.id AND w.version = ${WORKING}`;

function toRow(r: Record<string, unknown>): PipelineListRow {
  return {
    id: String(r.id),
    name: String(r.name),
    display_name: r.display_name === null ? null : String(r.display_name),
    description: r.description === null ? null : String(r.description),
    owner: String(r.owner_id),
    current_version: r.current_version === null ? null : Number(r.current_version),
    version: r.working_version === null ? null : Number(r.working_version),
    status: r.working_status === null ? null : String(r.working_status),
    created_at: toIso(r.created_at)!,
    updated_at: toIso(r.updated_at)!,
  };
}

/** One page of the workspace's pipelines by name, and the total of the same filter. */
export function listPipelines(
  db: Queryable,
  workspaceId: string,
  filter: ListFilter,
  page: Page,
): Promise<Counted<PipelineListRow>> {
  const w = new Conditions().add("p.workspace_id = $?", workspaceId);
  if (filter.owner) w.add("CAST(p.owner_id AS TEXT) = $?", filter.owner);
  if (filter.q) {
    w.add("LOWER(p.name) LIKE $? ESCAPE '\\'", `%${likeLiteral(filter.q.toLowerCase())}%`);
  }
  if (filter.hasDraft) {
    w.add(`EXISTS (SELECT 1 FROM pipeline_versions d WHERE d.pipeline_id = p.id
      AND d.status = 'DRAFT')`);
  }
  if (filter.datasource) {
    w.add(
      `EXISTS (SELECT 1 FROM pipeline_datasource_refs r WHERE r.pipeline_id = p.id
      AND r.version = ${WORKING} AND r.datasource = $?)`,
      filter.datasource,
    );
  }
  return readPage(
    db,
    `SELECT COUNT(*) AS n FROM pipelines p WHERE ${w.sql}`,
    `${ROW} WHERE ${w.sql} ORDER BY p.name`,
    w.params,
    page,
    toRow,
  );
}

/** Every name under `prefix` (all of them at the root). */
export async function namesUnder(
  db: Queryable,
  workspaceId: string,
  prefix: string,
): Promise<string[]> {
  const rows = prefix === ""
    ? await db.query<{ name: string }>(
      "SELECT name FROM pipelines WHERE workspace_id = $1 ORDER BY name",
      [workspaceId],
    )
    : await db.query<{ name: string }>(
      `SELECT name FROM pipelines WHERE workspace_id = $1 AND name LIKE $2 ESCAPE '\\'
       ORDER BY name`,
      [workspaceId, `${likeLiteral(prefix)}/%`],
    );
  return rows.map((r) => String(r.name));
}

/** List rows for exactly these names, in name order. */
export async function rowsByName(
  db: Queryable,
  workspaceId: string,
  names: string[],
): Promise<PipelineListRow[]> {
  if (names.length === 0) return [];
  const rows = await db.query(
    `${ROW} WHERE p.workspace_id = $1 AND p.name IN (${markers(names.length, 2)}) ORDER BY p.name`,
    [workspaceId, ...names],
  );
  return rows.map(toRow);
}

/** How many pipelines a workspace holds (`workspace.in_use`). */
export function countPipelines(db: Queryable, workspaceId: string): Promise<number> {
  return countOf(db, "SELECT COUNT(*) AS n FROM pipelines WHERE workspace_id = $1", [workspaceId]);
}

/** A datasource as a pipeline of `workspaceId` sees it: its own, or global and granted to it. */
export interface VisibleDatasource {
  name: string;
  dialect: string;
  readonly: boolean;
}

export async function visibleDatasource(
  db: Queryable,
  workspaceId: string,
  name: string,
): Promise<VisibleDatasource | undefined> {
  const row = await db.first<{ name: string; dialect: string; readonly: unknown }>(
    `SELECT d.name, d.dialect, d.readonly FROM datasources d
      WHERE d.name = $2 AND (d.workspace_id = $1 OR (d.is_global = $3 AND EXISTS (
        SELECT 1 FROM datasource_grants g WHERE g.datasource_id = d.id AND g.workspace_id = $1)))`,
    [workspaceId, name, true],
  );
  if (!row) return undefined;
  return { name: String(row.name), dialect: String(row.dialect), readonly: Boolean(row.readonly) };
}

/** Replaces the datasource references of one stored version. */
export async function recordDatasourceRefs(
  tx: Queryable,
  pipelineId: string,
  version: number,
  refs: { node_id: string; datasource: string }[],
): Promise<void> {
  await dropDatasourceRefs(tx, pipelineId, version);
  const seen = new Set<string>();
  for (const r of refs) {
    const key = `${r.node_id}\u0000${r.datasource}`;
    if (seen.has(key)) continue;
    seen.add(key);
    await tx.execute(
      `INSERT INTO pipeline_datasource_refs (pipeline_id, version, node_id, datasource)
       VALUES ($1, $2, $3, $4)`,
      [pipelineId, version, r.node_id, r.datasource],
    );
  }
}

export function dropDatasourceRefs(tx: Queryable, pipelineId: string, version: number) {
  return tx.execute(
    "DELETE FROM pipeline_datasource_refs WHERE pipeline_id = $1 AND version = $2",
    [pipelineId, version],
  );
}

/** Every stored version referencing `datasource` (the details of `datasource.in_use`). */
export async function referencesTo(db: Queryable, datasource: string) {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT p.name, r.node_id, r.version, v.status
       FROM pipeline_datasource_refs r
       JOIN pipelines p ON p.id = r.pipeline_id
       JOIN pipeline_versions v ON v.pipeline_id = r.pipeline_id AND v.version = r.version
      WHERE r.datasource = $1
      ORDER BY p.name, r.version, r.node_id`,
    [datasource],
  );
  return rows.map((r) => ({
    pipeline: String(r.name),
    node_id: String(r.node_id),
    pipeline_version: Number(r.version),
    version_status: String(r.status),
  }));
}

/** The PIPELINE-node children of a stored version: `{id, version?}` pins. */
export async function bodyOf(
  db: Queryable,
  pipelineId: string,
  version: number | null,
): Promise<Record<string, unknown> | undefined> {
  const row = version === null
    ? await db.first<{ body: string }>(
      `SELECT v.body FROM pipeline_versions v JOIN pipelines p ON p.id = v.pipeline_id
        WHERE v.pipeline_id = $1 AND v.version = COALESCE(
          (SELECT d.version FROM pipeline_versions d WHERE d.pipeline_id = $1 AND d.status = 'DRAFT'),
          p.current_version)`,
      [pipelineId],
    )
    : await db.first<{ body: string }>(
      "SELECT body FROM pipeline_versions WHERE pipeline_id = $1 AND version = $2",
      [pipelineId, version],
    );
  return row ? JSON.parse(String(row.body)) : undefined;
}

/** One release check run, as stored and served. */
export interface CheckRun {
  check_id: string;
  name: string;
  expected: unknown;
  observed: string | null;
  verdict: "pass" | "fail" | "error";
  message: string | null;
  ran_at: string;
}

export async function appendRun(
  tx: Queryable,
  pipelineId: string,
  version: number,
  run: CheckRun,
  by: string,
): Promise<void> {
  await tx.execute(
    `INSERT INTO pipeline_check_runs
       (id, pipeline_id, version, check_id, name, expected, observed, verdict, message, ran_at, ran_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      newId(),
      pipelineId,
      version,
      run.check_id,
      run.name,
      JSON.stringify(run.expected),
      run.observed,
      run.verdict,
      run.message,
      run.ran_at,
      by,
    ],
  );
}

/** The latest run per check of one version. */
export async function latestRuns(
  db: Queryable,
  pipelineId: string,
  version: number,
): Promise<Map<string, CheckRun>> {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT check_id, name, expected, observed, verdict, message, ran_at FROM pipeline_check_runs
      WHERE pipeline_id = $1 AND version = $2 ORDER BY ran_at, id`,
    [pipelineId, version],
  );
  const out = new Map<string, CheckRun>();
  for (const r of rows) {
    out.set(String(r.check_id), {
      check_id: String(r.check_id),
      name: String(r.name),
      expected: JSON.parse(String(r.expected)),
      observed: r.observed === null ? null : String(r.observed),
      verdict: String(r.verdict) as CheckRun["verdict"],
      message: r.message === null ? null : String(r.message),
      ran_at: toIso(r.ran_at)!,
    });
  }
  return out;
}

/** Runs and datasource references of a version about to be purged. */
export async function dropVersionRows(tx: Queryable, pipelineId: string, version: number) {
  await tx.execute(
    "DELETE FROM pipeline_check_runs WHERE pipeline_id = $1 AND version = $2",
    [pipelineId, version],
  );
  await dropDatasourceRefs(tx, pipelineId, version);
}
