/**
 * Published endpoints over HTTP on both stores: management under /api/v1/endpoints (addressed by
 * ?path=), bindings by key name, and serving GET /api/x/** with its header rules and answers.
 * The serving rules themselves are proved in src/endpoints/serve_test.ts.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, endpointUrl } from "./support/harness.ts";
import { dql, releasedPipeline } from "./support/pipeline_body.ts";
import { forEachServer } from "./support/servers.ts";

forEachServer(
  "published endpoints: manage, bind, serve, and the /api/x answers",
  async (s, f) => {
    const author = await sessionHeaders(s.runtime, f.users.author);
    const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
    const pipelineId = await releasedPipeline(s.runtime, ctx, "api/demo", {
      parameters: { team: { type: "string" }, n: { type: "integer", default: 1 } },
      nodes: [dql("read", { source: "tempdb", sql: "SELECT :team AS team, :n AS n" })],
    });

    // Management.
    const published = await call(s, "POST", "/api/v1/endpoints", author, {
      path_pattern: "/demo/{team}",
      pipeline_id: pipelineId,
    });
    equal(published.status, 201, JSON.stringify(published.body));
    equal(published.body.data.path_pattern, "/demo/{team}");
    equal(published.body.data.workspace, f.workspace.name);
    const conflict = await call(s, "POST", "/api/v1/endpoints", author, {
      path_pattern: "/demo/red",
      pipeline_id: pipelineId,
    });
    deepEqual([conflict.status, conflict.body.error.code], [409, "endpoint.path_conflict"]);
    const list = await call(s, "GET", "/api/v1/endpoints?limit=5", author);
    deepEqual([list.status, list.body.data.pagination.total], [200, 1]);
    const one = await call(s, "GET", endpointUrl("/demo/{team}"), author);
    equal(one.body.data.pipeline_name, "api/demo");
    const viewer = await sessionHeaders(s.runtime, f.users.viewer);
    equal(
      (await call(s, "POST", "/api/v1/endpoints", viewer, {
        path_pattern: "/v",
        pipeline_id: pipelineId,
      })).status,
      403,
    );

    // Serving with a user key holding execute.
    const key = {
      "SVC-API-Key": await userKey(s.runtime, f.users.author, f.workspace.id, ["execute"]),
    };
    const res = await s.fetch("/api/x/demo/red?n=2", { headers: key });
    equal(res.status, 200);
    const payload = await res.json();
    equal(payload.row_count, 1);
    equal(JSON.stringify(payload.rows).includes("red"), true);
    equal(res.headers.get("cache-control"), "no-store");
    equal(res.headers.get("svc-execution-id"), payload.execution_id);
    ok(res.headers.get("svc-correlation-id"));
    match(res.headers.get("server-timing") ?? "", /queue;dur=.*execute;dur=.*serialise;dur=/);

    const invalid = await call(s, "GET", "/api/x/demo/red?x=1&n=a", key);
    deepEqual([invalid.status, invalid.body.error.code], [400, "endpoint.request.invalid"]);
    equal(invalid.body.error.details.errors.length, 2);
    const post = await s.fetch("/api/x/demo/red", { method: "POST", headers: key });
    await post.body?.cancel();
    deepEqual([post.status, post.headers.get("allow")], [405, "GET"]);
    const html = await s.fetch("/api/x/demo/red", { headers: { ...key, Accept: "text/html" } });
    await html.body?.cancel();
    equal(html.status, 406);
    equal((await call(s, "GET", "/api/x/demo/red", author)).status, 401);
    equal((await call(s, "GET", "/api/x/demo/red", {})).status, 401);
    const unknown = await call(s, "GET", "/api/x/nothing/here", key);
    deepEqual([unknown.status, unknown.body.error.code], [404, "endpoint.not_found"]);

    // Disabled answers like unknown; enabled again serves.
    const off = await call(s, "PUT", endpointUrl("/demo/{team}"), author, { enabled: false });
    equal(off.body.data.enabled, false);
    equal((await call(s, "GET", "/api/x/demo/red", key)).status, 404);
    await call(s, "PUT", endpointUrl("/demo/{team}"), author, { enabled: true });

    // An endpoint key bound to /demo, by name; the bound node then refuses the user key.
    const issued = await call(s, "POST", "/api/v1/auth/api-keys", author, {
      name: "feed",
      kind: "endpoint",
    });
    equal(issued.status, 201, JSON.stringify(issued.body));
    const feed = { "SVC-API-Key": issued.body.data.key };
    equal(
      (await call(s, "GET", "/api/x/demo/red", feed)).body.error.code,
      "endpoint.key_kind_refused",
    );
    const bound = await call(s, "POST", "/api/v1/endpoints/bindings", author, {
      path: "/demo",
      key_name: "feed",
    });
    equal(bound.status, 201, JSON.stringify(bound.body));
    const fed = await s.fetch("/api/x/demo/blue", { headers: feed });
    equal(fed.status, 200);
    const fedId = (await fed.json()).execution_id;
    // The endpoint key reads the execution it started and its result, and nothing else; a 200
    // comes once the run's record is stored, so it reads SUCCESS at once.
    const record = (await call(s, "GET", `/api/v1/executions/${fedId}`, feed)).body.data;
    deepEqual([record.execution_id, record.status], [fedId, "SUCCESS"]);
    equal((await call(s, "GET", `/api/v1/executions/${fedId}/result`, feed)).status, 200);
    const theirs = await call(s, "GET", `/api/v1/executions/${payload.execution_id}`, feed);
    deepEqual([theirs.status, theirs.body.error.code], [404, "result.execution_not_found"]);
    const offSurface = await call(s, "GET", "/api/v1/pipelines", feed);
    deepEqual([offSurface.status, offSurface.body.error.code], [
      403,
      "endpoint.key_kind_refused",
    ]);
    equal(
      (await call(s, "GET", "/api/x/demo/red", key)).body.error.code,
      "endpoint.key_not_bound",
    );

    // The document lists what the key may call, and is a valid OpenAPI 3.1 document.
    const doc = await s.fetch("/api/x/openapi.json", { headers: feed });
    equal(doc.status, 200);
    const document = await doc.json();
    deepEqual(Object.keys(document.paths), ["/demo/{team}"]);
    const validator = new Validator();
    ok((await validator.validate(document)).valid);

    const unbound = await call(
      s,
      "DELETE",
      "/api/v1/endpoints/bindings?path=/demo&key_name=feed",
      author,
    );
    equal(unbound.status, 204);
    equal(
      (await call(s, "DELETE", endpointUrl("/demo/{team}"), author)).status,
      204,
    );
    equal((await call(s, "GET", "/api/x/demo/red", key)).status, 404);
  },
);
