/**
 * The operation matrix as one table (docs/access.md#roles). Every route declares one of these names
 * (or `public`); the scope-and-role step reads the row. Both axes must hold: `scope` for API keys,
 * `role` for everyone (keys through their issuer's current membership).
 *
 * `workspace` says what context the operation needs:
 *  - `required`: a resolved workspace (zero memberships → workspace.membership_required);
 *  - `optional`: acts on the caller or the instance; uses a workspace when one resolves;
 *  - `instance`: a super admin's instance verb, allowed without any workspace.
 *
 * The matrix's `admin` scope cannot be held by a key, yet user administration stays open to the
 * keys of super admins (docs/decisions.md#passwords-and-server-keys-need-a-session), so an `admin`
 * row is met by a key holding `author` whose owner is a super admin; the role axis then does the
 * real check.
 */
import type { Role } from "./types.ts";

export type RequiredScope = "read" | "execute" | "author" | "admin";

export interface OperationRule {
  scope: RequiredScope;
  role: Role;
  workspace: "required" | "optional" | "instance";
  /** API keys are refused with auth.session.required. */
  sessionOnly?: boolean;
  /** Matrix wording, for the docs and error details. */
  label: string;
}

export const OPERATIONS = {
  "content.read": {
    scope: "read",
    role: "view",
    workspace: "required",
    label: "Read pipelines, templates, datasource metadata, executions",
  },
  "results.read": {
    scope: "read",
    role: "view",
    workspace: "required",
    label: "Retrieve execution results",
  },
  "pipelines.execute": {
    scope: "execute",
    role: "execute",
    workspace: "required",
    label: "Execute a pipeline",
  },
  "executions.cancel": {
    scope: "execute",
    role: "execute",
    workspace: "required",
    label: "Cancel an execution",
  },
  "content.write": {
    scope: "author",
    role: "author",
    workspace: "required",
    label: "Create, update, delete pipelines and templates; import",
  },
  "content.write_session": {
    scope: "author",
    role: "author",
    workspace: "required",
    sessionOnly: true,
    label: "Purge, discard, restore, switch and delete (session only)",
  },
  "datasources.test": {
    scope: "author",
    role: "ws_admin",
    workspace: "required",
    label: "Test a datasource connection",
  },
  "datasources.introspect": {
    scope: "author",
    role: "author",
    workspace: "required",
    label: "Introspect a datasource",
  },
  "datasources.write": {
    scope: "author",
    role: "ws_admin",
    workspace: "required",
    label: "Register, update, delete a workspace-bound datasource",
  },
  "datasources.write_instance": {
    scope: "admin",
    role: "super_admin",
    workspace: "instance",
    label: "Register, update, delete an instance datasource",
  },
  "keys.manage_own": {
    scope: "read",
    role: "view",
    workspace: "optional",
    label: "Manage own API keys",
  },
  "me.read": { scope: "read", role: "view", workspace: "optional", label: "Current principal" },
  "profile.theme": { scope: "read", role: "view", workspace: "optional", label: "Own theme" },
  "users.admin": {
    scope: "admin",
    role: "super_admin",
    workspace: "instance",
    label: "User administration",
  },
  "users.admin_local": {
    scope: "admin",
    role: "super_admin",
    workspace: "instance",
    sessionOnly: true,
    label: "Create, reset, disable-local, unlock local accounts (session only)",
  },
  "workspaces.read": {
    scope: "read",
    role: "view",
    workspace: "optional",
    label: "List and read own workspaces and members",
  },
  "workspaces.create": {
    scope: "admin",
    role: "super_admin",
    workspace: "instance",
    label: "Create a workspace",
  },
  "workspaces.update": {
    scope: "author",
    role: "ws_admin",
    workspace: "required",
    label: "Update or delete a workspace",
  },
  "workspaces.state": {
    scope: "admin",
    role: "super_admin",
    workspace: "instance",
    label: "Deactivate or reactivate a workspace",
  },
  "members.manage": {
    scope: "author",
    role: "ws_admin",
    workspace: "required",
    label: "Members: add, remove, set flags",
  },
  "password.change_own": {
    scope: "read",
    role: "view",
    workspace: "optional",
    sessionOnly: true,
    label: "Change own password",
  },
  "session.logout": {
    scope: "read",
    role: "view",
    workspace: "optional",
    sessionOnly: true,
    label: "Sign out",
  },
  "workspace.switch": {
    scope: "read",
    role: "view",
    workspace: "optional",
    sessionOnly: true,
    label: "Switch the active workspace",
  },
  "audit.read": {
    scope: "read",
    role: "ws_admin",
    workspace: "optional",
    label: "Read the workspace audit trail (super admin: all)",
  },
  "endpoints.serve": {
    scope: "read",
    role: "view",
    workspace: "required",
    label: "Serve a published endpoint",
  },
  "endpoints.manage": {
    scope: "author",
    role: "author",
    workspace: "required",
    label: "Manage published endpoints",
  },
  "lake_tables.manage": {
    scope: "author",
    role: "author",
    workspace: "required",
    label: "Lake tables register, import, unregister",
  },
  "versions.release": {
    scope: "author",
    role: "promote",
    workspace: "required",
    label: "Release a version",
  },
  // Switching is session-only too (docs/authoring.md): a key with author scope is refused.
  "versions.switch": {
    scope: "author",
    role: "switch",
    workspace: "required",
    sessionOnly: true,
    label: "Switch served version (session only)",
  },
  "promotion.promote": {
    scope: "author",
    role: "promote",
    workspace: "required",
    label: "Promote to the higher environment",
  },
  // The tool endpoint's floors (docs/decisions.md#the-tool-list-is-fixed): one row per distinct
  // (scope, role) of its table, so a tool names its floor the way a route names its operation and
  // is judged by the same code.
  "tools.read": {
    scope: "read",
    role: "view",
    workspace: "required",
    label: "Tools that read the pinned workspace's content",
  },
  "tools.read_instance": {
    scope: "read",
    role: "view",
    workspace: "optional",
    label: "Tools that touch no workspace data (calculators, docs)",
  },
  "tools.execute": {
    scope: "execute",
    role: "execute",
    workspace: "required",
    label: "Tools that run, cancel or check pipelines",
  },
  "tools.execute_node": {
    scope: "author",
    role: "execute",
    workspace: "required",
    label: "Run one node of a pipeline (tool)",
  },
  "tools.inspect": {
    scope: "author",
    role: "view",
    workspace: "required",
    label: "Tools that introspect, preview or probe datasources",
  },
  "tools.datasource_test": {
    scope: "author",
    role: "ws_admin",
    workspace: "required",
    label: "Test a datasource connection (tool)",
  },
  "tools.write": {
    scope: "author",
    role: "author",
    workspace: "required",
    label: "Tools that create and change content",
  },
  "datasources.grant": {
    scope: "admin",
    role: "super_admin",
    workspace: "instance",
    label: "Grant or revoke a datasource to a workspace",
  },
} as const satisfies Record<string, OperationRule>;

export type Operation = keyof typeof OPERATIONS;

/** What a route declares: an operation, or `public` for the allowlisted platform routes. */
export type RouteAccess = Operation | "public";
