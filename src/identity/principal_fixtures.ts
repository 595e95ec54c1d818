/** Principals and workspace contexts for the access tests, without a store. */
import {
  expandScopes,
  type MembershipFlags,
  type Principal,
  type WorkspaceContext,
} from "./types.ts";

/** A password session of a fresh user; `over` changes any field. */
export const session = (over: Partial<Principal> = {}): Principal => ({
  userId: crypto.randomUUID(),
  email: "u@example.com",
  displayName: "U",
  provider: "local",
  isSuperAdmin: false,
  authMethod: "OIDC",
  amr: "pwd",
  mustChangePassword: false,
  scopes: [],
  ...over,
});

/** A user-kind API key holding `scopes` (expanded as issuance would). */
export const key = (scopes: string[], over: Partial<Principal> = {}): Principal =>
  session({
    authMethod: "API_KEY",
    keyId: "svck_x",
    keyKind: "user",
    scopes: expandScopes(scopes),
    ...over,
  });

/** The workspace `acme` with `flags` (null: no membership). */
export const ws = (flags: MembershipFlags | null, implicit = false): WorkspaceContext => ({
  id: crypto.randomUUID(),
  name: "acme",
  flags,
  implicit,
});
