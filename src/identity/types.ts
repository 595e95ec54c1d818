/**
 * The access vocabulary shared by identity, workspaces and the front ends (docs/access.md#roles).
 */

/** Credential axis (API keys only). `admin` exists only to be refused. */
export type Scope = "read" | "execute" | "author";
export const SCOPES: readonly Scope[] = ["read", "execute", "author"];

export type KeyKind = "user" | "endpoint" | "server";

/** Membership axis, as named in the operation matrix. */
export type Role =
  | "view"
  | "execute"
  | "author"
  | "promote"
  | "switch"
  | "ws_admin"
  | "super_admin";

export interface MembershipFlags {
  author: boolean;
  promoter: boolean;
  admin: boolean;
}

/** Who is calling: resolved once per request by the session or API key step. */
export interface Principal {
  userId: string;
  email: string;
  displayName: string;
  /** The user's provider: `local`, an OIDC registration name, `bootstrap`, `system`. */
  provider: string;
  isSuperAdmin: boolean;
  /** `OIDC` for every session (a browser session, whatever opened it), `API_KEY` for keys. */
  authMethod: "OIDC" | "API_KEY";
  /** Sessions: how the session was opened (RFC 8176). */
  amr?: "pwd" | "oidc";
  /** Sessions: a forced password change is pending. */
  mustChangePassword: boolean;
  /** Sessions: the workspace name stamped in the token, if any. */
  activeWorkspace?: string;
  /** Keys only. */
  keyId?: string;
  keyKind?: KeyKind;
  /** Keys: the key's scopes, expanded (author ⊃ execute ⊃ read); sessions: empty. */
  scopes: Scope[];
  /** Keys: the workspace the key was pinned to at issuance. */
  pinnedWorkspaceId?: string;
}

/** The workspace a request acts in, with the caller's flags there. */
export interface WorkspaceContext {
  id: string;
  name: string;
  /**
   * The caller's membership flags; for a super admin without a row, every flag. Null only for a
   * key whose issuer is no longer a member of the key's pinned workspace.
   */
  flags: MembershipFlags | null;
  /** True when a super admin acts here without an explicit membership row. */
  implicit: boolean;
}

/** `author` ⊃ `execute` ⊃ `read`. */
export function expandScopes(scopes: readonly string[]): Scope[] {
  const out = new Set<Scope>();
  for (const s of scopes) {
    if (s === "author" || s === "admin") out.add("author").add("execute").add("read");
    else if (s === "execute") out.add("execute").add("read");
    else if (s === "read") out.add("read");
  }
  return SCOPES.filter((s) => out.has(s));
}

/** The role names a caller's flags satisfy, for `details.held`. */
export function rolesHeld(flags: MembershipFlags | null, isSuperAdmin: boolean): Role[] {
  if (isSuperAdmin) {
    return ["view", "execute", "author", "promote", "switch", "ws_admin", "super_admin"];
  }
  if (!flags) return [];
  const held: Role[] = ["view", "execute"];
  if (flags.author || flags.admin) held.push("author");
  if (flags.promoter) held.push("promote");
  if (flags.author || flags.promoter || flags.admin) held.push("switch");
  if (flags.admin) held.push("ws_admin");
  return held;
}
