/** Shared set-up for the workspace tests: users, actors, audit reads and refusal checks. */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { type AuditRecord, queryAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import type { Principal } from "../identity/mod.ts";
import type { Db, Queryable } from "../store/mod.ts";
import { WorkspaceService } from "./service.ts";

export function service(db: Db, allowlistDomains: string[] = []): WorkspaceService {
  return new WorkspaceService({ db, allowlistDomains });
}

/** Inserts a `local` user row and returns it as a session principal. */
export async function addUser(
  db: Queryable,
  email: string,
  options: { isAdmin?: boolean; provider?: string } = {},
): Promise<Principal> {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  const provider = options.provider ?? "local";
  await db.execute(
    `INSERT INTO users (id, email, display_name, provider, provider_subject, is_admin, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $2, $5, $6, $6)`,
    [id, email, `User ${email}`, provider, options.isAdmin ?? false, now],
  );
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

/** Audit rows of one event (rows written in the same millisecond come in no particular order). */
export async function audits(db: Queryable, event: string): Promise<AuditRecord[]> {
  const { items } = await queryAudit(db, { event, offset: 0, limit: 500 });
  return items.reverse();
}

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

/** Asserts a refusal: its code, its status, and (a subset of) its details. */
export async function refuses(
  promise: Promise<unknown>,
  code: string,
  status: number,
  details: Record<string, unknown> = {},
): Promise<void> {
  await rejects(promise, (e: unknown) => {
    ok(e instanceof AppError, `expected an AppError, got ${e}`);
    equal(e.code, code);
    equal(e.status, status);
    for (const [k, v] of Object.entries(details)) deepEqual(e.details[k], v, `details.${k}`);
    return true;
  });
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
