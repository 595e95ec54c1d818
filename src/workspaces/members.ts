/**
 * Member and invitation use cases (docs/access.md#workspaces): listing, adding by email (a
 * membership or an invitation), changing flags, removing, revoking invitations, and turning
 * invitations into memberships at a user's first login. The front end has already judged the
 * caller's role; this enforces the last-admin rule and writes each change's audit row in the
 * change's own transaction.
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { type Principal, SYSTEM_PROVIDER } from "../identity/mod.ts";
import { isUuid } from "../lib/ids.ts";
import type { Db, Queryable } from "../store/mod.ts";
import * as repo from "./members_repo.ts";
import { activeWorkspace, auditWorkspaceAct, invalidField, liveWorkspace } from "./lookup.ts";
import {
  type AddMemberResult,
  EMAIL_MAX,
  type MemberRow,
  type MembershipFlags,
  type MembersView,
  type WorkspaceRecord,
} from "./types.ts";

// --- input --------------------------------------------------------------------------------------

const FLAG_NAMES = ["author", "promoter", "admin"] as const;

function asObject(body: unknown): Record<string, unknown> {
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? body as Record<string, unknown>
    : {};
}

/** The three flags, absent meaning false; `admin` implies `author`. */
function parseFlags(body: Record<string, unknown>): MembershipFlags {
  const flags = { author: false, promoter: false, admin: false };
  for (const name of FLAG_NAMES) {
    const value = body[name];
    if (value === undefined) continue;
    if (typeof value !== "boolean") throw invalidField(name, "must be a boolean");
    flags[name] = value;
  }
  if (flags.admin) flags.author = true;
  return flags;
}

/** Lowercased (and trimmed) first, then checked. */
function parseEmail(input: unknown): string {
  if (input === undefined || input === null) throw invalidField("email", "required");
  if (typeof input !== "string") throw invalidField("email", "must be a string");
  const email = input.trim().toLowerCase();
  if (email.length === 0) throw invalidField("email", "required");
  if (email.length > EMAIL_MAX) {
    throw invalidField("email", `must be at most ${EMAIL_MAX} characters`);
  }
  const at = email.lastIndexOf("@");
  if (at < 1 || at === email.length - 1) throw invalidField("email", "must be an email address");
  return email;
}

function sameFlags(a: MembershipFlags, b: MembershipFlags): boolean {
  return a.author === b.author && a.promoter === b.promoter && a.admin === b.admin;
}

function flagsOf(m: MembershipFlags): MembershipFlags {
  return { author: m.author, promoter: m.promoter, admin: m.admin };
}

// --- use cases ----------------------------------------------------------------------------------

/** Members (oldest first) and pending invitations, never mixed. */
export async function listMembership(db: Db, name: string): Promise<MembersView> {
  const ws = await liveWorkspace(db, name);
  const [members, invitations] = await Promise.all([
    repo.listMembers(db, ws.id),
    repo.listInvitations(db, ws.id),
  ]);
  return { members, invitations };
}

/**
 * Adds a member by email: an existing user becomes a member (an existing member is returned
 * unchanged), an unknown email gets an invitation created or replaced. An email outside a non-empty
 * `allowlist` of domains is refused before anything is read.
 */
export async function addMember(
  db: Db,
  allowlist: ReadonlySet<string>,
  actor: Principal,
  name: string,
  body: unknown,
): Promise<AddMemberResult> {
  const input = asObject(body);
  const email = parseEmail(input.email);
  const flags = parseFlags(input);
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (allowlist.size > 0 && !allowlist.has(domain)) {
    throw new AppError("auth.login.domain_not_allowed", { domain }, {}, { status: 400 });
  }
  return await db.transaction(async (tx): Promise<AddMemberResult> => {
    const ws = await activeWorkspace(tx, name);
    const now = new Date().toISOString();
    const user = await repo.findUserByEmail(tx, email);
    if (user?.provider === SYSTEM_PROVIDER) throw invalidField("email", "reserved");
    if (!user) {
      await repo.upsertInvitation(tx, ws.id, email, flags, actor.userId, now);
      await auditWorkspaceAct(tx, actor, "workspace.member_invited", ws, { email, flags });
      return { status: 202, invitation: { invited: true, email, ...flags } };
    }
    const existing = await repo.findMember(tx, ws.id, user.id);
    if (existing) return { status: 200, member: existing };
    if (await repo.insertMembershipIfAbsent(tx, ws.id, user.id, flags, now) === 1) {
      // A stale invitation for the same address would otherwise linger beside the membership.
      await repo.deleteInvitation(tx, ws.id, email);
      await auditWorkspaceAct(tx, actor, "workspace.member_added", ws, {
        user_id: user.id,
        email,
        flags,
      });
    }
    return { status: 200, member: (await repo.findMember(tx, ws.id, user.id))! };
  });
}

/** Replaces a member's three flags wholesale (absent means false; admin implies author). */
export async function setMemberFlags(
  db: Db,
  actor: Principal,
  name: string,
  userId: string,
  body: unknown,
): Promise<MemberRow> {
  const to = parseFlags(asObject(body));
  return await db.transaction(async (tx) => {
    const { ws, member } = await lockedMember(tx, name, userId);
    const from = flagsOf(member);
    if (sameFlags(from, to)) return member;
    if (from.admin && !to.admin && await repo.countAdmins(tx, ws.id) <= 1) {
      throw new AppError("workspace.last_admin", { workspace: ws.name });
    }
    await repo.updateMembershipFlags(tx, ws.id, member.user_id, to);
    await auditWorkspaceAct(tx, actor, "workspace.member_flags_changed", ws, {
      user_id: member.user_id,
      email: member.email,
      from,
      to,
    });
    return { ...member, ...to };
  });
}

/** Removes a member; never the last admin. */
export async function removeMember(
  db: Db,
  actor: Principal,
  name: string,
  userId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const { ws, member } = await lockedMember(tx, name, userId);
    if (member.admin && await repo.countAdmins(tx, ws.id) <= 1) {
      throw new AppError("workspace.last_admin", { workspace: ws.name });
    }
    await repo.deleteMembership(tx, ws.id, member.user_id);
    await auditWorkspaceAct(tx, actor, "workspace.member_removed", ws, {
      user_id: member.user_id,
      email: member.email,
      flags: flagsOf(member),
    });
  });
}

/**
 * The workspace (row-locked on PostgreSQL, so two admin changes in one workspace serialise and
 * the last-admin count is always current) and the member; 404 `workspace.not_found` for a
 * non-member or malformed id, 404 `workspace.inactive` when deactivated.
 */
async function lockedMember(
  tx: Queryable,
  name: string,
  userId: string,
): Promise<{ ws: WorkspaceRecord; member: MemberRow }> {
  const ws = await activeWorkspace(tx, name, true);
  const member = isUuid(userId)
    ? await repo.findMember(tx, ws.id, userId.toLowerCase())
    : undefined;
  if (!member) throw new AppError("workspace.not_found", { workspace: ws.name, user_id: userId });
  return { ws, member };
}

/** Revokes a pending invitation; allowed inside a deactivated workspace. */
export async function revokeInvitation(
  db: Db,
  actor: Principal,
  name: string,
  email: string,
): Promise<void> {
  const address = typeof email === "string" ? email.trim().toLowerCase() : "";
  await db.transaction(async (tx) => {
    const ws = await liveWorkspace(tx, name);
    if (address === "" || await repo.deleteInvitation(tx, ws.id, address) === 0) {
      throw new AppError("workspace.invitation.not_found", { email: address.slice(0, 254) });
    }
    await auditWorkspaceAct(tx, actor, "workspace.invitation_revoked", ws, { email: address });
  });
}

/**
 * Joins a just-created user to `name` with `flags`, inside the creating transaction (a super admin
 * creates a local user and adds them to a workspace in one act). The workspace must be active.
 * Audited `workspace.member_added` by the creating admin. Returns the workspace name.
 */
export async function joinAtCreation(
  tx: Queryable,
  actor: Principal,
  user: { userId: string; email: string },
  name: string,
  flags: MembershipFlags,
): Promise<string> {
  const ws = await activeWorkspace(tx, name);
  const granted = { ...flags, author: flags.author || flags.admin };
  await repo.insertMembershipIfAbsent(tx, ws.id, user.userId, granted, new Date().toISOString());
  await auditWorkspaceAct(tx, actor, "workspace.member_added", ws, {
    user_id: user.userId,
    email: user.email,
    flags: granted,
  });
  return ws.name;
}

/**
 * Turns `email`'s pending invitations in active workspaces into memberships: flags as invited,
 * `joined_at` equal to `invited_at`, the invitation deleted, audit
 * `workspace.invitation_materialised` with the inviter. Invitations in deactivated workspaces stay
 * pending. Run it inside the transaction that creates the user row (first login or local account
 * creation). Returns the names of the workspaces joined.
 */
export async function materialiseInvitations(
  tx: Queryable,
  user: { userId: string; email: string; provider: string },
): Promise<string[]> {
  const email = user.email.trim().toLowerCase();
  const joined: string[] = [];
  for (const inv of await repo.liveInvitationsFor(tx, email)) {
    const flags = flagsOf(inv);
    const added = await repo.insertMembershipIfAbsent(
      tx,
      inv.workspace_id,
      user.userId,
      flags,
      inv.invited_at,
    );
    await repo.deleteInvitation(tx, inv.workspace_id, email);
    if (added === 0) continue;
    joined.push(inv.workspace);
    await recordAudit(tx, {
      event: "workspace.invitation_materialised",
      userId: user.userId,
      provider: user.provider,
      workspaceId: inv.workspace_id,
      details: { workspace: inv.workspace, email, flags, inviter: inv.invited_by },
    });
  }
  return joined;
}
