/**
 * Per-request workspace resolution: which workspace a request acts in and with which flags.
 * Malformed ids resolve to nothing rather than reaching PostgreSQL, which types the columns.
 */
import { isUuid } from "../lib/ids.ts";
import type { Db } from "../store/mod.ts";
import * as repo from "./resolve_repo.ts";
import {
  type MembershipFlags,
  type ResolvedById,
  WORKSPACE_NAME_RE,
  type WorkspaceContext,
  type WorkspaceUser,
} from "./types.ts";

const allFlags = (): MembershipFlags => ({ author: true, promoter: true, admin: true });

function uuidOrNull(value: unknown): string | null {
  return isUuid(value) ? value.toLowerCase() : null;
}

/** A resolved row as the caller sees it: a super admin holds every flag everywhere. */
function contextOf(row: repo.ContextRow, user: WorkspaceUser): WorkspaceContext {
  return user.isSuperAdmin
    ? { id: row.id, name: row.name, flags: allFlags(), implicit: row.flags === null }
    : { id: row.id, name: row.name, flags: row.flags, implicit: false };
}

/**
 * The workspace `name` as `user` acts in it; null when unknown, deleted, deactivated, or the
 * user is no member. A super admin resolves every active workspace with every flag (`implicit`
 * when they hold no membership row there).
 */
export async function resolveForUser(
  db: Db,
  user: WorkspaceUser,
  name: string,
): Promise<WorkspaceContext | null> {
  if (typeof name !== "string" || !WORKSPACE_NAME_RE.test(name)) return null;
  const row = await repo.liveContext(db, "name", name, uuidOrNull(user.userId));
  if (!row || row.deactivated_at) return null;
  if (!user.isSuperAdmin && !row.flags) return null;
  return contextOf(row, user);
}

/**
 * A key's pinned workspace by id: `missing` (unknown or deleted, context null), `deactivated` or
 * `active`, with the issuer's context there (flags null when no longer a member).
 */
export async function resolveById(
  db: Db,
  user: WorkspaceUser,
  workspaceId: string,
): Promise<ResolvedById> {
  const id = uuidOrNull(workspaceId);
  const row = id ? await repo.liveContext(db, "id", id, uuidOrNull(user.userId)) : undefined;
  if (!row) return { state: "missing", context: null };
  return {
    state: row.deactivated_at ? "deactivated" : "active",
    context: contextOf(row, user),
  };
}

/**
 * The last-used workspace while it is a live, active membership, else the oldest such
 * membership, else null (a super admin without memberships too).
 */
export async function defaultForUser(
  db: Db,
  user: WorkspaceUser,
): Promise<WorkspaceContext | null> {
  const userId = uuidOrNull(user.userId);
  const row = userId ? await repo.defaultMembership(db, userId) : undefined;
  if (!row) return null;
  return { ...contextOf(row, user), implicit: false };
}

/** Remembers the workspace a user acted in, for `defaultForUser` next time. */
export async function rememberLastUsed(
  db: Db,
  userId: string,
  workspaceId: string,
): Promise<void> {
  const user = uuidOrNull(userId);
  const ws = uuidOrNull(workspaceId);
  if (user && ws) await repo.setLastWorkspace(db, user, ws);
}

/** Live memberships in active workspaces. */
export async function membershipCount(db: Db, userId: string): Promise<number> {
  const id = uuidOrNull(userId);
  return id ? await repo.countActiveMemberships(db, id) : 0;
}

/** The user's membership flags in a (not deleted) workspace, or null: one primary-key read. */
export async function flagsFor(
  db: Db,
  userId: string,
  workspaceId: string,
): Promise<MembershipFlags | null> {
  const user = uuidOrNull(userId);
  const ws = uuidOrNull(workspaceId);
  return user && ws ? await repo.membershipFlags(db, user, ws) : null;
}
