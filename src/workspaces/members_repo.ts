/**
 * SQL for memberships and invitations. Ids and timestamps come from the caller; ids must be
 * canonical UUIDs (PostgreSQL types the columns), which the service checks first.
 */
import { toIso } from "../lib/time.ts";
import { countOf, type Queryable, type Row } from "../store/mod.ts";
import { rowFlags, str } from "./repo_rows.ts";
import type { InvitationRow, MemberRow, MembershipFlags } from "./types.ts";

/** The user row an add-member request names by email. */
export interface UserLookup {
  id: string;
  email: string;
  provider: string;
}

function toMember(r: Row): MemberRow {
  return {
    user_id: str(r.user_id),
    email: str(r.email),
    display_name: str(r.display_name),
    ...rowFlags(r),
    joined_at: toIso(r.joined_at)!,
  };
}

function toInvitation(r: Row): InvitationRow {
  return {
    email: str(r.email),
    ...rowFlags(r),
    invited_by: str(r.invited_by),
    invited_at: toIso(r.invited_at)!,
  };
}

// --- members ----------------------------------------------------------------------------------

const MEMBER_SELECT = `SELECT m.user_id, u.email, u.display_name, m.author, m.promoter, m.admin,
       m.joined_at
FROM memberships m JOIN users u ON u.id = m.user_id`;

/** A workspace's members, oldest first. */
export async function listMembers(db: Queryable, workspaceId: string): Promise<MemberRow[]> {
  const rows = await db.query(
    `${MEMBER_SELECT} WHERE m.workspace_id = $1 ORDER BY m.joined_at, u.email`,
    [workspaceId],
  );
  return rows.map(toMember);
}

/** One membership with its user's email and display name. */
export async function findMember(
  db: Queryable,
  workspaceId: string,
  userId: string,
): Promise<MemberRow | undefined> {
  const row = await db.first(
    `${MEMBER_SELECT} WHERE m.workspace_id = $1 AND m.user_id = $2`,
    [workspaceId, userId],
  );
  return row && toMember(row);
}

/** Inserts unless the user is already a member; 1 or 0. */
export function insertMembershipIfAbsent(
  db: Queryable,
  workspaceId: string,
  userId: string,
  flags: MembershipFlags,
  joinedAt: string,
): Promise<number> {
  return db.execute(
    `INSERT INTO memberships (user_id, workspace_id, author, promoter, admin, joined_at)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (user_id, workspace_id) DO NOTHING`,
    [userId, workspaceId, flags.author, flags.promoter, flags.admin, joinedAt],
  );
}

/** Replaces a membership's three flags; the number of rows changed. */
export function updateMembershipFlags(
  db: Queryable,
  workspaceId: string,
  userId: string,
  flags: MembershipFlags,
): Promise<number> {
  return db.execute(
    `UPDATE memberships SET author = $3, promoter = $4, admin = $5
     WHERE workspace_id = $1 AND user_id = $2`,
    [workspaceId, userId, flags.author, flags.promoter, flags.admin],
  );
}

/** Deletes a membership; 1, or 0 when there was none. */
export function deleteMembership(
  db: Queryable,
  workspaceId: string,
  userId: string,
): Promise<number> {
  return db.execute("DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2", [
    workspaceId,
    userId,
  ]);
}

/** Members holding `admin` in the workspace. */
export function countAdmins(db: Queryable, workspaceId: string): Promise<number> {
  return countOf(
    db,
    "SELECT count(*) AS n FROM memberships WHERE workspace_id = $1 AND admin = $2",
    [workspaceId, true],
  );
}

/** The user row holding `email` (already lowercased by the caller). */
export async function findUserByEmail(
  db: Queryable,
  email: string,
): Promise<UserLookup | undefined> {
  const row = await db.first("SELECT id, email, provider FROM users WHERE email = $1", [email]);
  return row && { id: str(row.id), email: str(row.email), provider: str(row.provider) };
}

// --- invitations ------------------------------------------------------------------------------

/** A workspace's pending invitations, oldest first. */
export async function listInvitations(
  db: Queryable,
  workspaceId: string,
): Promise<InvitationRow[]> {
  const rows = await db.query(
    `SELECT email, author, promoter, admin, invited_by, invited_at FROM invitations
     WHERE workspace_id = $1 ORDER BY invited_at, email`,
    [workspaceId],
  );
  return rows.map(toInvitation);
}

/** Creates the invitation, or replaces its flags, inviter and time. */
export async function upsertInvitation(
  db: Queryable,
  workspaceId: string,
  email: string,
  flags: MembershipFlags,
  invitedBy: string,
  invitedAt: string,
): Promise<void> {
  await db.execute(
    `INSERT INTO invitations (workspace_id, email, author, promoter, admin, invited_by, invited_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (workspace_id, email) DO UPDATE SET
       author = excluded.author, promoter = excluded.promoter, admin = excluded.admin,
       invited_by = excluded.invited_by, invited_at = excluded.invited_at`,
    [workspaceId, email, flags.author, flags.promoter, flags.admin, invitedBy, invitedAt],
  );
}

/** Deletes one pending invitation; 1, or 0 when there was none. */
export function deleteInvitation(
  db: Queryable,
  workspaceId: string,
  email: string,
): Promise<number> {
  return db.execute("DELETE FROM invitations WHERE workspace_id = $1 AND email = $2", [
    workspaceId,
    email,
  ]);
}

/** Deletes every pending invitation of a workspace; how many went. */
export function deleteInvitationsOf(db: Queryable, workspaceId: string): Promise<number> {
  return db.execute("DELETE FROM invitations WHERE workspace_id = $1", [workspaceId]);
}

/** Pending invitations for `email` in live, active workspaces (the ones a login materialises). */
export async function liveInvitationsFor(
  db: Queryable,
  email: string,
): Promise<(InvitationRow & { workspace_id: string; workspace: string })[]> {
  const rows = await db.query(
    `SELECT i.workspace_id, w.name AS workspace, i.email, i.author, i.promoter, i.admin,
            i.invited_by, i.invited_at
     FROM invitations i JOIN workspaces w ON w.id = i.workspace_id
     WHERE i.email = $1 AND w.deleted_at IS NULL AND w.deactivated_at IS NULL
     ORDER BY i.invited_at, w.name`,
    [email],
  );
  return rows.map((r) => ({
    ...toInvitation(r),
    workspace_id: str(r.workspace_id),
    workspace: str(r.workspace),
  }));
}
