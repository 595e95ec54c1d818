/**
 * Workspace lifecycle use cases (docs/access.md#workspaces): create, read, list, rename,
 * deactivate, soft-delete, and the first-boot `demo` seed. Each change writes its audit row in its
 * own transaction. A soft-deleted workspace is unknown everywhere; its name stays reserved.
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { type Principal, SYSTEM_PROVIDER } from "../identity/mod.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { type Db, isUniqueViolation } from "../store/mod.ts";
import { deleteInvitationsOf } from "./members_repo.ts";
import * as repo from "./repo.ts";
import { activeWorkspace, auditWorkspaceAct, invalidField, liveWorkspace } from "./lookup.ts";
import {
  type ContentCounter,
  DEMO_WORKSPACE,
  DISPLAY_NAME_MAX,
  type MembershipFlags,
  WORKSPACE_NAME_RE,
  type WorkspaceListRow,
  type WorkspaceRecord,
  type WorkspaceRole,
  type WorkspaceUser,
  type WorkspaceView,
} from "./types.ts";

// --- input and output ---------------------------------------------------------------------------

function parseName(input: unknown): string {
  const refuse = (reason: string) =>
    new AppError("workspace.validation.name_invalid", {
      reason,
      ...(typeof input === "string" ? { name: input.slice(0, 100) } : {}),
    });
  if (typeof input !== "string") throw refuse("the name must be a string");
  if (input.length < 1 || input.length > 63) throw refuse("the name must be 1 to 63 characters");
  if (!WORKSPACE_NAME_RE.test(input)) {
    throw refuse("the name may contain only a-z, 0-9, underscore and hyphen");
  }
  return input;
}

/** A display name, trimmed; 1 to 200 characters. */
function parseDisplayName(input: unknown): string {
  if (typeof input !== "string") throw invalidField("display_name", "must be a string");
  const value = input.trim();
  if (value.length === 0) throw invalidField("display_name", "must not be empty");
  if (value.length > DISPLAY_NAME_MAX) {
    throw invalidField("display_name", `must be at most ${DISPLAY_NAME_MAX} characters`);
  }
  return value;
}

function viewOf(w: WorkspaceRecord): WorkspaceView {
  return {
    name: w.name,
    display_name: w.display_name,
    is_personal: w.is_personal,
    created_at: w.created_at,
    ...(w.deactivated_at ? { deactivated_at: w.deactivated_at } : {}),
  };
}

/** Highest of admin > author > promoter, else viewer. */
export function roleOf(flags: MembershipFlags): WorkspaceRole {
  if (flags.admin) return "admin";
  if (flags.author) return "author";
  if (flags.promoter) return "promoter";
  return "viewer";
}

function listRow(r: repo.MembershipListRow): WorkspaceListRow {
  const flags = r.flags ?? { author: false, promoter: false, admin: false };
  return {
    name: r.name,
    display_name: r.display_name,
    role: r.flags ? roleOf(r.flags) : "super_admin",
    ...flags,
    joined_at: r.flags ? r.joined_at : null,
    ...(r.deactivated_at ? { deactivated_at: r.deactivated_at } : {}),
  };
}

// --- use cases ----------------------------------------------------------------------------------

/** Creates a workspace (super admin). The creator gets no membership row. */
export async function createWorkspace(
  db: Db,
  actor: Principal,
  input: { name?: unknown; display_name?: unknown },
): Promise<WorkspaceView> {
  const name = parseName(input.name);
  const displayName = input.display_name === undefined || input.display_name === null
    ? name
    : parseDisplayName(input.display_name);
  const now = new Date().toISOString();
  const record: WorkspaceRecord = {
    id: newId(),
    name,
    display_name: displayName,
    is_personal: false,
    created_at: now,
    updated_at: now,
    deactivated_at: null,
    deleted_at: null,
  };
  try {
    await db.transaction(async (tx) => {
      await repo.insertWorkspace(tx, record);
      await auditWorkspaceAct(tx, actor, "auth.workspace.created", record, {
        display_name: displayName,
      });
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new AppError("workspace.validation.duplicate_name", { name });
    throw e;
  }
  return viewOf(record);
}

/** The stored row by name, deactivated ones included; null when unknown or soft-deleted. */
export async function findWorkspace(db: Db, name: string): Promise<WorkspaceRecord | null> {
  if (typeof name !== "string" || !WORKSPACE_NAME_RE.test(name)) return null;
  return (await repo.findLiveByName(db, name)) ?? null;
}

/** `GET /workspaces/{name}`; 404 `workspace.not_found` when unknown or deleted. */
export async function viewWorkspace(db: Db, name: string): Promise<WorkspaceView> {
  return viewOf(await liveWorkspace(db, name));
}

/**
 * The user's memberships in active workspaces, oldest first. A super admin also sees every
 * other workspace (role `super_admin`, `joined_at` null), deactivated ones with their date.
 */
export async function listWorkspacesFor(db: Db, user: WorkspaceUser): Promise<WorkspaceListRow[]> {
  const userId = isUuid(user.userId) ? user.userId.toLowerCase() : null;
  if (!user.isSuperAdmin) {
    return userId ? (await repo.listActiveMemberships(db, userId)).map(listRow) : [];
  }
  const rows = await repo.listLiveWithMembership(db, userId);
  const joined = rows.filter((r) => r.flags !== null)
    .sort((a, b) => a.joined_at!.localeCompare(b.joined_at!) || a.name.localeCompare(b.name));
  const others = rows.filter((r) => r.flags === null); // already by name
  return [...joined, ...others].map(listRow);
}

/** Changes the display name (absent keeps it). Refused on a deactivated workspace. */
export async function updateWorkspace(
  db: Db,
  actor: Principal,
  name: string,
  input: { display_name?: unknown },
): Promise<WorkspaceView> {
  const next = input.display_name === undefined || input.display_name === null
    ? undefined
    : parseDisplayName(input.display_name);
  return await db.transaction(async (tx) => {
    const ws = await activeWorkspace(tx, name, true);
    if (next === undefined || next === ws.display_name) return viewOf(ws);
    const now = new Date().toISOString();
    await repo.updateDisplayName(tx, ws.id, next, now);
    await auditWorkspaceAct(tx, actor, "workspace.updated", ws, {
      from: { display_name: ws.display_name },
      to: { display_name: next },
    });
    return viewOf({ ...ws, display_name: next, updated_at: now });
  });
}

/**
 * Soft-deletes a workspace that owns no content (409 `workspace.in_use` with `details.counts`
 * otherwise). Its pending invitations go with it; memberships stay as history but nothing
 * reaches a deleted workspace again. The name stays reserved.
 */
export async function removeWorkspace(
  db: Db,
  counters: Record<string, ContentCounter>,
  actor: Principal,
  name: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const ws = await liveWorkspace(tx, name, true);
    const counts: Record<string, number> = {};
    for (const [kind, count] of Object.entries(counters)) {
      const n = await count(tx, ws.id);
      if (n > 0) counts[kind] = n;
    }
    const kinds = Object.keys(counts).sort();
    if (kinds.length > 0) {
      throw new AppError("workspace.in_use", {
        workspace: ws.name,
        counts,
        summary: kinds.map((k) => `${counts[k]} ${k}`).join(", "),
      });
    }
    await repo.softDelete(tx, ws.id, new Date().toISOString());
    const invitations = await deleteInvitationsOf(tx, ws.id);
    await auditWorkspaceAct(tx, actor, "workspace.deleted", ws, {
      invitations_dropped: invitations,
    });
  });
}

/**
 * Deactivates (`deactivate` true) or reactivates; a call that changes nothing succeeds without a
 * second audit row.
 */
export async function setWorkspaceState(
  db: Db,
  actor: Principal,
  name: string,
  deactivate: boolean,
): Promise<WorkspaceView> {
  return await db.transaction(async (tx) => {
    const ws = await liveWorkspace(tx, name);
    const now = new Date().toISOString();
    if (await repo.setDeactivated(tx, ws.id, deactivate, now) === 1) {
      await auditWorkspaceAct(
        tx,
        actor,
        deactivate ? "workspace.deactivated" : "workspace.reactivated",
        ws,
      );
    }
    return viewOf((await repo.findLiveByName(tx, ws.name))!);
  });
}

/**
 * Creates the `demo` workspace at first boot. Any row with the name, deactivated or deleted,
 * counts as existing, so it is never recreated. Race-safe across replicas. True when created.
 */
export async function seedDemoWorkspace(db: Db): Promise<boolean> {
  const now = new Date().toISOString();
  const record: WorkspaceRecord = {
    id: newId(),
    ...DEMO_WORKSPACE,
    is_personal: false,
    created_at: now,
    updated_at: now,
    deactivated_at: null,
    deleted_at: null,
  };
  return await db.transaction(async (tx) => {
    if (await repo.insertWorkspaceIfNameFree(tx, record) === 0) return false;
    await recordAudit(tx, {
      event: "auth.workspace.created",
      userId: null,
      provider: SYSTEM_PROVIDER,
      workspaceId: record.id,
      details: { workspace: record.name, display_name: record.display_name, seeded: true },
    });
    return true;
  });
}
