/**
 * SQL for datasource rows and grants. Every read a caller can reach goes through `VISIBLE`, so a
 * listing, its total and a single read agree on what the caller can see: the workspace's own
 * datasources, global ones granted to it, and for a super admin every global one.
 */
import { toIso } from "../lib/time.ts";
import { bool, countOf, type Queryable, readPage, type Row, type SqlValue } from "../store/mod.ts";
import type {
  CredentialKind,
  DatasourceRecord,
  DatasourceViewer,
  Dialect,
  LastTest,
} from "./types.ts";
import type { Counted } from "../lib/paged_view.ts";

const SELECT = `SELECT d.*, w.name AS workspace_name
  FROM datasources d LEFT JOIN workspaces w ON w.id = d.workspace_id`;

/** Visibility for `$1` = the acting workspace id (or null), `$2` = super admin. */
const VISIBLE = `(d.workspace_id = $1 OR (d.is_global = $3 AND ($2 OR EXISTS (
  SELECT 1 FROM datasource_grants g WHERE g.datasource_id = d.id AND g.workspace_id = $1))))`;

const visibleParams = (v: DatasourceViewer): SqlValue[] => [v.workspaceId, v.isSuperAdmin, true];

function json<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  return typeof value === "string" ? JSON.parse(value) as T : value as T;
}

/** A stored row, decoded. */
export function toRecord(r: Row): DatasourceRecord {
  const lastTestAt = toIso(r.last_test_at);
  const lastTest: LastTest | null = lastTestAt
    ? {
      tested_at: lastTestAt,
      ok: bool(r.last_test_ok),
      message: (r.last_test_message as string | null) ?? null,
    }
    : null;
  return {
    id: String(r.id),
    name: String(r.name),
    display_name: String(r.display_name),
    dialect: String(r.dialect) as Dialect,
    jdbc_url: String(r.jdbc_url),
    credential_kind: String(r.credential_kind) as CredentialKind,
    username: (r.username as string | null) ?? null,
    secret_ciphertext: (r.secret_ciphertext as string | null) ?? null,
    include_schemas: json(r.include_schemas, [] as string[]),
    properties: json(r.properties, {}),
    is_global: bool(r.is_global),
    workspace_id: r.workspace_id === null || r.workspace_id === undefined
      ? null
      : String(r.workspace_id),
    workspace_name: (r.workspace_name as string | null) ?? null,
    readonly: bool(r.readonly),
    last_test: lastTest,
    created_by: String(r.created_by),
    updated_by: String(r.updated_by),
    created_at: toIso(r.created_at)!,
    updated_at: toIso(r.updated_at)!,
  };
}

/** Any row by name, visible or not (uniqueness, grants, bootstrap). */
export async function findByName(
  db: Queryable,
  name: string,
): Promise<DatasourceRecord | undefined> {
  const row = await db.first(`${SELECT} WHERE d.name = $1`, [name]);
  return row && toRecord(row);
}

/** Every stored sealed secret, by datasource name (the restore check opens each). */
export async function sealedSecrets(db: Queryable): Promise<{ name: string; sealed: string }[]> {
  const rows = await db.query(
    "SELECT name, secret_ciphertext FROM datasources WHERE secret_ciphertext IS NOT NULL ORDER BY name",
  );
  return rows.map((r) => ({ name: String(r.name), sealed: String(r.secret_ciphertext) }));
}

/** A row by name when `viewer` can see it. */
export async function findVisible(
  db: Queryable,
  viewer: DatasourceViewer,
  name: string,
): Promise<DatasourceRecord | undefined> {
  const row = await db.first(`${SELECT} WHERE ${VISIBLE} AND d.name = $4`, [
    ...visibleParams(viewer),
    name,
  ]);
  return row && toRecord(row);
}

/** The ids of every datasource `viewer` can see (learned-fact visibility reads them). */
export async function visibleIds(db: Queryable, viewer: DatasourceViewer): Promise<string[]> {
  const rows = await db.query(
    `SELECT d.id FROM datasources d WHERE ${VISIBLE}`,
    visibleParams(viewer),
  );
  return rows.map((r) => String(r.id));
}

/** One page of what `viewer` can see, by name, and the total of the same filter. */
export function listVisible(
  db: Queryable,
  viewer: DatasourceViewer,
  filter: { dialect?: Dialect; offset: number; limit: number },
): Promise<Counted<DatasourceRecord>> {
  const params = visibleParams(viewer);
  let where = VISIBLE;
  if (filter.dialect) {
    params.push(filter.dialect);
    where += ` AND d.dialect = $${params.length}`;
  }
  return readPage(
    db,
    `SELECT count(*) AS n FROM datasources d WHERE ${where}`,
    `${SELECT} WHERE ${where} ORDER BY d.name`,
    params,
    filter,
    toRecord,
  );
}

/** The columns a write sets, in one order for insert and update. */
function columns(d: DatasourceRecord, keyVersion: number | null) {
  return [
    d.display_name,
    d.dialect,
    d.jdbc_url,
    d.credential_kind,
    d.username,
    d.secret_ciphertext,
    d.secret_ciphertext === null ? null : keyVersion,
    JSON.stringify(d.include_schemas),
    JSON.stringify(d.properties),
    d.is_global,
    d.workspace_id,
    d.readonly,
    d.updated_by,
    d.updated_at,
  ];
}

/** Inserts a row; a taken name raises the unique violation the caller maps. */
export async function insert(
  db: Queryable,
  d: DatasourceRecord,
  keyVersion: number,
): Promise<void> {
  await db.execute(
    `INSERT INTO datasources (display_name, dialect, jdbc_url, credential_kind, username,
       secret_ciphertext, secret_key_version, include_schemas, properties, is_global, workspace_id,
       readonly, updated_by, updated_at, id, name, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [...columns(d, keyVersion), d.id, d.name, d.created_by, d.created_at],
  );
}

/** Rewrites every definition column of a row (last_test is left alone). */
export async function update(
  db: Queryable,
  d: DatasourceRecord,
  keyVersion: number,
): Promise<void> {
  await db.execute(
    `UPDATE datasources SET display_name = $1, dialect = $2, jdbc_url = $3, credential_kind = $4,
       username = $5, secret_ciphertext = $6, secret_key_version = $7, include_schemas = $8,
       properties = $9, is_global = $10, workspace_id = $11, readonly = $12, updated_by = $13,
       updated_at = $14
     WHERE id = $15`,
    [...columns(d, keyVersion), d.id],
  );
}

/**
 * Stores a `/test` outcome; updated_at is deliberately untouched: testing changes no definition.
 */
export function setLastTest(db: Queryable, id: string, test: LastTest): Promise<number> {
  return db.execute(
    `UPDATE datasources SET last_test_at = $2, last_test_ok = $3, last_test_message = $4
     WHERE id = $1`,
    [id, test.tested_at, test.ok, test.message],
  );
}

/** Deletes a row with its grants, lake tables and learned facts (nothing refers to them after). */
export async function remove(db: Queryable, id: string): Promise<void> {
  await db.execute("DELETE FROM datasource_grants WHERE datasource_id = $1", [id]);
  await db.execute("DELETE FROM lake_tables WHERE datasource_id = $1", [id]);
  await db.execute("DELETE FROM learned_facts WHERE datasource_id = $1", [id]);
  await db.execute("DELETE FROM datasources WHERE id = $1", [id]);
}

/** Workspace-bound datasources of a workspace (the `workspace.in_use` counter). */
export function countBound(db: Queryable, workspaceId: string): Promise<number> {
  return countOf(db, "SELECT count(*) AS n FROM datasources WHERE workspace_id = $1", [
    workspaceId,
  ]);
}

// --- grants -------------------------------------------------------------------------------------

/** The grant row's time, or undefined when the workspace holds no grant. */
export async function findGrant(
  db: Queryable,
  datasourceId: string,
  workspaceId: string,
): Promise<string | undefined> {
  const row = await db.first<{ granted_at: unknown }>(
    "SELECT granted_at FROM datasource_grants WHERE datasource_id = $1 AND workspace_id = $2",
    [datasourceId, workspaceId],
  );
  return row ? toIso(row.granted_at)! : undefined;
}

/** Inserts a grant unless one exists; 1 when inserted. */
export function insertGrant(
  db: Queryable,
  grant: { datasourceId: string; workspaceId: string; grantedBy: string; grantedAt: string },
): Promise<number> {
  return db.execute(
    `INSERT INTO datasource_grants (datasource_id, workspace_id, granted_by, granted_at)
     VALUES ($1, $2, $3, $4) ON CONFLICT (datasource_id, workspace_id) DO NOTHING`,
    [grant.datasourceId, grant.workspaceId, grant.grantedBy, grant.grantedAt],
  );
}

/** Removes one grant; 1 when there was one. */
export function deleteGrant(db: Queryable, datasourceId: string, workspaceId: string) {
  return db.execute(
    "DELETE FROM datasource_grants WHERE datasource_id = $1 AND workspace_id = $2",
    [datasourceId, workspaceId],
  );
}

/** Removes every grant of a datasource (it stopped being global); the number removed. */
export function deleteGrantsOf(db: Queryable, datasourceId: string): Promise<number> {
  return db.execute("DELETE FROM datasource_grants WHERE datasource_id = $1", [datasourceId]);
}
