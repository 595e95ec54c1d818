/**
 * The names of the datasources a workspace can see: its own and the global ones granted to it
 * (docs/decisions.md#global-datasources-need-a-grant). A promotion inventory lists them so a sender
 * can refuse a batch whose nodes name a datasource the target lacks before anything is sent.
 */
import type { Queryable } from "../store/mod.ts";

export async function visibleDatasourceNames(
  db: Queryable,
  workspaceId: string,
): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT d.name FROM datasources d
      WHERE d.workspace_id = $1 OR (d.is_global = $2 AND EXISTS (
        SELECT 1 FROM datasource_grants g WHERE g.datasource_id = d.id AND g.workspace_id = $1))
      ORDER BY d.name`,
    [workspaceId, true],
  );
  return rows.map((r) => String(r.name));
}
