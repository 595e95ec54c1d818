/**
 * SQL for versioned entities, over the tables a {@link KindDescriptor} names. Table and column
 * names come from the descriptor (module constants), values always bind as parameters. Ids must
 * be canonical UUIDs (PostgreSQL types the columns); the engine checks before calling. Every
 * state-changing UPDATE carries the state it expects in its WHERE clause and answers the rows it
 * changed, so a caller can tell a lost race from a success even without the entity row lock.
 */
import { toIso } from "../lib/time.ts";
import { markers, type Queryable, type Row, type SqlValue } from "../store/mod.ts";
import type {
  EntityRow,
  IndexAttrs,
  JsonObject,
  KindDescriptor,
  VersionMeta,
  VersionRow,
  VersionStatus,
} from "./types.ts";

const META_COLUMNS = `version, status, body_hash, created_by, created_at, updated_by, updated_at,
  released_by, released_at, discarded_by, discarded_at`;

function entityColumns(k: KindDescriptor): string {
  return ["id", "workspace_id", "name", "current_version", "owner_id", "created_at", "updated_at"]
    .concat(k.attrColumns).join(", ");
}

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function toEntity(k: KindDescriptor, r: Row): EntityRow {
  const attrs: IndexAttrs = {};
  for (const c of k.attrColumns) attrs[c] = text(r[c]);
  return {
    id: String(r.id),
    workspace_id: String(r.workspace_id),
    name: String(r.name),
    current_version: r.current_version === null ? null : Number(r.current_version),
    owner_id: String(r.owner_id),
    created_at: toIso(r.created_at)!,
    updated_at: toIso(r.updated_at)!,
    attrs,
  };
}

function toMeta(r: Row): VersionMeta {
  return {
    version: Number(r.version),
    status: String(r.status) as VersionStatus,
    body_hash: String(r.body_hash),
    created_by: String(r.created_by),
    created_at: toIso(r.created_at)!,
    updated_by: String(r.updated_by),
    updated_at: toIso(r.updated_at)!,
    released_by: text(r.released_by),
    released_at: toIso(r.released_at),
    discarded_by: text(r.discarded_by),
    discarded_at: toIso(r.discarded_at),
  };
}

function toVersion(r: Row): VersionRow {
  const canonical = String(r.body);
  return { ...toMeta(r), canonical, body: JSON.parse(canonical) as JsonObject };
}

/** `FOR UPDATE` on PostgreSQL; SQLite transactions are already serialised (BEGIN IMMEDIATE). */
function forUpdate(db: Queryable, lock: boolean): string {
  return lock && db.dialect === "postgres" ? " FOR UPDATE" : "";
}

// --- index rows --------------------------------------------------------------------------------

/**
 * The entity `id` of `workspaceId`. `lock` takes its row lock until the transaction ends: every
 * lifecycle write takes it first, which serialises writers of one entity on PostgreSQL.
 */
export async function findEntity(
  db: Queryable,
  k: KindDescriptor,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<EntityRow | undefined> {
  const row = await db.first(
    `SELECT ${entityColumns(k)} FROM ${k.entityTable} WHERE id = $1 AND workspace_id = $2${
      forUpdate(db, lock)
    }`,
    [id, workspaceId],
  );
  return row && toEntity(k, row);
}

/** The entity named `name` in `workspaceId`. */
export async function findEntityByName(
  db: Queryable,
  k: KindDescriptor,
  workspaceId: string,
  name: string,
): Promise<EntityRow | undefined> {
  const row = await db.first(
    `SELECT ${entityColumns(k)} FROM ${k.entityTable} WHERE workspace_id = $1 AND name = $2`,
    [workspaceId, name],
  );
  return row && toEntity(k, row);
}

/** Inserts an index row; a taken name raises the unique violation the caller maps. */
export async function insertEntity(db: Queryable, k: KindDescriptor, e: EntityRow): Promise<void> {
  const columns = entityColumns(k).split(", ");
  const values: SqlValue[] = [
    e.id,
    e.workspace_id,
    e.name,
    e.current_version,
    e.owner_id,
    e.created_at,
    e.updated_at,
    ...k.attrColumns.map((c) => e.attrs[c] ?? null),
  ];
  await db.execute(
    `INSERT INTO ${k.entityTable} (${columns.join(", ")})
     VALUES (${markers(columns.length)})`,
    values,
  );
}

/** What an index-row update may change; absent members stay. */
export interface EntityPatch {
  name?: string;
  current_version?: number | null;
  attrs?: IndexAttrs;
  updated_at: string;
}

/** Applies `patch` to the index row. Attr keys must be the kind's columns. */
export async function updateEntity(
  db: Queryable,
  k: KindDescriptor,
  id: string,
  patch: EntityPatch,
): Promise<void> {
  const sets: string[] = [];
  const values: SqlValue[] = [id];
  const set = (column: string, value: SqlValue) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (patch.name !== undefined) set("name", patch.name);
  if (patch.current_version !== undefined) set("current_version", patch.current_version);
  for (const [column, value] of Object.entries(patch.attrs ?? {})) {
    if (!k.attrColumns.includes(column)) throw new Error(`${k.kind} has no index column ${column}`);
    set(column, value);
  }
  set("updated_at", patch.updated_at);
  await db.execute(`UPDATE ${k.entityTable} SET ${sets.join(", ")} WHERE id = $1`, values);
}

/** Removes the index row and every version row (the pointer first: it references a version). */
export async function deleteEntity(db: Queryable, k: KindDescriptor, id: string): Promise<void> {
  await db.execute(`UPDATE ${k.entityTable} SET current_version = NULL WHERE id = $1`, [id]);
  await db.execute(`DELETE FROM ${k.versionTable} WHERE ${k.fk} = $1`, [id]);
  await db.execute(`DELETE FROM ${k.entityTable} WHERE id = $1`, [id]);
}

// --- version rows ------------------------------------------------------------------------------

/** Every version of an entity without bodies, lowest number first. */
export async function listMeta(
  db: Queryable,
  k: KindDescriptor,
  id: string,
): Promise<VersionMeta[]> {
  const rows = await db.query(
    `SELECT ${META_COLUMNS} FROM ${k.versionTable} WHERE ${k.fk} = $1 ORDER BY version`,
    [id],
  );
  return rows.map(toMeta);
}

/** One version with its body. */
export async function getVersion(
  db: Queryable,
  k: KindDescriptor,
  id: string,
  version: number,
): Promise<VersionRow | undefined> {
  const row = await db.first(
    `SELECT ${META_COLUMNS}, body FROM ${k.versionTable} WHERE ${k.fk} = $1 AND version = $2`,
    [id, version],
  );
  return row && toVersion(row);
}

/**
 * Inserts a version as a DRAFT (a save) or already RELEASED (an import or a promotion push):
 * created and updated, and a release also released, by `actor` at `now`.
 */
export async function insertVersion(
  db: Queryable,
  k: KindDescriptor,
  id: string,
  status: "DRAFT" | "RELEASED",
  v: { version: number; canonical: string; body_hash: string; actor: string; now: string },
): Promise<void> {
  const released = status === "RELEASED";
  await db.execute(
    `INSERT INTO ${k.versionTable} (${k.fk}, version, status, body, body_hash, created_by,
       created_at, updated_by, updated_at, released_by, released_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $6, $7, $8, $9)`,
    [
      id,
      v.version,
      status,
      v.canonical,
      v.body_hash,
      v.actor,
      v.now,
      released ? v.actor : null,
      released ? v.now : null,
    ],
  );
}

/** Rewrites the draft whose hash is still `expected`; 1, or 0 when it changed meanwhile. */
export function overwriteDraft(
  db: Queryable,
  k: KindDescriptor,
  id: string,
  expected: string,
  v: { canonical: string; body_hash: string; actor: string; now: string },
): Promise<number> {
  return db.execute(
    `UPDATE ${k.versionTable} SET body = $3, body_hash = $4, updated_by = $5, updated_at = $6
     WHERE ${k.fk} = $1 AND status = 'DRAFT' AND body_hash = $2`,
    [id, expected, v.canonical, v.body_hash, v.actor, v.now],
  );
}

/** Releases the draft whose hash is still `expected`; 1, or 0. */
export function releaseDraft(
  db: Queryable,
  k: KindDescriptor,
  id: string,
  expected: string,
  actor: string,
  now: string,
): Promise<number> {
  return db.execute(
    `UPDATE ${k.versionTable} SET status = 'RELEASED', released_by = $3, released_at = $4
     WHERE ${k.fk} = $1 AND status = 'DRAFT' AND body_hash = $2`,
    [id, expected, actor, now],
  );
}

/** RELEASED → DISCARDED; 1, or 0 when the version was not RELEASED. */
export function discardVersion(
  db: Queryable,
  k: KindDescriptor,
  id: string,
  version: number,
  actor: string,
  now: string,
): Promise<number> {
  return db.execute(
    `UPDATE ${k.versionTable} SET status = 'DISCARDED', discarded_by = $3, discarded_at = $4
     WHERE ${k.fk} = $1 AND version = $2 AND status = 'RELEASED'`,
    [id, version, actor, now],
  );
}

/** DISCARDED → RELEASED keeping the original release stamps; 1, or 0. */
export function restoreVersion(
  db: Queryable,
  k: KindDescriptor,
  id: string,
  version: number,
): Promise<number> {
  return db.execute(
    `UPDATE ${k.versionTable} SET status = 'RELEASED', discarded_by = NULL, discarded_at = NULL
     WHERE ${k.fk} = $1 AND version = $2 AND status = 'DISCARDED'`,
    [id, version],
  );
}

/** Deletes the draft (whose hash is still `expected`, when given); 1, or 0. */
export function deleteDraft(
  db: Queryable,
  k: KindDescriptor,
  id: string,
  version: number,
  expected: string | null,
): Promise<number> {
  return expected === null
    ? db.execute(
      `DELETE FROM ${k.versionTable} WHERE ${k.fk} = $1 AND version = $2 AND status = 'DRAFT'`,
      [id, version],
    )
    : db.execute(
      `DELETE FROM ${k.versionTable}
       WHERE ${k.fk} = $1 AND version = $2 AND status = 'DRAFT' AND body_hash = $3`,
      [id, version, expected],
    );
}
