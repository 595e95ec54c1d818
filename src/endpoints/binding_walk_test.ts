/**
 * Spec 3 §4.3 items 2 and 3 through the domain, on both stores (issue 22 finding 2): the walk is
 * over the request path's own ancestors, so a binding on a node below a variable of the matched
 * pattern decides for the URLs under it, and the OpenAPI document lists only what each key may
 * call. The walk against a brute-force oracle is the property test in matcher_test.ts.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { storeTestIn } from "../../tests/support/stores.ts";
import { refuses } from "../../tests/support/refusals.ts";
import type { Principal } from "../identity/mod.ts";
import { addWorkspace } from "../versions/test_fixtures.ts";
import { type EndpointWorld, peopleNodes, withEndpointWorld } from "./test_fixtures.ts";

/** Each test runs in a fresh endpoint world (with the SQLite datasource `lite`). */
const endpointTest = storeTestIn(withEndpointWorld);

/** A released read whose parameters are the path variables `v` and `w`. */
const BY_V = {
  parameters: { v: { type: "string" }, w: { type: "string", default: "x" } },
};

/** Serves a GET and answers its status, or the refusal's code. */
async function outcome(e: EndpointWorld, p: Principal, path: string): Promise<string | number> {
  try {
    const r = await e.server.serve({
      principal: p,
      path,
      query: [],
      correlationId: crypto.randomUUID(),
    });
    return r.status;
  } catch (err) {
    return (err as { code: string }).code;
  }
}

const NOT_BOUND = "endpoint.key_not_bound";
const KIND = "endpoint.key_kind_refused";

endpointTest(
  "issue 22 finding 2: a binding on a literal node below a variable pattern decides for its URLs",
  async (e) => {
    const id = await e.released(peopleNodes("lite", "SELECT :v AS v"), BY_V);
    await e.service.publish(e.ctx, { path_pattern: "/p/lit/{v}", pipeline_id: id });
    const user = await e.key({ name: "user", scopes: ["execute"] });
    const feed = await e.key({ name: "feed", kind: "endpoint" });
    const other = await e.key({ name: "other", kind: "endpoint" });
    await e.service.bind(e.ctx, { path: "/p/lit/secret", key_name: "feed" });

    // The bound node decides for every kind: the user key is refused, the bound key served.
    await refuses(() => e.server.serve(get(user, "/p/lit/secret")), NOT_BOUND, 403, {
      node: "/p/lit/secret",
    });
    equal(await outcome(e, feed, "/p/lit/secret"), 200);
    equal(await outcome(e, other, "/p/lit/secret"), NOT_BOUND);
    // The segment is compared decoded, as the matcher binds it.
    equal(await outcome(e, user, "/p/lit/%73ecret"), NOT_BOUND);
    equal(await outcome(e, feed, "/p/lit/%73ecret"), 200);
    // Beside it no ancestor is bound: item 3.
    equal(await outcome(e, user, "/p/lit/open"), 200);
    equal(await outcome(e, feed, "/p/lit/open"), KIND);

    // A node with a variable where the pattern has a literal names the pattern's URLs too.
    await e.service.bind(e.ctx, { path: "/p/{x}", key_name: "other" });
    equal(await outcome(e, user, "/p/lit/open"), NOT_BOUND);
    equal(await outcome(e, other, "/p/lit/open"), 200);
    equal(await outcome(e, feed, "/p/lit/open"), NOT_BOUND);
    // ...and the deeper literal binding still replaces it below.
    equal(await outcome(e, other, "/p/lit/secret"), NOT_BOUND);
    equal(await outcome(e, feed, "/p/lit/secret"), 200);

    // Two bound nodes naming one ancestor decide together.
    await e.service.bind(e.ctx, { path: "/p/lit/{y}", key_name: "other" });
    equal(await outcome(e, other, "/p/lit/secret"), 200);
    equal(await outcome(e, feed, "/p/lit/secret"), 200);
    equal(await outcome(e, feed, "/p/lit/open"), NOT_BOUND);

    // Unbinding the literal node gives its URL back to what is above it.
    await e.service.unbind(e.ctx, { path: "/p/lit/secret", key_name: "feed" });
    equal(await outcome(e, feed, "/p/lit/secret"), NOT_BOUND);
    await e.service.unbind(e.ctx, { path: "/p/lit/{y}", key_name: "other" });
    await e.service.unbind(e.ctx, { path: "/p/{x}", key_name: "other" });
    equal(await outcome(e, user, "/p/lit/secret"), 200);
    equal(await outcome(e, feed, "/p/lit/secret"), KIND);

    // The endpoint's record shows the bindings that decide for some of its URLs, deepest first.
    await e.service.bind(e.ctx, { path: "/p/lit/secret", key_name: "feed" });
    await e.service.bind(e.ctx, { path: "/p", key_name: "other" });
    await e.service.bind(e.ctx, { path: "/p/other", key_name: "other" });
    deepEqual((await e.service.get(e.ctx, "/p/lit/{v}")).bindings.map((b) => b.path), [
      "/p/lit/secret",
      "/p",
    ]);
  },
);

endpointTest(
  "issue 22 finding 2: a deeper binding replaces an inherited one, per request path",
  async (e) => {
    const id = await e.released(peopleNodes("lite", "SELECT :v AS v, :w AS w"), BY_V);
    await e.service.publish(e.ctx, { path_pattern: "/d/{v}/{w}", pipeline_id: id });
    const user = await e.key({ name: "user", scopes: ["execute"] });
    const k1 = await e.key({ name: "k1", kind: "endpoint" });
    const k2 = await e.key({ name: "k2", kind: "endpoint" });
    const k3 = await e.key({ name: "k3", kind: "endpoint" });
    await e.service.bind(e.ctx, { path: "/d", key_name: "k1" });
    await e.service.bind(e.ctx, { path: "/d/eu", key_name: "k2" });
    await e.service.bind(e.ctx, { path: "/d/eu/daily", key_name: "k3" });
    const table = [
      ["/d/us/daily", { user: NOT_BOUND, k1: 200, k2: NOT_BOUND, k3: NOT_BOUND }],
      ["/d/eu/weekly", { user: NOT_BOUND, k1: NOT_BOUND, k2: 200, k3: NOT_BOUND }],
      ["/d/eu/daily", { user: NOT_BOUND, k1: NOT_BOUND, k2: NOT_BOUND, k3: 200 }],
    ] as const;
    const keys = { user, k1, k2, k3 };
    for (const [path, expected] of table) {
      for (const [name, want] of Object.entries(expected)) {
        equal(await outcome(e, keys[name as keyof typeof keys], path), want, `${name} ${path}`);
      }
    }
    // The root binding is inherited where nothing deeper is bound; it applies to user keys.
    await e.service.unbind(e.ctx, { path: "/d", key_name: "k1" });
    await e.service.bind(e.ctx, { path: "/", key_name: "k1" });
    equal(await outcome(e, k1, "/d/us/daily"), 200);
    equal(await outcome(e, user, "/d/us/daily"), NOT_BOUND);
    equal(await outcome(e, k1, "/d/eu/daily"), NOT_BOUND);
  },
);

endpointTest(
  "issue 22 finding 2: with no bound ancestor, user keys of the workspace holding execute only",
  async (e) => {
    const id = await e.released(peopleNodes("lite", "SELECT :v AS v"), BY_V);
    await e.service.publish(e.ctx, { path_pattern: "/p/lit/{v}", pipeline_id: id });
    const user = await e.key({ name: "user", scopes: ["execute"] });
    const reader = await e.key({ name: "reader", scopes: ["read"] });
    const feed = await e.key({ name: "feed", kind: "endpoint" });
    const far = await e.key({ name: "far", scopes: ["execute"] }, {
      userId: e.ctx.actor.userId,
      workspaceId: await addWorkspace(e.db, "far-ws"),
    });
    // A binding of another workspace's key does not gate this workspace's endpoints.
    await e.key({ name: "far-feed", kind: "endpoint", bindings: [{ path: "/p" }] }, {
      userId: e.ctx.actor.userId,
      workspaceId: (far.pinnedWorkspaceId)!,
    });
    // A binding elsewhere in the tree is no ancestor of this URL.
    await e.service.bind(e.ctx, { path: "/p/other", key_name: "feed" });
    equal(await outcome(e, user, "/p/lit/a"), 200);
    equal(await outcome(e, feed, "/p/lit/a"), KIND);
    equal(await outcome(e, reader, "/p/lit/a"), "auth.scope.insufficient");
    await refuses(() => e.server.serve(get(far, "/p/lit/a")), NOT_BOUND, 403, {
      reason: "other_workspace",
    });
  },
);

endpointTest(
  "issue 22 finding 2: the OpenAPI document lists only the URLs each key may call",
  async (e) => {
    const id = await e.released(peopleNodes("lite", "SELECT :v AS v"), {
      parameters: { v: { type: "string" }, n: { type: "integer", default: 1 } },
    });
    const num = await e.released(peopleNodes("lite", "SELECT :v AS v"), {
      parameters: { v: { type: "integer" } },
    });
    await e.service.publish(e.ctx, { path_pattern: "/p/lit/{v}", pipeline_id: id });
    await e.service.publish(e.ctx, { path_pattern: "/n/{v}", pipeline_id: num });
    await e.service.publish(e.ctx, { path_pattern: "/all/{v}", pipeline_id: id });
    await e.service.publish(e.ctx, { path_pattern: "/w/{v}", pipeline_id: id });
    const user = await e.key({ name: "user", scopes: ["execute"] });
    const feed = await e.key({ name: "feed", kind: "endpoint" });
    const wide = await e.key({ name: "wide", kind: "endpoint" });
    for (const path of ["/p/lit/secret", "/p/lit/a-b", "/p/lit/a.b", "/n/7", "/n/07"]) {
      await e.service.bind(e.ctx, { path, key_name: "feed" });
    }
    await e.service.bind(e.ctx, { path: "/w", key_name: "wide" });
    await e.service.bind(e.ctx, { path: "/w/secret", key_name: "wide" });

    type Op = {
      operationId: string;
      parameters: { name?: string; in?: string; schema?: object }[];
    };
    const doc = async (p: Principal) => {
      const d = await e.server.describe(p, "http://svc.example");
      const result = await new Validator().validate(d);
      ok(result.valid, JSON.stringify(result.errors)?.slice(0, 1000));
      return d.paths as Record<string, { get: Op }>;
    };
    const paths = (d: Record<string, unknown>) => Object.keys(d).sort();
    const pathParams = (op: Op) => op.parameters.filter((p) => p.in === "path");

    // The user key: every URL of /p/lit/{v} but the bound ones, every /n/{v} but 7 (a number;
    // "07" is a segment of its own, which an integer schema cannot name), all of /all/{v}, and
    // nothing of /w/{v}, bound whole to another key.
    const forUser = await doc(user);
    deepEqual(paths(forUser), ["/all/{v}", "/n/{v}", "/p/lit/{v}"]);
    deepEqual(pathParams(forUser["/p/lit/{v}"].get)[0].schema, {
      type: "string",
      not: { enum: ["a-b", "a.b", "secret"] },
    });
    deepEqual(pathParams(forUser["/n/{v}"].get)[0].schema, {
      type: "integer",
      not: { enum: [7] },
    });
    deepEqual(pathParams(forUser["/all/{v}"].get)[0].schema, { type: "string" });

    // The bound key: only the bound URLs, the variable fixed there and no longer a parameter.
    const forFeed = await doc(feed);
    deepEqual(paths(forFeed), ["/n/07", "/n/7", "/p/lit/a-b", "/p/lit/a.b", "/p/lit/secret"]);
    const secret = forFeed["/p/lit/secret"].get;
    deepEqual(pathParams(secret), []);
    deepEqual(secret.parameters.flatMap((p) => p.name ? [p.name] : []), ["n"]);
    // Paths differing only in punctuation still get distinct operation ids.
    equal(new Set(Object.values(forFeed).map((p) => p.get.operationId)).size, 5);

    // A key bound above and below sees the pattern whole.
    deepEqual(paths(await doc(wide)), ["/w/{v}"]);
  },
);

function get(principal: Principal, path: string) {
  return { principal, path, query: [] as [string, string][], correlationId: crypto.randomUUID() };
}
