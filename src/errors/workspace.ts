/** Workspaces, members and invitations. */
import type { CatalogueEntry } from "./entry.ts";

export const workspaceErrors = {
  "workspace.not_found": {
    status: 404,
    message: "No reachable workspace matches {workspace}.",
    user_message: "The workspace does not exist or you cannot reach it.",
  },
  "workspace.membership_required": {
    status: 403,
    message: "The caller has no workspace membership.",
    user_message: "You are not a member of any workspace yet.",
  },
  "workspace.header_forbidden": {
    status: 400,
    message:
      "The SVC-Workspace header cannot be used with an API key; the key's pinned workspace applies.",
    user_message: "Keys work only in their own workspace.",
  },
  "workspace.inactive": {
    status: 404,
    message: "The workspace {workspace} is deactivated.",
    user_message: "The workspace is deactivated.",
  },
  "workspace.last_admin": {
    status: 409,
    message: "The change would leave workspace {workspace} without an admin.",
    user_message: "A workspace needs at least one admin.",
  },
  "workspace.in_use": {
    status: 409,
    message: "The workspace still owns content: {summary}.",
    user_message: "Remove the workspace's content first.",
  },
  "workspace.invitation.not_found": {
    status: 404,
    message: "No pending invitation for {email} in this workspace.",
    user_message: "There is no such invitation.",
  },
  "workspace.validation.name_invalid": {
    status: 400,
    message: "The workspace name must match [a-z0-9_-]{1,63}: {reason}.",
    user_message: "The workspace name is not valid.",
  },
  "workspace.validation.duplicate_name": {
    status: 409,
    message: "The workspace name {name} is taken (deleted names stay reserved).",
    user_message: "That workspace name is taken.",
  },
} as const satisfies Record<string, CatalogueEntry>;
