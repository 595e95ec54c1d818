/** Fixtures shared by the API key tests: rows inserted with SQL, issuers, a counting store. */
import { verifySecret } from "../lib/argon2.ts";
import { createLogger } from "../lib/log.ts";
import type { Db, Queryable, SqlValue } from "../store/mod.ts";
import {
  ApiKeyService,
  type ApiKeyServiceOptions,
  type IssueCapability,
  type Issuer,
} from "./api_keys.ts";
import { insertUser } from "../store/row_fixtures.ts";

export function seedUser(
  db: Db,
  email: string,
  options: { active?: boolean; admin?: boolean } = {},
): Promise<string> {
  return insertUser(db, email, {
    display_name: `Name of ${email}`,
    provider: "corp",
    is_active: options.active ?? true,
    is_admin: options.admin ?? false,
  });
}

export { insertWorkspace as seedWorkspace } from "../store/row_fixtures.ts";

/** A session issuer acting in `workspaceId`. */
export function sessionIssuer(userId: string, workspaceId: string, superAdmin = false): Issuer {
  return {
    userId,
    email: `${userId}@example.com`,
    displayName: "Issuer",
    provider: "corp",
    isSuperAdmin: superAdmin,
    authMethod: "OIDC",
    amr: "oidc",
    mustChangePassword: false,
    scopes: [],
    activeWorkspaceId: workspaceId,
  };
}

export const VIEWER: IssueCapability = {
  flags: { author: false, promoter: false, admin: false },
  isSuperAdmin: false,
};
export const AUTHOR: IssueCapability = {
  flags: { author: true, promoter: false, admin: false },
  isSuperAdmin: false,
};
export const WS_ADMIN: IssueCapability = {
  flags: { author: true, promoter: false, admin: true },
  isSuperAdmin: false,
};
export const SUPER: IssueCapability = { flags: null, isSuperAdmin: true };

export interface Harness {
  svc: ApiKeyService;
  clock: { t: number };
  verifyCalls: { n: number };
  logs: string[];
}

/** A service with a controllable clock, a counting verifier and captured logs. */
export function harness(db: Db, options: Partial<ApiKeyServiceOptions> = {}): Harness {
  const clock = { t: Date.parse("2030-01-01T00:00:00.000Z") };
  const verifyCalls = { n: 0 };
  const logs: string[] = [];
  const svc = new ApiKeyService({
    db,
    logger: createLogger("debug", (line) => logs.push(line)),
    cacheTtlSeconds: 60,
    now: () => clock.t,
    verify: (secret, hash) => {
      verifyCalls.n++;
      return verifySecret(secret, hash);
    },
    sampleUsed: () => false,
    ...options,
  });
  return { svc, clock, verifyCalls, logs };
}

/** Wraps a store: records every statement run outside transactions; `failOn` makes matches throw. */
export function countingDb(inner: Db, failOn?: RegExp): { db: Db; statements: string[] } {
  const statements: string[] = [];
  const watch = (sql: string) => {
    statements.push(sql);
    if (failOn?.test(sql)) throw new Error("store unavailable");
  };
  const db: Db = {
    dialect: inner.dialect,
    query: <T>(sql: string, params?: SqlValue[]) => (watch(sql), inner.query<T>(sql, params)),
    first: <T>(sql: string, params?: SqlValue[]) => (watch(sql), inner.first<T>(sql, params)),
    execute: async (sql: string, params?: SqlValue[]) => {
      watch(sql);
      return await inner.execute(sql, params);
    },
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) => inner.transaction(fn),
    withMigrationLock: (fn) => inner.withMigrationLock(fn),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return { db, statements };
}
