/** Workspaces: workspaces, members, invitations, and the per-request workspace resolution. */
export { type AccessDirectory, CachedAccessDirectory } from "./access_directory.ts";
export { roleOf } from "./lifecycle.ts";
export { type LandingUser } from "./landing.ts";
export { joinAtCreation, materialiseInvitations } from "./members.ts";
export { WorkspaceService, type WorkspaceServiceOptions } from "./service.ts";
export * from "./types.ts";
export {
  invitationReceiptView,
  invitationView,
  membersView,
  memberView,
  workspaceRowView,
  workspaceView,
} from "./views.ts";
