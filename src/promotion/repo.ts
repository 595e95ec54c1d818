/**
 * Reads of the promotion inventory: the latest released version of each pipeline and template of
 * a workspace with its hash, and the workspace's endpoints. Read-only; the owning domains write.
 */
import { lastResultSchema } from "../executions/mod.ts";
import type { Queryable } from "../store/mod.ts";
import type { InventoryRow } from "./views.ts";

async function released(
  db: Queryable,
  entity: "pipelines" | "templates",
  versions: "pipeline_versions" | "template_versions",
  fk: "pipeline_id" | "template_id",
  workspaceId: string,
): Promise<(InventoryRow & { body: Record<string, unknown> })[]> {
  // The latest RELEASED version, which is the pointer unless someone switched it.
  const rows = await db.query<Record<string, unknown>>(
    `SELECT e.id, e.name, v.version, v.body_hash, v.body FROM ${entity} e
       JOIN ${versions} v ON v.${fk} = e.id
      WHERE e.workspace_id = $1 AND v.status = 'RELEASED' AND v.version = (
        SELECT MAX(x.version) FROM ${versions} x WHERE x.${fk} = e.id AND x.status = 'RELEASED')
      ORDER BY e.name`,
    [workspaceId],
  );
  return rows.map((r) => ({
    name: String(r.name),
    id: String(r.id),
    current_version: Number(r.version),
    body_hash: String(r.body_hash),
    body: JSON.parse(String(r.body)) as Record<string, unknown>,
  }));
}

/** Each pipeline's latest release, with its declared parameters and last known result columns. */
export async function releasedPipelines(db: Queryable, ws: string): Promise<InventoryRow[]> {
  const rows = await released(db, "pipelines", "pipeline_versions", "pipeline_id", ws);
  const out: InventoryRow[] = [];
  for (const { body, ...row } of rows) {
    out.push({
      ...row,
      parameters: (body.parameters ?? {}) as Record<string, unknown>,
      result_columns: await lastResultColumns(db, row.id, row.current_version),
    });
  }
  return out;
}

/**
 * The result columns of the latest successful run of a released version (its `data_ready` frame
 * in the durable event log), or null when that version never delivered a result here.
 */
export async function lastResultColumns(
  db: Queryable,
  pipelineId: string,
  version: number,
): Promise<{ name: string; type: string }[] | null> {
  const schema = await lastResultSchema(db, pipelineId, version);
  return schema?.map((c) => ({ name: String(c.name), type: String(c.type) })) ?? null;
}
export async function releasedTemplates(db: Queryable, ws: string): Promise<InventoryRow[]> {
  const rows = await released(db, "templates", "template_versions", "template_id", ws);
  return rows.map(({ body: _, ...row }) => row);
}

export async function endpointsIn(db: Queryable, workspaceId: string) {
  const rows = await db.query<Record<string, unknown>>(
    `SELECT e.path_pattern, p.name AS pipeline_name FROM endpoints e
       LEFT JOIN pipelines p ON p.id = e.pipeline_id
      WHERE e.workspace_id = $1 ORDER BY e.path_pattern`,
    [workspaceId],
  );
  return rows.map((r) => ({
    path_pattern: String(r.path_pattern),
    pipeline_name: (r.pipeline_name as string | null) ?? null,
  }));
}

export async function pipelineIdByName(
  db: Queryable,
  workspaceId: string,
  name: string,
): Promise<string | undefined> {
  const r = await db.first<{ id: string }>(
    "SELECT id FROM pipelines WHERE workspace_id = $1 AND name = $2",
    [workspaceId, name],
  );
  return r ? String(r.id) : undefined;
}
