/**
 * SQL for learned facts. Demotions are single guarded UPDATEs: the WHERE clause names the trust
 * levels a row may leave, so a second run changes nothing (idempotent) and a demoted row never
 * moves back (one-way).
 */
import { toIso } from "../../lib/time.ts";
import { markers, type Queryable, type Row, type SqlValue } from "../../store/mod.ts";
import type { FactRecord, FactScope, FactTrust } from "./types.ts";

const opt = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function toRecord(r: Row): FactRecord {
  return {
    id: String(r.id),
    scope: String(r.scope) as FactScope,
    kind: String(r.kind),
    fact: String(r.fact),
    trust: String(r.trust) as FactTrust,
    drift: opt(r.drift),
    evidence_summary: opt(r.evidence_summary),
    recorded_via: String(r.recorded_via),
    recorded_at: toIso(r.recorded_at)!,
    recorded_by: opt(r.recorded_by),
    workspace_id: String(r.workspace_id),
    source_pipeline: r.source_pipeline_id
      ? { id: String(r.source_pipeline_id), name: String(r.source_pipeline_name ?? "") }
      : null,
    datasource_id: String(r.datasource_id),
    datasource_name: String(r.datasource_name),
    schema: opt(r.schema_name),
    table: opt(r.table_name),
    column: opt(r.column_name),
    column_fingerprint: opt(r.column_fingerprint),
    retired_at: toIso(r.retired_at),
  };
}

export async function insertFact(db: Queryable, f: FactRecord): Promise<void> {
  await db.execute(
    `INSERT INTO learned_facts (id, scope, kind, fact, trust, drift, evidence_summary, recorded_via,
       recorded_at, recorded_by, workspace_id, source_pipeline_id, source_pipeline_name,
       datasource_id, datasource_name, schema_name, table_name, column_name, column_fingerprint)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)`,
    [
      f.id,
      f.scope,
      f.kind,
      f.fact,
      f.trust,
      f.drift,
      f.evidence_summary,
      f.recorded_via,
      f.recorded_at,
      f.recorded_by,
      f.workspace_id,
      f.source_pipeline?.id ?? null,
      f.source_pipeline?.name ?? null,
      f.datasource_id,
      f.datasource_name,
      f.schema,
      f.table,
      f.column,
      f.column_fingerprint,
    ],
  );
}

/** A live (not retired) fact by id. */
export async function findLiveFact(db: Queryable, id: string): Promise<FactRecord | undefined> {
  const row = await db.first(
    "SELECT * FROM learned_facts WHERE id = $1 AND retired_at IS NULL",
    [id],
  );
  return row && toRecord(row);
}

/**
 * Live facts the workspace may see on the given datasources: their DATASOURCE facts plus the
 * workspace's own WORKSPACE facts. Oldest first.
 */
export async function listVisibleFacts(
  db: Queryable,
  workspaceId: string,
  datasourceIds: string[],
): Promise<FactRecord[]> {
  if (datasourceIds.length === 0) return [];
  const rows = await db.query(
    `SELECT * FROM learned_facts
     WHERE retired_at IS NULL AND datasource_id IN (${markers(datasourceIds.length, 2)})
       AND (scope = 'DATASOURCE' OR (scope = 'WORKSPACE' AND workspace_id = $1))
     ORDER BY recorded_at, id`,
    [workspaceId, ...datasourceIds] as SqlValue[],
  );
  return rows.map(toRecord);
}

/** Live facts on one table that may still be demoted (any workspace: drift is a property of data). */
export async function liveTableFacts(
  db: Queryable,
  datasourceId: string,
): Promise<FactRecord[]> {
  const rows = await db.query(
    `SELECT * FROM learned_facts
     WHERE retired_at IS NULL AND datasource_id = $1 AND table_name IS NOT NULL
       AND trust <> 'stale'`,
    [datasourceId],
  );
  return rows.map(toRecord);
}

/**
 * needs_review for drifted fingerprints on one table; rows already demoted are left alone. A fact
 * without a schema, or a check without one, matches the table in any schema (as on read).
 */
export function markNeedsReview(
  db: Queryable,
  datasourceId: string,
  schema: string | null,
  table: string,
  fingerprint: string,
  drift: string,
): Promise<number> {
  return db.execute(
    `UPDATE learned_facts SET trust = 'needs_review', drift = $5
     WHERE retired_at IS NULL AND datasource_id = $1
       AND ($2 = '' OR schema_name IS NULL OR schema_name = $2) AND table_name = $3 AND column_fingerprint IS NOT NULL AND column_fingerprint <> $4
       AND trust IN ('asserted', 'observed', 'verified')`,
    [datasourceId, schema ?? "", table, fingerprint, drift],
  );
}

/** stale for one fact whose table is gone; a row already stale is left alone. */
export function markStale(db: Queryable, id: string, drift: string): Promise<number> {
  return db.execute(
    `UPDATE learned_facts SET trust = 'stale', drift = $2
     WHERE id = $1 AND retired_at IS NULL AND trust <> 'stale'`,
    [id, drift],
  );
}

/** Retires a live fact; 1, or 0 when it was already retired. */
export function retire(db: Queryable, id: string, by: string | null, now: string): Promise<number> {
  return db.execute(
    "UPDATE learned_facts SET retired_at = $2, retired_by = $3 WHERE id = $1 AND retired_at IS NULL",
    [id, now, by],
  );
}
