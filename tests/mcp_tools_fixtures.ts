/**
 * Driving tools the way an agent does: the official SDK client (`@modelcontextprotocol/client`)
 * over real HTTP to `/mcp` of a running test server, authenticated by an API key. A tool answers
 * either its `structuredContent` or a refusal (`isError` with `structuredContent.error`); these
 * helpers tell them apart so a test reads as the calls it makes.
 */
import { deepEqual, equal, fail, ok } from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type AccessFixture,
  createUser,
  type RoleName,
  seedRoles,
  userKey,
} from "./access_fixtures.ts";
import type { TestServer } from "./harness.ts";

export type Era = "2025-11-25" | "2026-07-28";

/** A connected client with the key it speaks for. */
export interface ToolClient {
  client: Client;
  /** The tool's structuredContent; fails the test on a refusal. */
  // deno-lint-ignore no-explicit-any
  ok(name: string, args?: Record<string, unknown>): Promise<Record<string, any>>;
  /** The refusal's `{code, message, details}`; fails the test on a success. */
  refused(name: string, args?: Record<string, unknown>): Promise<ToolError>;
  close(): Promise<void>;
}

export interface ToolError {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/** Connects the SDK client to `s`'s `/mcp` with `key`, on the 2025-11-25 revision unless asked. */
export async function toolClient(
  s: TestServer,
  key: string,
  era: Era = "2025-11-25",
): Promise<ToolClient> {
  const client = new Client(
    { name: "mcp-tools-test", version: "1.0.0" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : undefined,
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
      requestInit: { headers: { "SVC-API-Key": key } },
    }),
  );
  equal(client.getNegotiatedProtocolVersion(), era);
  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args });
  return {
    client,
    async ok(name, args) {
      const result = await call(name, args);
      if (result.isError) {
        fail(`${name} refused: ${JSON.stringify(result.structuredContent ?? result.content)}`);
      }
      const data = result.structuredContent as Record<string, unknown>;
      ok(data, `${name} answered no structuredContent`);
      // Older clients read the same JSON as text.
      deepEqual(JSON.parse((result.content as { text: string }[])[0].text), data);
      return data;
    },
    async refused(name, args) {
      const result = await call(name, args);
      if (!result.isError) fail(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`);
      const error = (result.structuredContent as { error?: ToolError })?.error;
      ok(error?.code, `${name}: a refusal carries the error envelope's code`);
      return error!;
    },
    close: () => client.close(),
  };
}

/** The refusal's code (and details, when given) are the ones REST gives. */
export async function refuses(
  c: ToolClient,
  name: string,
  args: Record<string, unknown>,
  code: string,
  details?: Record<string, unknown>,
): Promise<ToolError> {
  const error = await c.refused(name, args);
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

/** Opens one client per key name, closing them all after `fn`. */
export async function withClients<K extends string>(
  s: TestServer,
  keys: Record<K, string>,
  fn: (clients: Record<K, ToolClient>) => Promise<void>,
  era: Era = "2025-11-25",
): Promise<void> {
  const clients = {} as Record<K, ToolClient>;
  try {
    for (const [name, key] of Object.entries(keys) as [K, string][]) {
      clients[name] = await toolClient(s, key, era);
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
      const error = await clients[key].refused(tool, args);
      equal(error.code, code, `${tool} with the ${key} key: ${JSON.stringify(error)}`);
    }
  }
}
