/** Shared set-up for the workspace tests: users, actors and set-ups. */
import { deepEqual } from "node:assert/strict";
import type { Principal } from "../identity/mod.ts";
import type { Db, Queryable } from "../store/mod.ts";
import { insertUser } from "../store/row_fixtures.ts";
import { WorkspaceService } from "./service.ts";

export function service(db: Db, allowlistDomains: string[] = []): WorkspaceService {
  return new WorkspaceService({ db, allowlistDomains });
}

/** The workspace service and a super admin, `root@x.example`, to act with it. */
export async function serviceWithRoot(db: Db): Promise<{ svc: WorkspaceService; root: Principal }> {
  return { svc: service(db), root: await addUser(db, "root@x.example", { isAdmin: true }) };
}

/** Inserts a `local` user row and returns it as a session principal. */
export async function addUser(
  db: Queryable,
  email: string,
  options: { isAdmin?: boolean; provider?: string } = {},
): Promise<Principal> {
  const provider = options.provider ?? "local";
  const id = await insertUser(db, email, {
    display_name: `User ${email}`,
    provider,
    is_admin: options.isAdmin ?? false,
  });
  return {
    userId: id,
    email,
    displayName: `User ${email}`,
    provider,
    isSuperAdmin: options.isAdmin ?? false,
    authMethod: "OIDC",
    mustChangePassword: false,
    scopes: [],
  };
}

export const who = (p: Principal) => ({ userId: p.userId, isSuperAdmin: p.isSuperAdmin });

/** Asserts two lists hold the same values in any order (objects compared with sorted keys). */
export function sameItems(actual: unknown[], expected: unknown[]): void {
  const canon = (v: unknown): string =>
    JSON.stringify(
      v,
      (_k, x) =>
        x && typeof x === "object" && !Array.isArray(x)
          ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b)))
          : x,
    );
  deepEqual(actual.map(canon).sort(), expected.map(canon).sort());
}

/** Pins a membership's `joined_at` so ordering tests do not depend on the clock's resolution. */
export async function setJoinedAt(
  db: Queryable,
  workspace: string,
  userId: string,
  at: string,
): Promise<void> {
  await db.execute(
    `UPDATE memberships SET joined_at = $3
     WHERE user_id = $2 AND workspace_id = (SELECT id FROM workspaces WHERE name = $1)`,
    [workspace, userId, at],
  );
}

/** A workspace with one admin member; returns the service, the super admin and the admin. */
export async function workspaceWithAdmin(db: Db, name = "acme") {
  const svc = service(db);
  const root = await addUser(db, `root@${name}.example`, { isAdmin: true });
  const admin = await addUser(db, `admin@${name}.example`);
  await svc.create(root, { name });
  await svc.addMember(root, name, { email: admin.email, admin: true });
  return { svc, root, admin };
}
