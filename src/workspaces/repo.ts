/**
 * SQL for workspace rows: create, rename, deactivate, soft-delete and the listings. Ids and
 * timestamps come from the caller; ids must be canonical UUIDs (PostgreSQL types the columns),
 * which the service checks first. Members and invitations are in members_repo.ts, the per-request
 * resolution reads in resolve_repo.ts.
 */
import { toIso } from "../lib/time.ts";
import { bool, type Queryable, type Row } from "../store/mod.ts";
import { joinedFlags, str } from "./repo_rows.ts";
import type { MembershipFlags, WorkspaceRecord } from "./types.ts";

/** One workspace of a listing, with the listed user's membership there. */
export interface MembershipListRow {
  name: string;
  display_name: string;
  deactivated_at: string | null;
  /** Null when the user holds no membership row there (a super admin's listing). */
  flags: MembershipFlags | null;
  joined_at: string | null;
}

/** A stored workspace row, decoded. */
export function toRecord(r: Row): WorkspaceRecord {
  return {
    id: str(r.id),
    name: str(r.name),
    display_name: str(r.display_name),
    is_personal: bool(r.is_personal),
    created_at: toIso(r.created_at)!,
    updated_at: toIso(r.updated_at)!,
    deactivated_at: toIso(r.deactivated_at),
    deleted_at: toIso(r.deleted_at),
  };
}

/** `FOR UPDATE` on PostgreSQL; SQLite transactions are already serialised (BEGIN IMMEDIATE). */
function forUpdate(db: Queryable, lock: boolean): string {
  return lock && db.dialect === "postgres" ? " FOR UPDATE" : "";
}

/** A live (not soft-deleted) workspace by name; `lock` takes its row lock for the transaction. */
export async function findLiveByName(
  db: Queryable,
  name: string,
  lock = false,
): Promise<WorkspaceRecord | undefined> {
  const row = await db.first(
    `SELECT * FROM workspaces WHERE name = $1 AND deleted_at IS NULL${forUpdate(db, lock)}`,
    [name],
  );
  return row && toRecord(row);
}

/** Inserts a workspace row; a taken name raises the unique violation the caller maps. */
export async function insertWorkspace(db: Queryable, w: WorkspaceRecord): Promise<void> {
  await db.execute(
    `INSERT INTO workspaces (id, name, display_name, is_personal, created_at, updated_at,
                             deactivated_at, deleted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      w.id,
      w.name,
      w.display_name,
      w.is_personal,
      w.created_at,
      w.updated_at,
      w.deactivated_at,
      w.deleted_at,
    ],
  );
}

/** Inserts unless any row (deleted and deactivated ones included) holds the name; 1 or 0. */
export function insertWorkspaceIfNameFree(db: Queryable, w: WorkspaceRecord): Promise<number> {
  return db.execute(
    `INSERT INTO workspaces (id, name, display_name, is_personal, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $5)
     ON CONFLICT (name) DO NOTHING`,
    [w.id, w.name, w.display_name, w.is_personal, w.created_at],
  );
}

/** Sets the display name; the number of rows changed. */
export function updateDisplayName(
  db: Queryable,
  id: string,
  displayName: string,
  now: string,
): Promise<number> {
  return db.execute(
    "UPDATE workspaces SET display_name = $2, updated_at = $3 WHERE id = $1",
    [id, displayName, now],
  );
}

/**
 * Deactivates (`deactivate` true) or reactivates; changes the row only when its state actually
 * flips, so a repeated call answers 0.
 */
export function setDeactivated(
  db: Queryable,
  id: string,
  deactivate: boolean,
  now: string,
): Promise<number> {
  return deactivate
    ? db.execute(
      `UPDATE workspaces SET deactivated_at = $2, updated_at = $2
       WHERE id = $1 AND deleted_at IS NULL AND deactivated_at IS NULL`,
      [id, now],
    )
    : db.execute(
      `UPDATE workspaces SET deactivated_at = NULL, updated_at = $2
       WHERE id = $1 AND deleted_at IS NULL AND deactivated_at IS NOT NULL`,
      [id, now],
    );
}

/** Marks a live workspace deleted; 1, or 0 when it already was. */
export function softDelete(db: Queryable, id: string, now: string): Promise<number> {
  return db.execute(
    "UPDATE workspaces SET deleted_at = $2, updated_at = $2 WHERE id = $1 AND deleted_at IS NULL",
    [id, now],
  );
}

/** Every live workspace with `userId`'s membership there, if any. */
export async function listLiveWithMembership(
  db: Queryable,
  userId: string | null,
): Promise<MembershipListRow[]> {
  const rows = await db.query(
    `SELECT w.name, w.display_name, w.deactivated_at, m.user_id AS member_id,
            m.author, m.promoter, m.admin, m.joined_at
     FROM workspaces w
     LEFT JOIN memberships m ON m.workspace_id = w.id AND m.user_id = $1
     WHERE w.deleted_at IS NULL
     ORDER BY w.name`,
    [userId],
  );
  return rows.map(toListRow);
}

/** `userId`'s memberships in live, active workspaces, oldest first. */
export async function listActiveMemberships(
  db: Queryable,
  userId: string,
): Promise<MembershipListRow[]> {
  const rows = await db.query(
    `SELECT w.name, w.display_name, w.deactivated_at, m.user_id AS member_id,
            m.author, m.promoter, m.admin, m.joined_at
     FROM memberships m
     JOIN workspaces w ON w.id = m.workspace_id
     WHERE m.user_id = $1 AND w.deleted_at IS NULL AND w.deactivated_at IS NULL
     ORDER BY m.joined_at, w.name`,
    [userId],
  );
  return rows.map(toListRow);
}

function toListRow(r: Row): MembershipListRow {
  return {
    name: str(r.name),
    display_name: str(r.display_name),
    deactivated_at: toIso(r.deactivated_at),
    flags: joinedFlags(r),
    joined_at: toIso(r.joined_at),
  };
}
