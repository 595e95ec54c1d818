/**
 * Issue 22 over real HTTP with real keys, on both stores: the binding walk over the request path
 * (finding 2: a binding below a variable pattern is enforced, and `/api/x/openapi.json` follows
 * it), and the `/api/x` method and `Accept` rules (finding 7: any method but GET is 405
 * `Allow: GET`, a preflight from the configured origin keeps its CORS answer, `q=0` is 406).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { type AccessFixture, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, endpointUrl, json, type TestServer, withTestServer } from "./support/harness.ts";
import { audits } from "./support/refusals.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { dql, releasedPipeline } from "./support/pipeline_body.ts";
import { forEachServer } from "./support/servers.ts";

const ORIGIN = "https://svc.example.com";

/** Publishes `SELECT :v AS v` at `pattern` through the API; answers the author's headers. */
async function publishEcho(
  s: TestServer,
  f: AccessFixture,
  pattern: string,
): Promise<Record<string, string>> {
  const author = await sessionHeaders(s.runtime, f.users.author);
  const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
  const pipelineId = await releasedPipeline(s.runtime, ctx, "api/echo", {
    parameters: { v: { type: "string" } },
    nodes: [dql("r", { source: "tempdb", sql: "SELECT :v AS v" })],
  });
  const published = await call(s, "POST", "/api/v1/endpoints", author, {
    path_pattern: pattern,
    pipeline_id: pipelineId,
  });
  equal(published.status, 201, JSON.stringify(published.body));
  return author;
}

forEachServer(
  "issue 22 finding 2: a binding on /p/lit/secret under /p/lit/{v} is enforced over HTTP",
  async (s, f) => {
    const author = await publishEcho(s, f, "/p/lit/{v}");
    const issued = await call(s, "POST", "/api/v1/auth/api-keys", author, {
      name: "feed",
      kind: "endpoint",
    });
    equal(issued.status, 201, JSON.stringify(issued.body));
    const feed = { "SVC-API-Key": issued.body.data.key };
    const user = {
      "SVC-API-Key": await userKey(s.runtime, f.users.author, f.workspace.id, ["execute"]),
    };
    const bound = await call(s, "POST", "/api/v1/endpoints/bindings", author, {
      path: "/p/lit/secret",
      key_name: "feed",
    });
    equal(bound.status, 201, JSON.stringify(bound.body));

    // The reproduction: the user key is refused by the bound node, the bound key served.
    const refused = await call(s, "GET", "/api/x/p/lit/secret", user);
    deepEqual([refused.status, refused.body.error.code], [403, "endpoint.key_not_bound"]);
    equal(refused.body.error.details.node, "/p/lit/secret");
    const served = await call(s, "GET", "/api/x/p/lit/secret", feed);
    equal(served.status, 200, JSON.stringify(served.body));
    deepEqual(served.body.rows, [["secret"]]);
    // Beside the bound node nothing is bound: the user key passes, the endpoint key does not.
    equal((await call(s, "GET", "/api/x/p/lit/open", user)).status, 200);
    const unbound = await call(s, "GET", "/api/x/p/lit/open", feed);
    deepEqual([unbound.status, unbound.body.error.code], [403, "endpoint.key_kind_refused"]);

    // The record shows the binding that decides for some of its URLs.
    const record = await call(s, "GET", endpointUrl("/p/lit/{v}"), author);
    deepEqual(record.body.data.bindings.map((b: { path: string }) => b.path), [
      "/p/lit/secret",
    ]);

    // Each key's document lists what it may call, and nothing it is refused on.
    const documentOf = async (key: Record<string, string>) => {
      const res = await s.fetch("/api/x/openapi.json", { headers: key });
      equal(res.status, 200);
      const doc = await res.json();
      ok((await new Validator().validate(doc)).valid);
      return doc.paths;
    };
    const forUser = await documentOf(user);
    deepEqual(Object.keys(forUser), ["/p/lit/{v}"]);
    const v = forUser["/p/lit/{v}"].get.parameters.find((p: { name?: string }) => p.name === "v");
    deepEqual(v.schema, { type: "string", not: { enum: ["secret"] } });
    deepEqual(Object.keys(await documentOf(feed)), ["/p/lit/secret"]);
  },
);

forEachServer(
  "issue 22 finding 7: /api/x answers GET only, keeps CORS preflights, and honours q=0",
  async (s, f) => {
    await publishEcho(s, f, "/m/{v}");
    const key = {
      "SVC-API-Key": await userKey(s.runtime, f.users.author, f.workspace.id, ["execute"]),
    };
    const served = async () => (await audits(s.runtime.db, "endpoint.served")).length;
    equal((await call(s, "GET", "/api/x/m/a", key)).status, 200);
    equal(await served(), 1);

    // Every other method, with a key or without, on an endpoint, the document or the prefix.
    const refusedMethod = async (method: string, path: string, headers: HeadersInit = key) => {
      const res = await s.fetch(path, { method, headers });
      equal(res.status, 405, `${method} ${path}`);
      equal(res.headers.get("allow"), "GET", `${method} ${path}`);
      if (method === "HEAD") return void await res.body?.cancel();
      const body = await json(res);
      equal(body.error.code, "request.method_not_allowed");
      deepEqual(body.error.details.allowed, ["GET"]);
    };
    for (const method of ["OPTIONS", "HEAD", "POST", "PUT", "PATCH", "DELETE", "PROPFIND"]) {
      await refusedMethod(method, "/api/x/m/a");
    }
    await refusedMethod("OPTIONS", "/api/x/m/a", {});
    await refusedMethod("POST", "/api/x/openapi.json");
    await refusedMethod("OPTIONS", "/api/x");
    // HEAD did not run the pipeline.
    equal(await served(), 1);

    // A preflight from the configured origin gets its CORS answer; from another origin it is
    // an OPTIONS like any other.
    const preflight = (origin: string) =>
      s.fetch("/api/x/m/a", {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "GET",
          "access-control-request-headers": "SVC-API-Key",
        },
      });
    const ours = await preflight(ORIGIN);
    await ours.body?.cancel();
    equal(ours.status, 204);
    equal(ours.headers.get("access-control-allow-origin"), ORIGIN);
    ok(ours.headers.get("access-control-allow-headers")?.includes("SVC-API-Key"));
    const theirs = await preflight("https://evil.example");
    deepEqual([theirs.status, theirs.headers.get("allow")], [405, "GET"]);
    equal(theirs.headers.get("access-control-allow-origin"), null);
    await theirs.body?.cancel();

    // Accept: q=0 is "not acceptable"; a wildcard or a lower q still admits JSON.
    const withAccept = async (accept: string, path = "/api/x/m/a") => {
      const res = await s.fetch(path, { headers: { ...key, accept } });
      const body = await json(res);
      return res.status === 406 ? body.error.code : res.status;
    };
    const notAcceptable = "request.not_acceptable";
    equal(await withAccept("application/json;q=0"), notAcceptable);
    equal(await withAccept("application/json;q=0", "/api/x/openapi.json"), notAcceptable);
    equal(await withAccept("*/*, application/json;q=0"), notAcceptable);
    equal(await withAccept("text/html, */*;q=0"), notAcceptable);
    equal(await withAccept("text/html, application/*;q=0.1"), 200);
    equal(await withAccept("*/*;q=0, application/json;q=0.5"), 200);
  },
  { env: { SERVICE_AUTH_BASE_URL: ORIGIN } },
);

forEachStoreKind(
  "issue 22 finding 7: without a base-url every OPTIONS under /api/x is 405 Allow: GET",
  async (store) => {
    await withTestServer({ store }, async (s) => {
      const res = await s.fetch("/api/x/anything", {
        method: "OPTIONS",
        headers: { origin: ORIGIN, "access-control-request-method": "GET" },
      });
      deepEqual([res.status, res.headers.get("allow")], [405, "GET"]);
      equal((await json(res)).error.code, "request.method_not_allowed");
      equal(res.headers.get("access-control-allow-origin"), null);
    });
  },
);
