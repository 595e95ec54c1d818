/**
 * Tool tests: the principals and keys they need, and the floor check every tool gets. Clients are
 * the official SDK client over real HTTP (tests/support/mcp_client.ts).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  type AccessFixture,
  createUser,
  type RoleName,
  seedRoles,
  userKey,
} from "./access_fixtures.ts";
import { startTestServer, type TestServer } from "./harness.ts";
import type { StoreKind } from "./stores.ts";
import { connect, type Era, keyHeaders, type ToolClient } from "./mcp_client.ts";

export type { Era, ToolClient };
export type ToolError = Awaited<ReturnType<ToolClient["refusal"]>>;

/** The refusal's code (and details, when given) are the ones REST gives. */
export async function refuses(
  c: ToolClient,
  name: string,
  args: Record<string, unknown>,
  code: string,
  details?: Record<string, unknown>,
): Promise<ToolError> {
  const error = await c.refusal(name, args);
  equal(error.code, code, `${name}: ${JSON.stringify(error)}`);
  if (details) { for (const [k, v] of Object.entries(details)) deepEqual(error.details[k], v, k); }
  return error;
}

/**
 * The principals tool tests need in workspace `acme`: a key per role at `author` scope (what the
 * key may do is then the role's), a `read` and an `execute` key of the author (the scope axis),
 * `gone`: an `author` key whose issuer has since left acme (every tool refuses it, the read ones
 * included), and workspace `other` with an author of its own, for the pinned-workspace checks.
 */
export interface ToolFixture extends AccessFixture {
  keys: Record<RoleName, string> & { read: string; execute: string; gone: string; other: string };
  other: AccessFixture;
}

export async function toolFixture(s: TestServer): Promise<ToolFixture> {
  const f = await seedRoles(s.runtime);
  const other = await seedRoles(s.runtime, "other");
  const ws = f.workspace.id;
  const keys = {} as ToolFixture["keys"];
  for (const role of ["viewer", "author", "promoter", "ws_admin"] as const) {
    keys[role] = await userKey(s.runtime, f.users[role], ws, ["author"]);
  }
  // A super admin is an implicit member of every workspace; its key is pinned to acme too.
  keys.super_admin = await userKey(s.runtime, f.users.super_admin, ws, ["author"]);
  keys.read = await userKey(s.runtime, f.users.author, ws, ["read"]);
  keys.execute = await userKey(s.runtime, f.users.author, ws, ["execute"]);
  keys.other = await userKey(s.runtime, other.users.author, other.workspace.id, ["author"]);
  const leaver = await createUser(s.runtime, "leaver@acme.example");
  const root = f.users.super_admin.principal;
  for (const name of ["acme", "other"]) {
    await s.runtime.workspaces.addMember(root, name, { email: leaver.email, author: true });
  }
  keys.gone = await userKey(s.runtime, leaver, ws, ["author"]);
  await s.runtime.workspaces.removeMember(root, "acme", leaver.id);
  s.runtime.directory.forgetUser(leaver.id);
  return { ...f, keys, other };
}

/** A test server on `store` with the tool fixture seeded, closed after `fn`. */
export async function withToolServer(
  store: StoreKind,
  fn: (s: TestServer, f: ToolFixture) => Promise<void>,
): Promise<void> {
  const s = await startTestServer({ store });
  try {
    await fn(s, await toolFixture(s));
  } finally {
    await s.close();
  }
}

/** The keys most tool tests drive: author, viewer, read, execute, the gone issuer's, other's. */
export function usualKeys(f: ToolFixture) {
  const { author, viewer, read, execute, gone, other } = f.keys;
  return { author, viewer, read, execute, gone, other };
}

type UsualClients = Record<keyof ReturnType<typeof usualKeys>, ToolClient>;

/** `withToolServer` with a client per usual key, all closed after `fn`. */
export function withUsualClients(
  store: StoreKind,
  fn: (c: UsualClients, s: TestServer, f: ToolFixture) => Promise<void>,
): Promise<void> {
  return withToolServer(store, (s, f) => withClients(s, usualKeys(f), (c) => fn(c, s, f)));
}

/**
 * Opens one client per key name, closing them all after `fn`. Unless told, the revision follows
 * the store (SQLite: 2025-11-25, PostgreSQL: 2026-07-28), so a test run on both stores drives
 * every tool over both revisions.
 */
export async function withClients<K extends string>(
  s: TestServer,
  keys: Record<K, string>,
  fn: (clients: Record<K, ToolClient>) => Promise<void>,
  era: Era = s.runtime.config.store.kind === "postgres" ? "2026-07-28" : "2025-11-25",
): Promise<void> {
  const clients = {} as Record<K, ToolClient>;
  try {
    for (const [name, key] of Object.entries(keys) as [K, string][]) {
      clients[name] = await connect(s, era, keyHeaders(key, "svc"));
    }
    await fn(clients);
  } finally {
    for (const c of Object.values(clients) as ToolClient[]) await c.close();
  }
}

/** The floors of spec 1 §4.7 my tools use (src/mcp/tool.ts names them). */
export type FloorName = "read" | "inspect" | "write" | "datasource_test";

/** For each floor, the fixture keys that fall short of it and the code each is refused with. */
const SHORT_OF: Record<FloorName, [string, string][]> = {
  // Any key holds read and any member view: only an issuer who left falls short.
  read: [["gone", "auth.key_issuer_role_lost"]],
  // author scope, view role.
  inspect: [["read", "auth.scope.insufficient"], ["gone", "auth.key_issuer_role_lost"]],
  // author scope, author role: a viewer's author-scoped key holds the scope, not the role.
  write: [["read", "auth.scope.insufficient"], ["viewer", "auth.key_issuer_role_lost"]],
  // author scope, ws_admin role.
  datasource_test: [["execute", "auth.scope.insufficient"], [
    "author",
    "auth.key_issuer_role_lost",
  ]],
};

/**
 * Every call in `calls` refused for each key short of its floor, with the code REST gives; the
 * arguments are valid, so it is the floor that refuses (it is judged after the arguments).
 */
export async function floorsHold(
  clients: Record<string, ToolClient>,
  calls: [tool: string, floor: FloorName, args: Record<string, unknown>][],
): Promise<void> {
  for (const [tool, floor, args] of calls) {
    for (const [key, code] of SHORT_OF[floor]) {
      ok(clients[key], `no client for key ${key}`);
      const error = await clients[key].refusal(tool, args);
      equal(error.code, code, `${tool} with the ${key} key: ${JSON.stringify(error)}`);
    }
  }
}
