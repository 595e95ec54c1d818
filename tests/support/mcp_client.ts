/**
 * The official MCP SDK client against a test server's `/mcp`, in either revision: 2025-11-25
 * (`initialize`) or 2026-07-28 (stateless, `server/discover`). Tool answers are read the way an
 * agent reads them: `structuredContent`, or on a refusal `structuredContent.error`.
 */
import { equal, ok } from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type AccessFixture, seedRoles, userKey } from "./access_fixtures.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./harness.ts";
import { dql, staged } from "./pipeline_body.ts";

export type Era = "2025-11-25" | "2026-07-28";
export const ERAS: Era[] = ["2025-11-25", "2026-07-28"];

// deno-lint-ignore no-explicit-any
export type Json = Record<string, any>;

export interface ToolClient {
  client: Client;
  /** Calls a tool; answers its structuredContent, throwing when it is a refusal. */
  call(name: string, args?: Json, options?: { onprogress?: (p: Json) => void }): Promise<Json>;
  /** Calls a tool that must refuse; answers `structuredContent.error`. */
  refusal(name: string, args?: Json): Promise<{ code: string; message: string; details: Json }>;
  close(): Promise<void>;
}

export async function connect(
  s: TestServer,
  era: Era,
  headers: Record<string, string>,
): Promise<ToolClient> {
  const client = new Client(
    { name: "mcp-test", version: "1.0.0" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : undefined,
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
    requestInit: { headers },
  });
  await client.connect(transport);
  equal(client.getNegotiatedProtocolVersion(), era);
  const raw = async (name: string, args: Json, options?: { onprogress?: (p: Json) => void }) =>
    await client.callTool({ name, arguments: args }, {
      ...(options?.onprogress ? { onprogress: options.onprogress } : {}),
      timeout: 120_000,
    });
  return {
    client,
    async call(name, args = {}, options) {
      const result = await raw(name, args, options);
      const text = (result.content as { type: string; text: string }[])[0]?.text;
      if (result.isError) throw new Error(`${name} refused: ${text}`);
      ok(result.structuredContent, `${name}: no structuredContent`);
      // The same JSON as text, for clients that read only content.
      equal(text, JSON.stringify(result.structuredContent), `${name}: text twin`);
      return result.structuredContent as Json;
    },
    async refusal(name, args = {}) {
      const result = await raw(name, args);
      equal(result.isError, true, `${name} should refuse: ${JSON.stringify(result.content)}`);
      const error = (result.structuredContent as Json | undefined)?.error;
      ok(error?.code, `${name}: refusal without an error code: ${JSON.stringify(result)}`);
      return error;
    },
    close: () => client.close(),
  };
}

/**
 * A test server started with `options`, the seeded roles, and a client of revision `era` holding
 * an author's key in `acme` (sent as `carrier`); the client and the server are closed after `fn`.
 */
export async function withAuthorClient(
  options: TestServerOptions,
  era: Era,
  fn: (c: ToolClient, s: TestServer, f: AccessFixture) => Promise<void>,
  carrier?: "svc" | "bearer",
): Promise<void> {
  const s = await startTestServer(options);
  try {
    const f = await seedRoles(s.runtime);
    const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["author"]);
    const c = await connect(s, era, keyHeaders(key, carrier));
    try {
      await fn(c, s, f);
    } finally {
      await c.close();
    }
  } finally {
    await s.close();
  }
}

/** A key's headers, either carrier. */
export function keyHeaders(
  key: string,
  carrier: "svc" | "bearer" = "bearer",
): Record<string, string> {
  return carrier === "svc" ? { "SVC-API-Key": key } : { authorization: `Bearer ${key}` };
}

/** Five rows staged, multiplied by ten, delivered in order: 0, 10, 20, 30, 40. */
export const NODES = [
  staged("base", "tempdb", "SELECT range::INTEGER AS n FROM range(5)"),
  dql("tens", {
    source: "tempdb",
    sql: "SELECT n * 10 AS m FROM base ORDER BY n",
    output: { target: "tempdb", table: "tens" },
    depends_on: ["base"],
  }),
  dql("total", {
    source: "tempdb",
    sql: "SELECT m FROM tens ORDER BY m",
    depends_on: ["tens"],
  }),
];

/** A run that takes far longer than any test waits: only a cancel ends it. */
export const SLOW = [
  dql("slow", { source: "tempdb", sql: "SELECT sum(range) AS s FROM range(1000000000000)" }),
];
