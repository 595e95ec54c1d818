/**
 * The workspace a login lands in (docs/decisions.md#where-a-sign-in-lands, shared by OIDC and local
 * logins): the last-used workspace while it is a live active membership, else the oldest active
 * membership, else — only for a user with no membership row at all, who is no super admin and for
 * whom no invitation materialised in this login — a new viewer membership in the demo workspace.
 * The demo join is audited `workspace.member_added` with reason `first_login_demo_viewer`. A super
 * admin with no membership to land in reaches every active workspace: when exactly one exists they
 * land there, with no membership row. Null means nothing is selectable: the session carries no
 * stamp.
 */
import { recordAudit } from "../audit/mod.ts";
import type { Db } from "../store/mod.ts";
import { insertMembershipIfAbsent } from "./members_repo.ts";
import { findLiveByName } from "./repo.ts";
import { defaultForUser } from "./resolve.ts";
import { DEMO_WORKSPACE, type WorkspaceContext } from "./types.ts";

export interface LandingUser {
  userId: string;
  email: string;
  provider: string;
  isSuperAdmin: boolean;
}

export async function landingWorkspace(
  db: Db,
  user: LandingUser,
  options: { invitationMaterialised: boolean },
): Promise<WorkspaceContext | null> {
  const found = await defaultForUser(db, user);
  if (found) return found;
  // A super admin is an implicit member of every workspace, never joined to `demo`.
  if (user.isSuperAdmin) return await onlyActiveWorkspace(db);
  if (options.invitationMaterialised) return null;
  return await db.transaction(async (tx) => {
    // "No membership at all": rows in deactivated workspaces count, so a user whose only
    // workspace was deactivated is not quietly moved into the demo.
    const any = await tx.first("SELECT 1 AS x FROM memberships WHERE user_id = $1 LIMIT 1", [
      user.userId,
    ]);
    if (any) return null;
    const demo = await findLiveByName(tx, DEMO_WORKSPACE.name, true);
    if (!demo || demo.deactivated_at) return null;
    const flags = { author: false, promoter: false, admin: false };
    const added = await insertMembershipIfAbsent(
      tx,
      demo.id,
      user.userId,
      flags,
      new Date().toISOString(),
    );
    if (added === 1) {
      await recordAudit(tx, {
        event: "workspace.member_added",
        userId: user.userId,
        provider: user.provider,
        workspaceId: demo.id,
        details: {
          workspace: demo.name,
          user_id: user.userId,
          email: user.email,
          flags,
          reason: "first_login_demo_viewer",
        },
      });
    }
    return { id: demo.id, name: demo.name, flags, implicit: false };
  });
}

/** The one active workspace, as a super admin acts in it; null when there are none or several. */
async function onlyActiveWorkspace(db: Db): Promise<WorkspaceContext | null> {
  const rows = await db.query<{ id: string; name: string }>(
    "SELECT id, name FROM workspaces WHERE deleted_at IS NULL AND deactivated_at IS NULL LIMIT 2",
  );
  if (rows.length !== 1) return null;
  const { id, name } = rows[0];
  return { id, name, flags: { author: true, promoter: true, admin: true }, implicit: true };
}
