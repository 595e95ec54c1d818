/**
 * The revisions `/mcp` serves (DECISIONS.md "MCP revisions"): 2025-11-25 and 2026-07-28 only.
 * Any other `MCP-Protocol-Version` on a request is 400, answered as the transport answers a
 * version nobody knows; an `initialize` naming an older revision in its body still negotiates,
 * as the MCP specification says: the server answers the revision it serves.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { seedRoles, userKey } from "./support/access_fixtures.ts";
import { startTestServer, type TestServer } from "./support/harness.ts";
import { type Json, keyHeaders } from "./support/mcp_client.ts";

const ACCEPT = "application/json, text/event-stream";

/** One raw JSON-RPC POST: the status and the JSON answer (an SSE answer read to its data). */
async function post(
  s: TestServer,
  headers: Record<string, string>,
  body: Json,
): Promise<{ status: number; body: Json }> {
  const res = await s.fetch("/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const data = text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)?.[1] ?? "{}";
  return { status: res.status, body: JSON.parse(data) };
}

const initialize = (protocolVersion: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const toolsList = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
const docsList = {
  jsonrpc: "2.0",
  id: 3,
  method: "tools/call",
  params: { name: "docs_list", arguments: {} },
};

Deno.test("issue 22 finding 7: MCP-Protocol-Version other than 2025-11-25 and 2026-07-28 is 400; initialize negotiates 2025-11-25", async () => {
  const s = await startTestServer();
  try {
    const f = await seedRoles(s.runtime);
    const key = keyHeaders(await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read"]));
    // The transport's answer to a version it has never heard of, for comparison.
    const unknown = await post(s, { ...key, "mcp-protocol-version": "1999-01-01" }, toolsList);
    equal(unknown.status, 400);
    for (const version of ["2025-03-26", "2025-06-18", "2024-11-05"]) {
      for (const body of [toolsList, docsList]) {
        const r = await post(s, { ...key, "mcp-protocol-version": version }, body);
        equal(r.status, 400, `${version} ${body.method}: ${JSON.stringify(r.body).slice(0, 200)}`);
        equal(r.body.error.code, unknown.body.error.code, version);
        ok(String(r.body.error.message).includes(version), r.body.error.message);
        equal(r.body.result, undefined);
      }
    }
    // The served revision, and the initialize negotiation (no header before it).
    const served = await post(s, { ...key, "mcp-protocol-version": "2025-11-25" }, docsList);
    equal(served.status, 200);
    ok(served.body.result.structuredContent, JSON.stringify(served.body));
    for (const asked of ["2025-03-26", "2024-11-05", "2025-11-25"]) {
      const r = await post(s, key, initialize(asked));
      equal(r.status, 200, asked);
      deepEqual([asked, r.body.result.protocolVersion], [asked, "2025-11-25"]);
    }
  } finally {
    await s.close();
  }
});
