/**
 * Workspaces and their people as read: one zod schema per shape, for the REST responses.
 */
import { z } from "zod";

const flags = {
  author: z.boolean(),
  promoter: z.boolean(),
  admin: z.boolean().describe("workspace admin; implies author"),
};

/** `GET /workspaces/{name}`; `deactivated_at` only while deactivated. */
export const workspaceView = z.object({
  name: z.string(),
  display_name: z.string(),
  is_personal: z.boolean(),
  created_at: z.string(),
  deactivated_at: z.string().optional(),
}).meta({ id: "Workspace" });

/** A row of `GET /workspaces`: the caller's membership (a super admin's implicit rows too). */
export const workspaceRowView = z.object({
  name: z.string(),
  display_name: z.string(),
  role: z.enum(["admin", "author", "promoter", "viewer", "super_admin"]),
  ...flags,
  joined_at: z.string().nullable().describe("null for a super admin's implicit row"),
  deactivated_at: z.string().optional(),
});

export const memberView = z.object({
  user_id: z.string(),
  email: z.string(),
  display_name: z.string(),
  ...flags,
  joined_at: z.string(),
}).meta({ id: "Member" });

export const invitationView = z.object({
  email: z.string(),
  ...flags,
  invited_by: z.string().describe("the inviting user's id"),
  invited_at: z.string(),
});

/** `GET /workspaces/{name}/members`: two arrays, never mixed. */
export const membersView = z.object({
  members: z.array(memberView).describe("oldest first"),
  invitations: z.array(invitationView),
});

/** Add-member's 202: no user holds the email, so an invitation was created or replaced. */
export const invitationReceiptView = z.object({
  invited: z.literal(true),
  email: z.string(),
  ...flags,
});

export type WorkspaceView = z.output<typeof workspaceView>;
export type WorkspaceListRow = z.output<typeof workspaceRowView>;
/** Highest of admin > author > promoter, else viewer; `super_admin` for an implicit row. */
export type WorkspaceRole = WorkspaceListRow["role"];
export type MemberRow = z.output<typeof memberView>;
export type InvitationRow = z.output<typeof invitationView>;
export type MembersView = z.output<typeof membersView>;
export type InvitationReceipt = z.output<typeof invitationReceiptView>;
