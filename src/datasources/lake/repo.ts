/**
 * SQL for the lake-table registry: one row per (datasource, namespace, name), the namespace stored
 * dotted. The unique key settles races between two registrations of one triple.
 */
import { newId } from "../../lib/ids.ts";
import { toIso } from "../../lib/time.ts";
import type { Queryable, Row } from "../../store/mod.ts";
import type { LakeFormat, LakeTableRow } from "./types.ts";

function toRow(r: Row): LakeTableRow {
  const row: LakeTableRow = {
    namespace: String(r.namespace).split("."),
    name: String(r.name),
    format: String(r.format) as LakeFormat,
    location: String(r.location),
    created_at: toIso(r.created_at)!,
  };
  if (r.partition_column !== null && r.partition_column !== undefined) {
    row.partition_column = String(r.partition_column);
  }
  return row;
}

/** Every table of a datasource, ordered by namespace then name. */
export async function listTables(db: Queryable, datasourceId: string): Promise<LakeTableRow[]> {
  const rows = await db.query(
    "SELECT * FROM lake_tables WHERE datasource_id = $1 ORDER BY namespace, name",
    [datasourceId],
  );
  return rows.map(toRow);
}

export async function findTable(
  db: Queryable,
  datasourceId: string,
  namespace: string,
  name: string,
): Promise<LakeTableRow | undefined> {
  const row = await db.first(
    "SELECT * FROM lake_tables WHERE datasource_id = $1 AND namespace = $2 AND name = $3",
    [datasourceId, namespace, name],
  );
  return row && toRow(row);
}

/** Inserts a row; a taken triple raises the unique violation the caller maps to 409. */
export async function insertTable(
  db: Queryable,
  datasource: { id: string; name: string },
  table: Omit<LakeTableRow, "namespace"> & { namespace: string },
  createdBy: string | null,
): Promise<void> {
  await db.execute(
    `INSERT INTO lake_tables (id, datasource_id, datasource_name, namespace, name, format, location,
                              partition_column, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      newId(),
      datasource.id,
      datasource.name,
      table.namespace,
      table.name,
      table.format,
      table.location,
      table.partition_column ?? null,
      createdBy,
      table.created_at,
    ],
  );
}

/** Deletes one triple; the number of rows removed (0 or 1). */
export function deleteTable(
  db: Queryable,
  datasourceId: string,
  namespace: string,
  name: string,
): Promise<number> {
  return db.execute(
    "DELETE FROM lake_tables WHERE datasource_id = $1 AND namespace = $2 AND name = $3",
    [datasourceId, namespace, name],
  );
}
