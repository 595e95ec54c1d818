/** The workspace vocabulary: rows as stored, and the shapes the front ends serve. */
import type { MembershipFlags, WorkspaceContext } from "../identity/mod.ts";
import type { Queryable } from "../store/mod.ts";
import type { InvitationReceipt, MemberRow } from "./views.ts";

export type { MembershipFlags, WorkspaceContext };

/** Workspace names: one global namespace, soft-deleted names included. */
export const WORKSPACE_NAME_RE = /^[a-z0-9_-]{1,63}$/;
export const DISPLAY_NAME_MAX = 200;
export const EMAIL_MAX = 254;
export const DEMO_WORKSPACE = { name: "demo", display_name: "Demo" } as const;

/** A workspace row as stored. `get()` never returns a soft-deleted one. */
export interface WorkspaceRecord {
  id: string;
  name: string;
  display_name: string;
  is_personal: boolean;
  created_at: string;
  updated_at: string;
  /** Set while deactivated. */
  deactivated_at: string | null;
  /** Set once soft-deleted; such a row only keeps its name reserved. */
  deleted_at: string | null;
}

/** The shapes the front ends serve are the views' (views.ts). */
export type {
  InvitationReceipt,
  InvitationRow,
  MemberRow,
  MembersView,
  WorkspaceListRow,
  WorkspaceRole,
  WorkspaceView,
} from "./views.ts";
export type AddMemberResult =
  | { status: 200; member: MemberRow }
  | { status: 202; invitation: InvitationReceipt };

/** A key's pinned workspace: its state, and the issuer's context there (null when missing). */
export interface ResolvedById {
  state: "active" | "deactivated" | "missing";
  context: WorkspaceContext | null;
}

/** Who a resolution is for. */
export interface WorkspaceUser {
  userId: string;
  isSuperAdmin: boolean;
}

/** Counts one kind of content a workspace owns; registered by the domain that owns the table. */
export type ContentCounter = (db: Queryable, workspaceId: string) => Promise<number>;
