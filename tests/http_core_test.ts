/**
 * The HTTP core over a real socket: envelopes, correlation ids, the error catalogue on the wire,
 * 404/405, malformed and oversized bodies, unexpected exceptions, security headers and CORS.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Router } from "../src/http/routing.ts";
import { isUuid } from "../src/lib/ids.ts";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { addEchoRoute } from "./support/echo_route.ts";
import { type Json, json, startTestServer, type TestServer } from "./support/harness.ts";

/** Routes that exist only in this test, to exercise body handling before any domain route does. */
function testRoutes(router: Router) {
  addEchoRoute(router);
  router.add({
    method: "get",
    path: "/api/v1/test/boom",
    tag: "test",
    summary: "throws",
    access: "me.read",
  }, () => {
    throw new Error("kaboom at internal/path.ts:12");
  });
}

/**
 * Routes under /api sit behind the access pipeline like any other: these tests call them with a
 * key (unless they send their own), so what they see is the HTTP core's answer, not a 401.
 */
async function withServer(fn: (s: TestServer) => Promise<void>, env: Record<string, string> = {}) {
  const server = await startTestServer({ extendRoutes: testRoutes, env });
  const f = await seedRoles(server.runtime);
  const key = await userKey(server.runtime, f.users.author, f.workspace.id, ["read"]);
  const plain = server.fetch;
  server.fetch = (path, init = {}) => {
    const headers = new Headers(init.headers);
    if (!path.startsWith("/api/") || headers.has("SVC-API-Key")) return plain(path, init);
    headers.set("SVC-API-Key", key);
    return plain(path, { ...init, headers });
  };
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

function assertErrorEnvelope(
  body: Json,
  code: string,
  correlationId: string | null,
) {
  deepEqual(Object.keys(body).sort(), ["correlation_id", "error", "schema_version"]);
  equal(body.schema_version, 1);
  ok(isUuid(body.correlation_id));
  if (correlationId) equal(body.correlation_id, correlationId);
  equal(body.error.code, code);
  deepEqual(Object.keys(body.error).sort(), [
    "code",
    "details",
    "doc_url",
    "message",
    "user_message",
  ]);
  ok(body.error.message.length > 0 && body.error.user_message.length > 0);
  match(body.error.doc_url, new RegExp(`/docs/errors#${code.replaceAll(".", "\\.")}$`));
}

/** Registers `name` with a server of its own (see `withServer`). */
function serverTest(
  name: string,
  fn: (s: TestServer) => Promise<void>,
  env: Record<string, string> = {},
): void {
  Deno.test(name, () => withServer(fn, env));
}

serverTest("GET /health answers the success envelope with every component UP", async (s) => {
  const res = await s.fetch("/health");
  equal(res.status, 200);
  const body = await json(res);
  deepEqual(Object.keys(body).sort(), ["correlation_id", "data", "schema_version"]);
  equal(body.correlation_id, res.headers.get("SVC-Correlation-Id"));
  deepEqual(body.data.components, { database: "UP", shared_store: "UP", staging_engine: "UP" });
  equal(body.data.status, "UP");
  equal(body.data.version, s.runtime.buildInfo.version);
});

serverTest(
  "SVC-Correlation-Id: kept when a UUID, replaced when malformed, generated when absent",
  async (s) => {
    const given = "0b9f3b8e-3c1a-4a5e-9a43-5a1d2b7c9e10";
    const kept = await s.fetch("/health", {
      headers: { "SVC-Correlation-Id": given.toUpperCase() },
    });
    equal(kept.headers.get("SVC-Correlation-Id"), given);
    equal((await json(kept)).correlation_id, given);

    const replaced = await s.fetch("/api/v1/nope", {
      headers: { "SVC-Correlation-Id": "not-a-uuid'; drop" },
    });
    const id = replaced.headers.get("SVC-Correlation-Id")!;
    ok(isUuid(id) && id !== "not-a-uuid'; drop");
    assertErrorEnvelope(await json(replaced), "request.not_found", id);

    const a = await s.fetch("/health");
    const b = await s.fetch("/health");
    await a.body?.cancel();
    await b.body?.cancel();
    ok(isUuid(a.headers.get("SVC-Correlation-Id")));
    ok(a.headers.get("SVC-Correlation-Id") !== b.headers.get("SVC-Correlation-Id"));
  },
);

serverTest(
  "unknown routes under /api answer 404 request.not_found with a doc_url on the base url",
  async (s) => {
    const res = await s.fetch("/api/v1/no-such-resource/whatever", {
      headers: { accept: "text/html" },
    });
    equal(res.status, 404);
    const body = await json(res);
    assertErrorEnvelope(body, "request.not_found", res.headers.get("SVC-Correlation-Id"));
    equal(body.error.doc_url, `${s.url}/docs/errors#request.not_found`);
    deepEqual(body.error.details, { method: "GET", path: "/api/v1/no-such-resource/whatever" });
  },
);

serverTest(
  "unknown pages: browsers are sent to sign in, then see an HTML 404; programs get the envelope",
  async (s) => {
    const anonymous = await s.fetch("/no/such/page", {
      headers: { accept: "text/html,*/*" },
      redirect: "manual",
    });
    equal(anonymous.status, 302);
    equal(anonymous.headers.get("location"), "/login");
    const f = await seedRoles(s.runtime, "pages");
    const session = await sessionHeaders(s.runtime, f.users.viewer);
    const page = await s.fetch("/no/such/page", {
      headers: { accept: "text/html,*/*", cookie: session.cookie },
    });
    equal(page.status, 404);
    match(await page.text(), /Nothing lives at <code>\/no\/such\/page<\/code>/);
    const api = await s.fetch("/no/such/page", { headers: { cookie: session.cookie } });
    equal(api.status, 404);
    assertErrorEnvelope(await json(api), "request.not_found", null);
    const unauthenticated = await s.fetch("/api/v1/nope", { headers: { "SVC-API-Key": "" } });
    equal(
      unauthenticated.status,
      401,
      "an unknown API route does not reveal itself before sign-in",
    );
    await unauthenticated.body?.cancel();
  },
);

serverTest("a wrong method answers 405 with Allow", async (s) => {
  const res = await s.fetch("/health", { method: "DELETE" });
  equal(res.status, 405);
  equal(res.headers.get("Allow"), "GET, HEAD, OPTIONS");
  const body = await json(res);
  assertErrorEnvelope(body, "request.method_not_allowed", null);
  deepEqual(body.error.details.allowed, ["GET", "HEAD", "OPTIONS"]);
  const get = await s.fetch("/api/v1/test/echo");
  equal(get.status, 405);
  equal(get.headers.get("Allow"), "OPTIONS, POST");
  await get.body?.cancel();
});

serverTest(
  "a path two routes match names the methods of both in Allow; OPTIONS answers 204",
  async (s) => {
    // `/api/v1/pipelines/import` is the import route (POST) and `/api/v1/pipelines/:id`.
    const res = await s.fetch("/api/v1/pipelines/import", { method: "PATCH" });
    equal(res.status, 405);
    equal(res.headers.get("Allow"), "DELETE, GET, HEAD, OPTIONS, POST, PUT");
    await res.body?.cancel();
    const options = await s.fetch("/api/v1/workspaces/acme", { method: "OPTIONS" });
    equal(options.status, 204);
    equal(options.headers.get("Allow"), "DELETE, GET, HEAD, OPTIONS, PUT");
    await options.body?.cancel();
  },
);

serverTest("malformed JSON answers 400 request.malformed_json, never a 500", async (s) => {
  for (const text of ['{"name": "x",', "nul", "{'name': 1}", "\u0000"]) {
    const res = await s.fetch("/api/v1/test/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: text,
    });
    equal(res.status, 400, text);
    assertErrorEnvelope(await json(res), "request.malformed_json", null);
  }
});

serverTest("a body that is not JSON answers 415; a schema defect names the field", async (s) => {
  const form = await s.fetch("/api/v1/test/echo", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "name=x",
  });
  equal(form.status, 415);
  assertErrorEnvelope(await json(form), "request.unsupported_media_type", null);

  const bad = await s.fetch("/api/v1/test/echo", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "x", count: "three" }),
  });
  equal(bad.status, 400);
  const body = await json(bad);
  assertErrorEnvelope(body, "pipeline.execution.invalid_parameter_type", null);
  equal(body.error.details.field, "count");

  const good = await s.fetch("/api/v1/test/echo", {
    method: "POST",
    headers: { "content-type": "application/json; charset=utf-8" },
    body: JSON.stringify({ name: "x", count: 3 }),
  });
  equal(good.status, 201);
  deepEqual((await json(good)).data, { name: "x", count: 3 });
});

serverTest("an oversized body answers 413, declared or streamed", async (s) => {
  const big = JSON.stringify({ name: "x".repeat(4096) });
  const declared = await s.fetch("/api/v1/test/echo", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: big,
  });
  equal(declared.status, 413);
  const body = await json(declared);
  assertErrorEnvelope(body, "request.body_too_large", null);
  equal(body.error.details.limit_bytes, 2048);

  const streamed = await s.fetch("/api/v1/test/echo", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: new Blob([big]).stream(),
  });
  equal(streamed.status, 413);
  assertErrorEnvelope(await json(streamed), "request.body_too_large", null);
}, { SERVICE_HTTP_MAX_BODY_BYTES: "2048" });

serverTest(
  "an unexpected exception answers 500 without a stack; the log has it with the correlation id",
  async (s) => {
    const res = await s.fetch("/api/v1/test/boom");
    equal(res.status, 500);
    const text = await res.text();
    ok(!text.includes("kaboom") && !text.includes("internal/path.ts"), text);
    const body = JSON.parse(text);
    assertErrorEnvelope(body, "internal.unexpected", res.headers.get("SVC-Correlation-Id"));
    const line = s.logs.map((l) => JSON.parse(l)).find((l) => l.message === "unexpected error");
    ok(line, "the exception is logged");
    equal(line.level, "error");
    equal(line.correlation_id, body.correlation_id);
    match(line.stack, /kaboom/);
  },
);

serverTest("security headers on every response; CSP on HTML", async (s) => {
  for (const path of ["/health", "/api/v1/nope", "/", "/css/app.css"]) {
    const res = await s.fetch(path);
    await res.body?.cancel();
    equal(res.headers.get("X-Content-Type-Options"), "nosniff", path);
    equal(res.headers.get("X-Frame-Options"), "DENY", path);
    equal(res.headers.get("Referrer-Policy"), "strict-origin-when-cross-origin", path);
    equal(res.headers.get("Strict-Transport-Security"), null, path);
  }
  const html = await s.fetch("/");
  await html.body?.cancel();
  const csp = html.headers.get("Content-Security-Policy")!;
  ok(csp.includes("default-src 'self'") && csp.includes("frame-ancestors 'none'"), csp);
});

serverTest(
  "HSTS and CORS follow an https base-url: its origin only, documented headers",
  async (s) => {
    const preflight = await s.fetch("/health", {
      method: "OPTIONS",
      headers: {
        origin: "https://svc.example.com",
        "access-control-request-method": "GET",
        "access-control-request-headers": "SVC-API-Key",
      },
    });
    await preflight.body?.cancel();
    equal(preflight.headers.get("Access-Control-Allow-Origin"), "https://svc.example.com");
    equal(preflight.headers.get("Access-Control-Allow-Credentials"), "true");
    equal(preflight.headers.get("Access-Control-Allow-Methods"), "GET,POST,PUT,DELETE,OPTIONS");
    match(preflight.headers.get("Access-Control-Allow-Headers")!, /SVC-Correlation-Id/);

    const foreign = await s.fetch("/health", { headers: { origin: "https://evil.example" } });
    await foreign.body?.cancel();
    equal(foreign.headers.get("Access-Control-Allow-Origin"), null);
    equal(foreign.headers.get("Strict-Transport-Security"), "max-age=31536000; includeSubDomains");

    const err = await json(await s.fetch("/api/v1/nope"));
    equal(err.error.doc_url, "https://svc.example.com/docs/errors#request.not_found");
  },
  { SERVICE_AUTH_BASE_URL: "https://svc.example.com" },
);

serverTest("/ready, /info and the landing page", async (s) => {
  const ready = await s.fetch("/ready");
  equal(ready.status, 200);
  deepEqual((await json(ready)).data, { ready: true });
  const info = (await json(await s.fetch("/info"))).data;
  deepEqual(Object.keys(info).sort(), ["build_time", "commit", "version"]);
  match(info.version, /^\d+\.\d+\.\d+/);
  const landing = await s.fetch("/");
  match(landing.headers.get("content-type")!, /^text\/html/);
  match(await landing.text(), /^<!doctype html><html lang="en"[^>]*>.*Pipeline Service/s);
});

serverTest("/ready answers 503 service.unavailable while draining", async (s) => {
  s.runtime.health.markDraining();
  const res = await s.fetch("/ready");
  equal(res.status, 503);
  const body = await json(res);
  assertErrorEnvelope(body, "service.unavailable", null);
  equal(body.error.details.reason, "shutting down");
});

serverTest("/openapi.json is OpenAPI 3.1 generated from the route schemas", async (s) => {
  const doc = await json(await s.fetch("/openapi.json"));
  equal(doc.openapi, "3.1.0");
  const health = doc.paths["/health"].get;
  const schema = health.responses["200"].content["application/json"].schema;
  deepEqual(schema.properties.data.properties.components.required, [
    "database",
    "shared_store",
    "staging_engine",
  ]);
  equal(
    health.responses.default.content["application/json"].schema.$ref,
    "#/components/schemas/ErrorEnvelope",
  );
  const echo = doc.paths["/api/v1/test/echo"].post;
  deepEqual(echo.requestBody.content["application/json"].schema.required, ["name"]);
  equal(doc.paths["/"], undefined, "html pages stay out of the API document");
});

serverTest("/docs/errors has an anchor for every catalogue code", async (s) => {
  const html = await (await s.fetch("/docs/errors")).text();
  for (const code of ["request.not_found", "internal.unexpected", "request.body_too_large"]) {
    ok(html.includes(`id="${code}"`), code);
  }
});
