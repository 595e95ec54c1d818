/**
 * Principals of every role for HTTP tests: users in workspace `acme` as viewer, author, promoter
 * and workspace admin, a super admin with no membership, plus helpers for a browser session
 * (cookie and CSRF header) and API keys of each scope.
 */
import { hashSecret } from "../../src/lib/argon2.ts";
import type { Principal, WorkspaceContext } from "../../src/identity/types.ts";
import type { Runtime } from "../../src/runtime.ts";
import { insertUser } from "../../src/store/row_fixtures.ts";

export type RoleName = "viewer" | "author" | "promoter" | "ws_admin" | "super_admin";
export const ROLE_NAMES: RoleName[] = ["viewer", "author", "promoter", "ws_admin", "super_admin"];

export interface TestUser {
  id: string;
  email: string;
  password: string;
  principal: Principal;
}

export interface AccessFixture {
  workspace: { id: string; name: string };
  users: Record<RoleName, TestUser>;
}

const FLAGS: Record<RoleName, { author: boolean; promoter: boolean; admin: boolean } | null> = {
  viewer: { author: false, promoter: false, admin: false },
  author: { author: true, promoter: false, admin: false },
  promoter: { author: false, promoter: true, admin: false },
  ws_admin: { author: true, promoter: false, admin: true },
  super_admin: null,
};

export const TEST_PASSWORD = "a long test password";
let passwordHash: Promise<string> | undefined;

/** Inserts a local user directly (the admin create path arrives with the next issue). */
export async function createUser(
  rt: Runtime,
  email: string,
  options: { isAdmin?: boolean; mustChange?: boolean } = {},
): Promise<TestUser> {
  passwordHash ??= hashSecret(TEST_PASSWORD);
  const id = await insertUser(rt.db, email, {
    display_name: email.split("@")[0],
    is_admin: options.isAdmin ?? false,
    password_hash: await passwordHash,
    must_change_password: options.mustChange ?? false,
  });
  return {
    id,
    email,
    password: TEST_PASSWORD,
    principal: {
      userId: id,
      email,
      displayName: email.split("@")[0],
      provider: "local",
      isSuperAdmin: options.isAdmin ?? false,
      authMethod: "OIDC",
      amr: "pwd",
      mustChangePassword: options.mustChange ?? false,
      scopes: [],
    },
  };
}

export async function seedRoles(rt: Runtime, workspaceName = "acme"): Promise<AccessFixture> {
  const users = {} as Record<RoleName, TestUser>;
  for (const role of ROLE_NAMES) {
    users[role] = await createUser(rt, `${role.replace("_", "-")}@${workspaceName}.example`, {
      isAdmin: role === "super_admin",
    });
  }
  await rt.workspaces.create(users.super_admin.principal, {
    name: workspaceName,
    display_name: "Acme",
  });
  for (const role of ROLE_NAMES) {
    const flags = FLAGS[role];
    if (flags) {
      await rt.workspaces.addMember(users.super_admin.principal, workspaceName, {
        email: users[role].email,
        ...flags,
      });
    }
  }
  rt.directory.forgetWorkspaces();
  const ws = await rt.workspaces.get(workspaceName);
  return { workspace: { id: ws!.id, name: workspaceName }, users };
}

/** Headers of a browser session: the session cookie, the CSRF cookie and its header twin. */
export async function sessionHeaders(
  rt: Runtime,
  user: TestUser,
  workspace?: string,
): Promise<Record<string, string>> {
  const token = await rt.sessions.issue(
    { id: user.id, email: user.email, displayName: user.principal.displayName },
    "pwd",
    workspace,
  );
  const csrf = "csrf" + crypto.randomUUID().replaceAll("-", "");
  return { cookie: `svc_session=${token}; svc_csrf=${csrf}`, "SVC-CSRF-Token": csrf };
}

/** A user key of the given scopes, issued in `workspace` by `user`. */
export async function userKey(
  rt: Runtime,
  user: TestUser,
  workspaceId: string,
  scopes: string[],
): Promise<string> {
  const issued = await rt.keys.issue(
    { ...user.principal, activeWorkspaceId: workspaceId },
    { name: `test ${scopes.join("+")}`, scopes },
    { flags: { author: true, promoter: true, admin: true }, isSuperAdmin: true },
  );
  return issued.key;
}

/** The seeded workspace as its admin acts in it: what datasource writes take as their scope. */
export function adminScope(f: { workspace: { id: string; name: string } }): WorkspaceContext {
  return {
    id: f.workspace.id,
    name: f.workspace.name,
    flags: { author: true, promoter: false, admin: true },
    implicit: false,
  };
}
