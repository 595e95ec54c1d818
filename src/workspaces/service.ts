/**
 * Workspaces, members and invitations (docs/access.md#workspaces) and the per-request workspace
 * resolution, behind the one service callers construct. The use cases live by concern: lifecycle.ts
 * (workspaces themselves), members.ts (members and invitations), resolve.ts (which workspace a
 * request acts in). The front end has already judged the caller's role; the use cases enforce the
 * business rules (name grammar, last admin, deactivation, content in use) and write each change's
 * audit row in the change's own transaction. A soft-deleted workspace is unknown everywhere; its
 * name stays reserved.
 */
import type { Principal } from "../identity/mod.ts";
import type { Db } from "../store/mod.ts";
import {
  createWorkspace,
  findWorkspace,
  listWorkspacesFor,
  removeWorkspace,
  seedDemoWorkspace,
  setWorkspaceState,
  updateWorkspace,
  viewWorkspace,
} from "./lifecycle.ts";
import { type LandingUser, landingWorkspace } from "./landing.ts";
import {
  addMember,
  listMembership,
  removeMember,
  revokeInvitation,
  setMemberFlags,
} from "./members.ts";
import {
  defaultForUser,
  flagsFor,
  membershipCount,
  rememberLastUsed,
  resolveById,
  resolveForUser,
} from "./resolve.ts";
import type {
  AddMemberResult,
  ContentCounter,
  MemberRow,
  MembershipFlags,
  MembersView,
  ResolvedById,
  WorkspaceContext,
  WorkspaceListRow,
  WorkspaceRecord,
  WorkspaceUser,
  WorkspaceView,
} from "./types.ts";

/** Construction options of {@link WorkspaceService}. */
export interface WorkspaceServiceOptions {
  db: Db;
  /** The login allowlist (`service.auth.allowlist-domains`); empty means open. */
  allowlistDomains: string[];
  /**
   * Workspace-owned content by kind (`pipelines`, `templates`…): any of it blocks deleting the
   * workspace (`workspace.in_use`). The domains owning those tables export the counters;
   * services.ts passes them in. Counters run inside the delete's transaction.
   */
  contentCounters?: Record<string, ContentCounter>;
}

/** Every workspace use case over one store; one per process, shared by every request. */
export class WorkspaceService {
  readonly #db: Db;
  readonly #allowlist: Set<string>;
  readonly #counters: Record<string, ContentCounter>;
  readonly #stateListeners: (() => void | Promise<void>)[] = [];

  constructor(options: WorkspaceServiceOptions) {
    this.#db = options.db;
    this.#allowlist = new Set(options.allowlistDomains.map((d) => d.trim().toLowerCase()));
    this.#counters = options.contentCounters ?? {};
  }

  // --- workspaces -------------------------------------------------------------------------------

  /** Creates a workspace (super admin). The creator gets no membership row. */
  create(
    actor: Principal,
    input: { name?: unknown; display_name?: unknown },
  ): Promise<WorkspaceView> {
    return createWorkspace(this.#db, actor, input);
  }

  /** The stored row by name, deactivated ones included; null when unknown or soft-deleted. */
  get(name: string): Promise<WorkspaceRecord | null> {
    return findWorkspace(this.#db, name);
  }

  /** `GET /workspaces/{name}`; 404 `workspace.not_found` when unknown or deleted. */
  view(name: string): Promise<WorkspaceView> {
    return viewWorkspace(this.#db, name);
  }

  /**
   * The caller's memberships in active workspaces, oldest first. A super admin also sees every
   * other workspace (role `super_admin`, `joined_at` null), deactivated ones with their date.
   */
  listForUser(user: WorkspaceUser): Promise<WorkspaceListRow[]> {
    return listWorkspacesFor(this.#db, user);
  }

  /** Changes the display name (absent keeps it). Refused on a deactivated workspace. */
  update(
    actor: Principal,
    name: string,
    input: { display_name?: unknown },
  ): Promise<WorkspaceView> {
    return updateWorkspace(this.#db, actor, name, input);
  }

  /**
   * Soft-deletes a workspace that owns no content (409 `workspace.in_use` with `details.counts`
   * otherwise). Its pending invitations go with it; memberships stay as history but nothing
   * reaches a deleted workspace again. The name stays reserved.
   */
  async remove(actor: Principal, name: string): Promise<void> {
    await removeWorkspace(this.#db, this.#counters, actor, name);
    await this.#stateChanged();
  }

  /** Deactivates; a second call is a no-op success without a second audit row. */
  async deactivate(actor: Principal, name: string): Promise<WorkspaceView> {
    const view = await setWorkspaceState(this.#db, actor, name, true);
    await this.#stateChanged();
    return view;
  }

  /** Reactivates; pending invitations become live at the invitee's next login. */
  async reactivate(actor: Principal, name: string): Promise<WorkspaceView> {
    const view = await setWorkspaceState(this.#db, actor, name, false);
    await this.#stateChanged();
    return view;
  }

  /**
   * Calls `listen` after a workspace is deactivated, reactivated or deleted (committed): what
   * higher domains cache about a workspace's liveness (published endpoints) follows it.
   */
  onStateChange(listen: () => void | Promise<void>): void {
    this.#stateListeners.push(listen);
  }

  async #stateChanged(): Promise<void> {
    for (const listen of this.#stateListeners) await listen();
  }

  // --- members ----------------------------------------------------------------------------------

  /** Members (oldest first) and pending invitations, never mixed. */
  members(name: string): Promise<MembersView> {
    return listMembership(this.#db, name);
  }

  /**
   * Adds a member by email: an existing user becomes a member (an existing member is returned
   * unchanged), an unknown email gets an invitation created or replaced.
   */
  addMember(actor: Principal, name: string, body: unknown): Promise<AddMemberResult> {
    return addMember(this.#db, this.#allowlist, actor, name, body);
  }

  /** Replaces a member's three flags wholesale (absent means false; admin implies author). */
  setFlags(actor: Principal, name: string, userId: string, body: unknown): Promise<MemberRow> {
    return setMemberFlags(this.#db, actor, name, userId, body);
  }

  /** Removes a member; never the last admin. */
  removeMember(actor: Principal, name: string, userId: string): Promise<void> {
    return removeMember(this.#db, actor, name, userId);
  }

  /** Revokes a pending invitation; allowed inside a deactivated workspace. */
  revokeInvitation(actor: Principal, name: string, email: string): Promise<void> {
    return revokeInvitation(this.#db, actor, name, email);
  }

  // --- resolution -------------------------------------------------------------------------------

  /**
   * The workspace `name` as `user` acts in it; null when unknown, deleted, deactivated, or the
   * user is no member. A super admin resolves every active workspace with every flag (`implicit`
   * when they hold no membership row there).
   */
  resolveForUser(user: WorkspaceUser, name: string): Promise<WorkspaceContext | null> {
    return resolveForUser(this.#db, user, name);
  }

  /**
   * A key's pinned workspace by id: `missing` (unknown or deleted, context null), `deactivated` or
   * `active`, with the issuer's context there (flags null when no longer a member).
   */
  resolveById(user: WorkspaceUser, workspaceId: string): Promise<ResolvedById> {
    return resolveById(this.#db, user, workspaceId);
  }

  /**
   * The last-used workspace while it is a live, active membership, else the oldest such
   * membership, else null (a super admin without memberships too).
   */
  defaultForUser(user: WorkspaceUser): Promise<WorkspaceContext | null> {
    return defaultForUser(this.#db, user);
  }

  /**
   * The workspace a login lands in: last-used, else the oldest active membership, else (no
   * membership at all, no super admin, no invitation materialised) a demo viewer membership,
   * audited `first_login_demo_viewer`. Null when nothing is selectable.
   */
  landing(
    user: LandingUser,
    options: { invitationMaterialised: boolean },
  ): Promise<WorkspaceContext | null> {
    return landingWorkspace(this.#db, user, options);
  }

  /** Remembers the workspace a user acted in, for `defaultForUser` next time. */
  rememberLastUsed(userId: string, workspaceId: string): Promise<void> {
    return rememberLastUsed(this.#db, userId, workspaceId);
  }

  /** Live memberships in active workspaces. */
  membershipCount(userId: string): Promise<number> {
    return membershipCount(this.#db, userId);
  }

  /** The user's membership flags in a (not deleted) workspace, or null: one primary-key read. */
  flagsFor(userId: string, workspaceId: string): Promise<MembershipFlags | null> {
    return flagsFor(this.#db, userId, workspaceId);
  }

  // --- seeding ----------------------------------------------------------------------------------

  /**
   * Creates the `demo` workspace at first boot. Any row with the name, deactivated or deleted,
   * counts as existing, so it is never recreated. Race-safe across replicas. True when created.
   */
  seedDemoWorkspace(): Promise<boolean> {
    return seedDemoWorkspace(this.#db);
  }
}
