/**
 * Serving facts, and the drift check that runs before serving.
 *
 * Visibility: every live DATASOURCE fact on a datasource the workspace can see, plus the
 * workspace's own WORKSPACE facts; retired facts never. `conflict` is computed on read among the
 * facts the reader is served (a fact the reader cannot see neither shows nor flags): two or more
 * live facts of one kind on the same references (datasource, schema, table, column) all carry it.
 *
 * Drift (one-way, idempotent, written back before serving):
 * - `/columns` of a table recomputes that table's fingerprint; a live fact recorded with a
 *   different one becomes `needs_review` (the table is still there but changed shape);
 * - a complete `/tables` listing (no schema filter, not truncated) marks a live fact `stale` when
 *   its table is no longer listed (the thing it describes is gone). `stale` is final;
 *   `needs_review` can still fall to `stale`; nothing ever moves back up.
 */
import type { Queryable } from "../../store/mod.ts";
import { columnFingerprint } from "./fingerprint.ts";
import { listVisibleFacts, liveTableFacts, markNeedsReview, markStale } from "./repo.ts";
import {
  type FactDatasource,
  type FactRecord,
  type FactViewer,
  type FingerprintColumn,
  type ServedFact,
  WORKSPACE_RULE_KINDS,
} from "./types.ts";

const refKey = (f: FactRecord) =>
  JSON.stringify([f.kind, f.datasource_id, f.schema, f.table, f.column]);

/** Stored rows → served facts, with `conflict` and the pipeline shown only where readable. */
export async function serveFacts(viewer: FactViewer, records: FactRecord[]): Promise<ServedFact[]> {
  const counts = new Map<string, number>();
  for (const r of records) counts.set(refKey(r), (counts.get(refKey(r)) ?? 0) + 1);
  const out: ServedFact[] = [];
  for (const r of records) {
    const fact: ServedFact = {
      id: r.id,
      scope: r.scope,
      kind: r.kind,
      fact: r.fact,
      trust: r.trust,
      recorded_via: r.recorded_via,
      recorded_at: r.recorded_at,
      from_this_workspace: r.workspace_id === viewer.workspaceId,
      conflict: (counts.get(refKey(r)) ?? 0) > 1,
    };
    if (r.drift !== null) fact.drift = r.drift;
    if (r.evidence_summary !== null) fact.evidence_summary = r.evidence_summary;
    if (r.source_pipeline) {
      const readable = fact.from_this_workspace ||
        (await viewer.canReadPipeline?.(r.source_pipeline.id)) === true;
      if (readable) fact.source_pipeline = r.source_pipeline;
    }
    out.push(fact);
  }
  return out;
}

/** The live facts the viewer may see on `datasourceIds` (default: every visible datasource). */
export async function visibleFactRecords(
  db: Queryable,
  viewer: FactViewer,
  datasourceIds?: string[],
): Promise<FactRecord[]> {
  const visible = new Set(viewer.visibleDatasourceIds);
  const ids = (datasourceIds ?? [...visible]).filter((id) => visible.has(id));
  return await listVisibleFacts(db, viewer.workspaceId, ids);
}

/** Every fact the viewer may see (the `semantics_list` shape), optionally on one datasource. */
export async function listFacts(
  db: Queryable,
  viewer: FactViewer,
  datasourceId?: string,
): Promise<ServedFact[]> {
  const records = await visibleFactRecords(db, viewer, datasourceId ? [datasourceId] : undefined);
  return await serveFacts(viewer, records);
}

/**
 * `GET /datasources/{name}` and list rows: `facts` are the datasource-wide facts (DATASOURCE scope,
 * no table reference), `definitions` the workspace's own rules naming this datasource.
 */
export async function factsForDatasource(
  db: Queryable,
  viewer: FactViewer,
  datasource: FactDatasource,
): Promise<{ facts: ServedFact[]; definitions: ServedFact[] }> {
  const records = await visibleFactRecords(db, viewer, [datasource.id]);
  const wide = records.filter((r) => r.scope === "DATASOURCE" && r.table === null);
  const rules = records.filter((r) =>
    r.scope === "WORKSPACE" && (WORKSPACE_RULE_KINDS as readonly string[]).includes(r.kind)
  );
  return { facts: await serveFacts(viewer, wide), definitions: await serveFacts(viewer, rules) };
}

const sameSchema = (fact: string | null, schema: string | null | undefined) =>
  fact === null || schema === undefined || schema === null || fact === schema;

/** Demotes drifted facts of one table to `needs_review`; returns how many rows changed. */
export async function checkColumnDrift(
  db: Queryable,
  datasourceId: string,
  schema: string | null,
  table: string,
  columns: FingerprintColumn[],
): Promise<number> {
  const fingerprint = columnFingerprint(columns);
  const where = schema ? `${schema}.${table}` : table;
  return await markNeedsReview(
    db,
    datasourceId,
    schema,
    table,
    fingerprint,
    `the columns of ${where} changed since the fact was recorded (now ${fingerprint})`,
  );
}

/**
 * Marks `stale` every live fact whose table is missing from a complete listing; a partial listing
 * (schema filter or truncated) proves nothing and changes nothing. Returns how many rows changed.
 */
export async function checkTableDrift(
  db: Queryable,
  datasourceId: string,
  listing: { schema: string | null; name: string }[],
  complete: boolean,
): Promise<number> {
  if (!complete) return 0;
  let changed = 0;
  for (const fact of await liveTableFacts(db, datasourceId)) {
    const present = listing.some((t) => t.name === fact.table && sameSchema(fact.schema, t.schema));
    if (present) continue;
    const where = fact.schema ? `${fact.schema}.${fact.table}` : fact.table;
    changed += await markStale(db, fact.id, `the table ${where} is no longer listed`);
  }
  return changed;
}

/** Table-grain facts (a table reference, no column) keyed `schema\u0000table`. */
function tableKey(schema: string | null, table: string): string {
  return `${schema ?? ""}\u0000${table}`;
}

/**
 * `/tables`: runs the stale check on a complete listing, then attaches each table's table-grain
 * facts as `facts` (omitted when none).
 */
export async function attachTableFacts<T extends { schema: string; name: string }>(
  db: Queryable,
  viewer: FactViewer,
  datasourceId: string,
  tables: T[],
  listing: { complete: boolean },
): Promise<(T & { facts?: ServedFact[] })[]> {
  await checkTableDrift(db, datasourceId, tables, listing.complete);
  const records = (await visibleFactRecords(db, viewer, [datasourceId]))
    .filter((r) => r.table !== null && r.column === null);
  const byTable = new Map<string, FactRecord[]>();
  for (const r of records) {
    for (const t of tables) {
      if (t.name !== r.table || !sameSchema(r.schema, t.schema)) continue;
      const key = tableKey(t.schema, t.name);
      byTable.set(key, [...(byTable.get(key) ?? []), r]);
    }
  }
  const out: (T & { facts?: ServedFact[] })[] = [];
  for (const t of tables) {
    const mine = byTable.get(tableKey(t.schema, t.name));
    out.push(mine ? { ...t, facts: await serveFacts(viewer, mine) } : { ...t });
  }
  return out;
}

/**
 * `/columns`: runs the fingerprint check for the table, then attaches column-grain facts to each
 * column as `facts` (omitted when none); table-grain facts come back beside them.
 */
export async function attachColumnFacts<T extends FingerprintColumn>(
  db: Queryable,
  viewer: FactViewer,
  datasourceId: string,
  schema: string | null,
  table: string,
  columns: T[],
): Promise<{ columns: (T & { facts?: ServedFact[] })[]; table_facts: ServedFact[] }> {
  await checkColumnDrift(db, datasourceId, schema, table, columns);
  const records = (await visibleFactRecords(db, viewer, [datasourceId]))
    .filter((r) => r.table === table && sameSchema(r.schema, schema));
  const out: (T & { facts?: ServedFact[] })[] = [];
  for (const c of columns) {
    const mine = records.filter((r) => r.column === c.name);
    out.push(mine.length > 0 ? { ...c, facts: await serveFacts(viewer, mine) } : { ...c });
  }
  const tableFacts = await serveFacts(viewer, records.filter((r) => r.column === null));
  return { columns: out, table_facts: tableFacts };
}
