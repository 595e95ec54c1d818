/**
 * `/mcp` at the HTTP level (spec 1 §5.1, §5.5–5.8; DECISIONS.md "MCP revisions", "MCP Origin",
 * "MCP tool refusals"): both revisions with the official SDK client, the transport's own answers
 * (405, unsupported version, header/body mismatch, unknown tool), and everything refused before a
 * tool runs — missing or bad keys, session cookies, endpoint and server keys, the workspace
 * header, a foreign Origin or Host, the per-user budget — in the REST error envelope, never a
 * redirect.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { createUser, seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { startTestServer, type TestServer } from "./support/harness.ts";
import { connect, ERAS, type Json, keyHeaders } from "./support/mcp_client.ts";
import { CATALOGUE } from "../src/mcp/mod.ts";

const ACCEPT = "application/json, text/event-stream";

const meta = (era: string) =>
  era === "2026-07-28"
    ? {
      "io.modelcontextprotocol/protocolVersion": era,
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    }
    : undefined;

/** One raw JSON-RPC POST; the answer's status, headers and JSON (SSE answers read to the data). */
async function post(
  s: TestServer,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; headers: Headers; body: Json }> {
  // 2026-07-28 requests name their method in a header too.
  const method = (body as { method?: string }).method;
  const modern: Record<string, string> = headers["mcp-protocol-version"] === "2026-07-28" && method
    ? { "mcp-method": method }
    : {};
  const res = await s.fetch("/mcp", {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/json", accept: ACCEPT, ...modern, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const data = text.startsWith("{")
    ? JSON.parse(text)
    : JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? "{}");
  return { status: res.status, headers: res.headers, body: data };
}

const toolsList = (era: string) => ({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: meta(era) ? { _meta: meta(era) } : {},
});

async function withServer(
  fn: (s: TestServer, f: Awaited<ReturnType<typeof seedRoles>>) => Promise<void>,
  env: Record<string, string> = {},
) {
  const s = await startTestServer({ env });
  try {
    await fn(s, await seedRoles(s.runtime));
  } finally {
    await s.close();
  }
}

for (const era of ERAS) {
  Deno.test(`[${era}] the SDK client connects with a key (either carrier) and lists the catalogue in order`, () =>
    withServer(async (s, f) => {
      const key = await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read"]);
      for (const carrier of ["bearer", "svc"] as const) {
        const c = await connect(s, era, keyHeaders(key, carrier));
        try {
          equal(c.client.getServerVersion()?.name, "pipeline-service");
          const { tools } = await c.client.listTools();
          deepEqual(tools.map((t) => t.name), CATALOGUE.map((t) => t.name));
          for (const tool of tools) {
            const def = CATALOGUE.find((t) => t.name === tool.name)!;
            equal(tool.annotations?.readOnlyHint, def.annotations.readOnlyHint, tool.name);
            equal(tool.annotations?.destructiveHint, def.annotations.destructiveHint, tool.name);
            equal(tool.annotations?.idempotentHint, def.annotations.idempotentHint, tool.name);
            equal(tool.inputSchema.type, "object", tool.name);
            equal(tool.outputSchema?.type, "object", tool.name);
          }
          const list = tools.find((t) => t.name === "executions_get_result")!;
          const rows = ["columns", "rows", "row_count", "truncated", "next_cursor", "elapsed_ms"];
          deepEqual(Object.keys(list.outputSchema?.properties ?? {}), [
            ...rows,
            "cut_cells",
            "cell",
          ]);
          deepEqual(list.outputSchema?.required, rows);
          // The lists never change while a server lives, and the server says so.
          const capabilities = c.client.getServerCapabilities();
          deepEqual(
            [capabilities?.tools, capabilities?.resources, capabilities?.prompts],
            [{ listChanged: false }, { listChanged: false }, { listChanged: false }],
          );
        } finally {
          await c.close();
        }
      }
    }));

  Deno.test(`[${era}] an unknown tool is JSON-RPC -32602; a bad argument is a tool refusal with REST's code`, () =>
    withServer(async (s, f) => {
      const key = await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read"]);
      const c = await connect(s, era, keyHeaders(key));
      try {
        const unknown = await c.client.callTool({ name: "no_such_tool", arguments: {} }).then(
          () => null,
          (e) => e,
        );
        ok(unknown, "an unknown tool must not succeed");
        equal(unknown.code, -32602);
        const bad = await c.refusal("pipelines_get", { id: 42 });
        deepEqual([bad.code, bad.details.field], [
          "pipeline.execution.invalid_parameter_type",
          "id",
        ]);
      } finally {
        await c.close();
      }
    }));

  Deno.test(`[${era}] GET and DELETE are 405; an unsupported version is 400; headers must match the body`, () =>
    withServer(async (s, f) => {
      const key = keyHeaders(await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read"]));
      for (const method of ["GET", "DELETE"]) {
        const res = await s.fetch("/mcp", {
          method,
          headers: { ...key, accept: ACCEPT, "mcp-protocol-version": era },
        });
        await res.body?.cancel();
        equal(res.status, 405, method);
      }
      const unsupported = await post(
        s,
        { ...key, "mcp-protocol-version": "1999-01-01" },
        toolsList(era),
      );
      equal(unsupported.status, 400);
      ok(unsupported.body.error, JSON.stringify(unsupported.body));
      // A body that is not JSON is the JSON-RPC parse error, from the SDK.
      const garbled = await s.fetch("/mcp", {
        method: "POST",
        headers: {
          ...key,
          "content-type": "application/json",
          accept: ACCEPT,
          "mcp-protocol-version": era,
        },
        body: "{not json",
      });
      const parse = await garbled.json();
      equal(garbled.status, 400);
      equal(parse.error.code, -32700);
      if (era === "2026-07-28") {
        const mismatch = await post(s, {
          ...key,
          "mcp-protocol-version": era,
          "mcp-method": "tools/call",
        }, toolsList(era));
        equal(mismatch.status, 400);
        equal(mismatch.body.error.code, -32020);
      }
    }));
}

Deno.test("refused at the HTTP level in the REST envelope: no key, bad key, session, endpoint and server keys, workspace header", () =>
  withServer(async (s, f) => {
    const era = "2026-07-28";
    const h = { "mcp-protocol-version": era };
    const refused = async (headers: Record<string, string>, status: number, code: string) => {
      const r = await post(s, { ...h, ...headers }, toolsList(era));
      equal(r.status, status, `${code}: ${JSON.stringify(r.body)}`);
      equal(r.body.error.code, code);
      ok(r.body.correlation_id);
      // A 401 challenges for a Bearer key, as MCP clients expect; other refusals do not.
      const challenge = r.headers.get("www-authenticate");
      if (status === 401) ok(challenge?.startsWith('Bearer realm="mcp"'), String(challenge));
      else equal(challenge, null);
      return r.body.error;
    };
    const missing = await refused({}, 401, "auth.api_key.missing");
    ok(missing.message.includes("Authorization: Bearer"), missing.message);
    ok(!missing.message.includes("session cookie or"), missing.message);
    // A browser asking for HTML is still not redirected.
    const html = await s.fetch("/mcp", {
      method: "POST",
      redirect: "manual",
      headers: { accept: "text/html" },
    });
    await html.body?.cancel();
    equal(html.status, 401);
    await refused({ authorization: "Bearer svck_AAAAAAAAAAAA.nope" }, 401, "auth.api_key.invalid");
    const invalid = await post(s, { ...h, authorization: "Bearer svck_AAAAAAAAAAAA.nope" }, {
      ...toolsList(era),
    });
    equal(invalid.headers.get("www-authenticate"), 'Bearer realm="mcp", error="invalid_token"');
    // A session cookie (with its CSRF token) is not a credential here, a super admin's neither.
    await refused(
      await sessionHeaders(s.runtime, f.users.author, f.workspace.name),
      401,
      "auth.api_key.missing",
    );
    await refused(
      await sessionHeaders(s.runtime, f.users.super_admin),
      401,
      "auth.api_key.missing",
    );

    const endpoint = await s.runtime.keys.issue(
      { ...f.users.author.principal, activeWorkspaceId: f.workspace.id },
      { name: "endpoint", kind: "endpoint" },
      { flags: { author: true, promoter: false, admin: false }, isSuperAdmin: false },
    );
    const e = await refused(keyHeaders(endpoint.key), 403, "endpoint.key_kind_refused");
    equal(e.details.reason, "endpoint_key_off_surface");
    const server = await s.runtime.keys.issue(
      { ...f.users.super_admin.principal, activeWorkspaceId: f.workspace.id },
      { name: "promotion", kind: "server" },
      { flags: null as never, isSuperAdmin: true },
    );
    for (const carrier of ["bearer", "svc"] as const) {
      const k = await refused(keyHeaders(server.key, carrier), 403, "endpoint.key_kind_refused");
      equal(k.details.reason, "server_key_off_surface");
    }
    // As the promotion header it is no credential at all on /mcp.
    await refused({ "SVC-Promotion-Key": server.key }, 401, "auth.api_key.missing");

    const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["author"]);
    await refused(
      { ...keyHeaders(key), "SVC-Workspace": f.workspace.name },
      400,
      "workspace.header_forbidden",
    );
  }));

Deno.test("Origin: a foreign origin is 403 before the credential is read; the service's own origin and none are served", () =>
  withServer(async (s, f) => {
    const key = keyHeaders(await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read"]));
    const era = "2026-07-28";
    const h = { ...key, "mcp-protocol-version": era };
    for (const origin of ["https://evil.example", "http://127.0.0.1:1", "null"]) {
      const r = await post(s, { ...h, origin }, toolsList(era));
      equal(r.status, 403, origin);
      equal(r.body.error.code, "request.origin_forbidden");
    }
    // No credential at all: still the Origin answer, not 401.
    const bare = await post(s, { origin: "https://evil.example" }, toolsList(era));
    equal(bare.body.error.code, "request.origin_forbidden");
    equal((await post(s, { ...h, origin: s.url }, toolsList(era))).status, 200);
    equal((await post(s, h, toolsList(era))).status, 200);
  }));

Deno.test("Origin with a base-url: only the base-url's origin is served", async () => {
  const s = await startTestServer({
    env: { SERVICE_AUTH_BASE_URL: "https://pipelines.example.com" },
  });
  try {
    const f = await seedRoles(s.runtime);
    const key = keyHeaders(await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read"]));
    const h = { ...key, "mcp-protocol-version": "2026-07-28" };
    const foreign = await post(s, { ...h, origin: s.url }, toolsList("2026-07-28"));
    equal(foreign.status, 403);
    equal(foreign.body.error.code, "request.origin_forbidden");
    const own = await post(
      s,
      { ...h, origin: "https://pipelines.example.com" },
      toolsList("2026-07-28"),
    );
    equal(own.status, 200);
  } finally {
    await s.close();
  }
});

/** A request whose Host header is `host`, over a raw connection (fetch sets Host itself). */
async function rawHost(
  s: TestServer,
  host: string,
  key: string,
): Promise<{ status: number; text: string }> {
  const port = Number(new URL(s.url).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const body = JSON.stringify(toolsList("2026-07-28"));
  const request = [
    "POST /mcp HTTP/1.1",
    `Host: ${host}`,
    `Authorization: Bearer ${key}`,
    "Content-Type: application/json",
    `Accept: ${ACCEPT}`,
    "MCP-Protocol-Version: 2026-07-28",
    "Mcp-Method: tools/list",
    `Content-Length: ${new TextEncoder().encode(body).length}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
  await conn.write(new TextEncoder().encode(request));
  const chunks: Uint8Array[] = [];
  const buf = new Uint8Array(65536);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    chunks.push(buf.slice(0, n));
  }
  conn.close();
  const text = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
  return { status: Number(text.split(" ")[1]), text };
}

Deno.test("Host: on a loopback listener without base-url, a non-loopback Host (DNS rebinding) is 403", () =>
  withServer(async (s, f) => {
    const key = await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read"]);
    const port = new URL(s.url).port;
    const rebound = await rawHost(s, `attacker.example:${port}`, key);
    equal(rebound.status, 403);
    ok(rebound.text.includes("request.host_forbidden"));
    equal((await rawHost(s, `localhost:${port}`, key)).status, 200);
    equal((await rawHost(s, `127.0.0.1:${port}`, key)).status, 200);
  }));

Deno.test("rate limits: /mcp draws from the one per-user budget REST uses; 429 in the envelope", () =>
  withServer(async (s, f) => {
    const k = await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read"]);
    const h = { ...keyHeaders(k), "mcp-protocol-version": "2026-07-28" };
    const remaining = (r: { headers: Headers }) => Number(r.headers.get("RateLimit-Remaining"));
    const rest = async () => {
      const res = await s.fetch("/api/v1/auth/me", { headers: { "SVC-API-Key": k } });
      await res.body?.cancel();
      return res;
    };
    // A tool call, a REST call, a tool call: one budget counts all three. A sequence straddling
    // a minute edge counts in two budgets; edges are a minute apart, so the second try cannot.
    let counts: number[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const minute = Math.floor(Date.now() / 60_000);
      counts = [
        remaining(await post(s, h, toolsList("2026-07-28"))),
        remaining(await rest()),
        remaining(await post(s, h, toolsList("2026-07-28"))),
      ];
      if (minute === Math.floor(Date.now() / 60_000)) break;
    }
    deepEqual(counts, [counts[0], counts[0] - 1, counts[0] - 2]);
    // Spend the rest: twelve requests fall in at most two windows of 10, so one is refused.
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 24 && !refused; i++) {
      const r = await post(s, h, toolsList("2026-07-28"));
      if (r.status === 429) refused = r;
      else equal(r.status, 200);
    }
    ok(refused, "the budget never refused");
    equal(refused.body.error.code, "rate_limit.exceeded");
    ok(Number(refused.headers.get("Retry-After")) >= 1);
  }, {
    SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "1000",
    SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "10",
  }));

Deno.test("rate limits: an unreachable shared store answers rate_limit.unavailable on /mcp too", () =>
  withServer(async (s, f) => {
    const key = keyHeaders(await userKey(s.runtime, f.users.viewer, f.workspace.id, ["read"]));
    await s.runtime.shared.close();
    const r = await post(
      s,
      { ...key, "mcp-protocol-version": "2026-07-28" },
      toolsList("2026-07-28"),
    );
    equal(r.status, 429);
    equal(r.body.error.code, "rate_limit.unavailable");
    equal(r.headers.get("Retry-After"), "1");
  }));

Deno.test("the forced password change (spec 1 §5.4 item 6): keys are not gated; a gated session is no credential here", () =>
  withServer(async (s, f) => {
    const pending = await createUser(s.runtime, "pending@acme.example", { mustChange: true });
    await s.runtime.workspaces.addMember(f.users.super_admin.principal, f.workspace.name, {
      email: pending.email,
      author: false,
      promoter: false,
      admin: false,
    });
    s.runtime.directory.forgetWorkspaces();
    // The REST paths refuse the session with the gate's code; /mcp never takes a session at all.
    const session = await sessionHeaders(s.runtime, pending, f.workspace.name);
    const rest = await s.fetch("/api/v1/pipelines", {
      headers: { ...session, accept: "application/json" },
    });
    equal((await rest.json()).error.code, "auth.password.change_required");
    const tool = await post(
      s,
      { ...session, "mcp-protocol-version": "2026-07-28" },
      toolsList("2026-07-28"),
    );
    deepEqual([tool.status, tool.body.error.code], [401, "auth.api_key.missing"]);
    const key = await userKey(s.runtime, pending, f.workspace.id, ["read"]);
    const c = await connect(s, "2026-07-28", keyHeaders(key));
    try {
      equal((await c.call("pipelines_list")).pagination.total, 0);
    } finally {
      await c.close();
    }
  }));
