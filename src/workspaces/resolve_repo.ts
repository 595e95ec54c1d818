/**
 * SQL behind the per-request workspace resolution: a workspace with one user's membership flags
 * there, the default workspace, and the membership counts.
 */
import { toIso } from "../lib/time.ts";
import { countOf, type Queryable, type Row } from "../store/mod.ts";
import { joinedFlags, rowFlags, str } from "./repo_rows.ts";
import type { MembershipFlags } from "./types.ts";

/** A membership joined to its workspace, as the resolution queries read it. */
export interface ContextRow {
  id: string;
  name: string;
  deactivated_at: string | null;
  /** Null when the user holds no membership row there. */
  flags: MembershipFlags | null;
}

const CONTEXT_SELECT = `SELECT w.id, w.name, w.deactivated_at, m.user_id AS member_id,
       m.author, m.promoter, m.admin
FROM workspaces w
LEFT JOIN memberships m ON m.workspace_id = w.id AND m.user_id = $2`;

function toContextRow(r: Row): ContextRow {
  return {
    id: str(r.id),
    name: str(r.name),
    deactivated_at: toIso(r.deactivated_at),
    flags: joinedFlags(r),
  };
}

/** A live workspace by name or id with `userId`'s flags there (null `userId`: never a member). */
export async function liveContext(
  db: Queryable,
  key: "name" | "id",
  value: string,
  userId: string | null,
): Promise<ContextRow | undefined> {
  const row = await db.first(
    `${CONTEXT_SELECT} WHERE w.${key} = $1 AND w.deleted_at IS NULL`,
    [value, userId],
  );
  return row && toContextRow(row);
}

/**
 * The user's default: the last-used workspace when it is still a live, active membership, else
 * the oldest such membership.
 */
export async function defaultMembership(
  db: Queryable,
  userId: string,
): Promise<ContextRow | undefined> {
  const row = await db.first(
    `SELECT w.id, w.name, w.deactivated_at, m.user_id AS member_id,
            m.author, m.promoter, m.admin
     FROM memberships m
     JOIN workspaces w ON w.id = m.workspace_id
     JOIN users u ON u.id = m.user_id
     WHERE m.user_id = $1 AND w.deleted_at IS NULL AND w.deactivated_at IS NULL
     ORDER BY CASE WHEN u.last_workspace_id = w.id THEN 0 ELSE 1 END, m.joined_at, w.name
     LIMIT 1`,
    [userId],
  );
  return row && toContextRow(row);
}

/** Remembers the workspace a user last acted in, for the next default. */
export async function setLastWorkspace(
  db: Queryable,
  userId: string,
  workspaceId: string,
): Promise<void> {
  await db.execute("UPDATE users SET last_workspace_id = $2 WHERE id = $1", [
    userId,
    workspaceId,
  ]);
}

/** Live memberships in active workspaces. */
export function countActiveMemberships(db: Queryable, userId: string): Promise<number> {
  return countOf(
    db,
    `SELECT count(*) AS n FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
     WHERE m.user_id = $1 AND w.deleted_at IS NULL AND w.deactivated_at IS NULL`,
    [userId],
  );
}

/** Membership flags by primary key (the workspace joined by its primary key to skip deleted). */
export async function membershipFlags(
  db: Queryable,
  userId: string,
  workspaceId: string,
): Promise<MembershipFlags | null> {
  const row = await db.first(
    `SELECT m.author, m.promoter, m.admin FROM memberships m
     JOIN workspaces w ON w.id = m.workspace_id AND w.deleted_at IS NULL
     WHERE m.user_id = $1 AND m.workspace_id = $2`,
    [userId, workspaceId],
  );
  return row ? rowFlags(row) : null;
}
