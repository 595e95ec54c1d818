/**
 * Every API route answers what it declares, on both stores. The harness turns the router's
 * response check on (tests/support/harness.ts): each success answer is parsed with its route's declared
 * schema, and a field the schema does not name fails it too, so a drift is a 500 naming the route
 * and the field. This walk calls every non-HTML route at least once over a real world (roles,
 * templates, datasources, a lake, pipelines, runs, endpoints, keys, a promotion to a hardened
 * target), and then asks the routers which routes were answered and checked: all of them.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { MISMATCH } from "../src/http/responses.ts";
import { userKey } from "./support/access_fixtures.ts";
import type { Json } from "./support/harness.ts";
import { sqliteFile, sqliteSource } from "./support/pipeline_client.ts";
import { type Deployment, HARDENED, withPair } from "./support/promotion_client.ts";
import { forEachStoreKind } from "./support/stores.ts";

type Headers = Record<string, string>;

/** The walk on one deployment, as its super admin's session in `acme` unless told otherwise. */
class Walk {
  constructor(readonly d: Deployment) {}

  get admin(): Headers {
    return this.d.admin;
  }

  ifMatch(hash: unknown): Headers {
    return { ...this.d.admin, "If-Match": String(hash) };
  }

  /** One call that must answer `status`; answers the body's `data` (or the raw body). */
  async expect(
    status: number,
    method: string,
    path: string,
    body?: unknown,
    headers: Headers = this.d.admin,
  ): Promise<Json> {
    const r = await this.d.req(method, path, headers, body);
    const why = this.d.s.logs.findLast((line) => line.includes(MISMATCH)) ??
      JSON.stringify(r.body);
    equal(r.status, status, `${method} ${path}: ${why.slice(0, 800)}`);
    return r.body.data ?? r.body;
  }
}

/** The walk is quicker than a person: lift the per-user request budget it would run into. */
const BUDGET = {
  SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "100000",
  SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "100000",
};

forEachStoreKind(
  "every API route answers what it declares",
  (kind) =>
    withPair(
      kind,
      async ({ dev, prod }) => {
        const w = new Walk(dev);
        await platformAndIdentity(w);
        await workspaces(w);
        await templates(w);
        await datasources(w);
        const pipeline = await pipelines(w);
        await runs(w, pipeline);
        await endpoints(w, pipeline);
        // The target answers the inventory and the push, checked by its own router.
        await w.expect(200, "GET", `/api/v1/promotion/preview?pipeline_id=${pipeline}`);
        await w.expect(200, "POST", "/api/v1/promotion/promote", { pipeline_id: pipeline });

        // Every non-HTML route declares each answer and was answered and checked, here or there.
        const checked = new Map<string, number>();
        for (const route of [...dev.s.runtime.router.routes(), ...prod.s.runtime.router.routes()]) {
          if (route.kind === "html") continue;
          ok(route.declared, `${route.method} ${route.path} declares every answer`);
          const name = `${route.method} ${route.path}`;
          checked.set(name, (checked.get(name) ?? 0) + route.checked);
        }
        deepEqual([...checked].filter(([, n]) => n === 0).map(([name]) => name), []);
        for (const s of [dev.s, prod.s]) ok(!s.logs.some((line) => line.includes(MISMATCH)));
      },
      { ...HARDENED, ...BUDGET },
      BUDGET,
    ),
);

async function platformAndIdentity(w: Walk) {
  for (const path of ["/health", "/ready", "/info", "/openapi.json"]) {
    await w.expect(200, "GET", path, undefined, {});
  }
  const viewer = w.d.f.users.viewer.id;
  await w.expect(200, "GET", "/api/v1/auth/me");
  await w.expect(200, "GET", "/api/v1/auth/users");
  await w.expect(200, "GET", `/api/v1/auth/users/${viewer}`);
  for (const verb of ["deactivate", "activate", "grant-admin", "revoke-admin"]) {
    await w.expect(200, "POST", `/api/v1/auth/users/${viewer}/${verb}`);
  }
  await w.expect(200, "GET", "/api/v1/audit");
  const key = await w.expect(201, "POST", "/api/v1/auth/api-keys", { name: "ci" });
  await w.expect(200, "GET", "/api/v1/auth/api-keys");
  await w.expect(204, "DELETE", `/api/v1/auth/api-keys/${key.id}`);
}

async function workspaces(w: Walk) {
  const W = "/api/v1/workspaces";
  const { id: viewer, email } = w.d.f.users.viewer;
  await w.expect(200, "GET", W);
  await w.expect(201, "POST", W, { name: "spare" });
  await w.expect(200, "GET", `${W}/acme`);
  await w.expect(200, "PUT", `${W}/spare`, { display_name: "Spare" });
  await w.expect(200, "POST", `${W}/spare/deactivate`);
  await w.expect(200, "POST", `${W}/spare/reactivate`);
  await w.expect(200, "GET", `${W}/acme/members`);
  await w.expect(200, "POST", `${W}/spare/members`, { email });
  await w.expect(202, "POST", `${W}/spare/members`, { email: "new@acme.example" });
  await w.expect(200, "PUT", `${W}/spare/members/${viewer}`, { author: true });
  await w.expect(204, "DELETE", `${W}/spare/members/${viewer}`);
  await w.expect(204, "DELETE", `${W}/spare/invitations/new@acme.example`);
  await w.expect(204, "DELETE", `${W}/spare`);
}

/** Templates through their whole lifecycle; lib/orders@1 ends released for the pipeline. */
async function templates(w: Walk) {
  const T = "/api/v1/templates";
  const orders = { id: "lib/orders", dialect: "SQLITE", display_name: "Orders" };
  const name = { name: "lib/orders" };
  const draft = await w.expect(201, "POST", T, { ...orders, body: "SELECT * FROM orders" });
  await w.expect(200, "GET", `${T}?name=lib/orders`);
  await w.expect(200, "GET", `${T}?prefix=lib`);
  await w.expect(200, "GET", T);
  const body = "SELECT id, amount FROM orders";
  const v1 = await w.expect(200, "PUT", T, { ...orders, body }, w.ifMatch(draft.body_hash));
  await w.expect(200, "POST", `${T}/render`, name);
  await w.expect(200, "POST", `${T}/release`, name, w.ifMatch(v1.body_hash));
  await w.expect(200, "GET", `${T}/versions?name=lib/orders`);
  await w.expect(200, "GET", `${T}/versions?name=lib/orders&version=1`);
  for (const move of ["version/discard", "version/restore", "current"]) {
    await w.expect(200, "POST", `${T}/${move}`, { ...name, version: 1 });
  }
  const v2 = await w.expect(
    200,
    "PUT",
    T,
    { ...orders, body: "SELECT 1" },
    w.ifMatch(v1.body_hash),
  );
  await w.expect(204, "POST", `${T}/draft/discard`, name, w.ifMatch(v2.body_hash));
  await w.expect(200, "PUT", T, { ...orders, body: "SELECT 2" }, w.ifMatch(v1.body_hash));
  await w.expect(204, "DELETE", `${T}/version?name=lib/orders&version=2`);
  await w.expect(201, "POST", T, { ...orders, id: "tmp/scratch", body: "SELECT 3" });
  await w.expect(200, "DELETE", `${T}?name=tmp/scratch`);
  const library = { templates: [{ id: "lib/one", dialect: "SQLITE", body: "SELECT 1" }] };
  await w.expect(201, "POST", `${T}/import`, library);
  await w.expect(200, "POST", `${T}/import`, library);
}

/** The registry, a probe, introspection, grants, and a lake's table registry. */
async function datasources(w: Walk) {
  const D = "/api/v1/datasources";
  await w.expect(200, "GET", D);
  const scratch = sqliteSource("scratch", await sqliteFile());
  await w.expect(201, "POST", D, scratch);
  await w.expect(200, "GET", `${D}/scratch`);
  await w.expect(200, "PUT", `${D}/scratch`, { ...scratch, readonly: true });
  await w.expect(204, "DELETE", `${D}/scratch`);
  await w.expect(200, "POST", `${D}/wh/test`);
  await w.expect(200, "GET", `${D}/wh/schemas`);
  await w.expect(200, "GET", `${D}/wh/tables`);
  await w.expect(200, "GET", `${D}/wh/tables/orders/columns`);
  const { workspace: _, ...global } = sqliteSource("shared", await sqliteFile());
  await w.expect(201, "POST", D, { ...global, global: true });
  await w.expect(200, "POST", `${D}/shared/grants/acme`);
  await w.expect(204, "DELETE", `${D}/shared/grants/acme`);

  // Registration never reads the files, so the lake can be an empty directory.
  const root = await Deno.makeTempDir({ prefix: "svc_views_lake_" });
  try {
    await w.expect(201, "POST", D, {
      name: "lake",
      display_name: "Lake",
      dialect: "LAKE",
      jdbc_url: `jdbc:lake:file://${root}`,
      credential: { kind: "none" },
      workspace: "acme",
    });
    await w.expect(201, "POST", `${D}/lake/tables`, {
      namespace: "sales",
      name: "orders",
      format: "parquet",
      location: `file://${root}/sales/orders/*.parquet`,
    });
    await w.expect(200, "POST", `${D}/lake/tables/import`, {
      namespace: "sales",
      publish_prefix: `file://${root}/pub`,
      tables: [{ name: "refunds", format: "parquet", path: "refunds/*.parquet" }],
    });
    await w.expect(200, "GET", `${D}/lake/lake-tables`);
    await w.expect(204, "DELETE", `${D}/lake/tables/sales/refunds`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const P = "/api/v1/pipelines";

/** shop/orders over lib/orders@1 with a release check: what runs, endpoints and promotion use. */
const SHOP = {
  name: "shop/orders",
  parameters: { team: { type: "string", required: true } },
  nodes: [
    {
      id: "orders",
      type: "DQL",
      source: "wh",
      template: { id: "lib/orders", version: 1 },
      output: { target: "tempdb", table: "orders" },
    },
    {
      id: "result",
      type: "DQL",
      source: "tempdb",
      sql: "SELECT :team AS team, COUNT(*) AS n FROM orders",
      depends_on: ["orders"],
    },
  ],
  checks: [{
    id: "total",
    name: "Total",
    datasource: "wh",
    query: "SELECT SUM(amount) FROM orders",
    expectation: { kind: "value", value: 42 },
  }],
};

/** A pipeline through its lifecycle, its checks, export and import; answers its id. */
async function pipelines(w: Walk): Promise<string> {
  const draft = await w.expect(201, "POST", P, SHOP);
  const id = String(draft.id);
  await w.expect(200, "GET", P);
  await w.expect(200, "GET", `${P}?prefix=shop`);
  await w.expect(200, "GET", `${P}/${id}`);
  const named = { ...SHOP, display_name: "Orders by team" };
  const saved = await w.expect(200, "PUT", `${P}/${id}`, named, w.ifMatch(draft.body_hash));
  await w.expect(200, "POST", `${P}/${id}/versions/1/checks/run`);
  await w.expect(200, "GET", `${P}/${id}/versions/1/checks`);
  const v1 = await w.expect(
    200,
    "POST",
    `${P}/${id}/release`,
    undefined,
    w.ifMatch(saved.body_hash),
  );
  await w.expect(200, "GET", `${P}/${id}/versions`);
  await w.expect(200, "GET", `${P}/${id}/versions/1`);
  // Its only release discarded, the pipeline reads without a version; restore brings it back.
  await w.expect(200, "POST", `${P}/${id}/versions/1/discard`);
  await w.expect(200, "GET", `${P}/${id}`);
  await w.expect(200, "POST", `${P}/${id}/versions/1/restore`);
  await w.expect(200, "POST", `${P}/${id}/current`, { version: 1 });
  const v2 = await w.expect(200, "PUT", `${P}/${id}`, SHOP, w.ifMatch(v1.body_hash));
  await w.expect(204, "POST", `${P}/${id}/draft/discard`, undefined, w.ifMatch(v2.body_hash));
  await w.expect(200, "PUT", `${P}/${id}`, SHOP, w.ifMatch(v1.body_hash));
  await w.expect(204, "DELETE", `${P}/${id}/versions/2`);
  const exported = await w.expect(200, "GET", `${P}/${id}/export`);
  await w.expect(200, "POST", `${P}/import`, exported.pipeline);
  const copy = await w.expect(201, "POST", `${P}/import`, { ...SHOP, name: "shop/copy" });
  await w.expect(200, "DELETE", `${P}/${copy.id}`);
  return id;
}

const E = "/api/v1/executions";

/** A run over SSE, its history, record, replay and result (JSON and CSV). */
async function runs(w: Walk, pipeline: string) {
  const started = await w.d.s.fetch(`${P}/${pipeline}/execute`, {
    method: "POST",
    headers: { ...w.admin, accept: "text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({ parameters: { team: "red" } }),
  });
  equal(started.status, 200);
  ok((await started.text()).includes("event: data_ready"));
  const run = started.headers.get("svc-execution-id");
  await w.expect(200, "GET", E);
  await w.expect(200, "GET", `${E}/${run}`);
  await w.expect(200, "GET", `${E}/${run}/events`);
  equal((await w.expect(200, "GET", `${E}/${run}/result`)).rows[0][0], "red");
  const csv = await w.d.s.fetch(`${E}/${run}/result?format=csv`, { headers: w.admin });
  deepEqual([csv.status, (await csv.text()).split(/\r?\n/)[0]], [200, "team,n"]);
}

/** 400M recursive steps on SQLite: a run that is still going when it is cancelled. */
const LONG = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 400000000) " +
  "SELECT x FROM c WHERE x % 1000000 = 0";

/** Manage, bind a key, serve: 200, and 202 when the timeout passes (then cancel that run). */
async function endpoints(w: Walk, pipeline: string) {
  const X = "/api/v1/endpoints";
  const path = encodeURIComponent("/shop/{team}");
  await w.expect(201, "POST", X, { path_pattern: "/shop/{team}", pipeline_id: pipeline });
  await w.expect(200, "GET", X);
  await w.expect(200, "GET", `${X}?path=${path}`);
  await w.expect(200, "PUT", `${X}?path=${path}`, { enabled: true });
  await w.expect(201, "POST", "/api/v1/auth/api-keys", { name: "edge", kind: "endpoint" });
  const binding = { path: "/shop", key_name: "edge" };
  await w.expect(201, "POST", `${X}/bindings`, binding);
  await w.expect(200, "POST", `${X}/bindings`, binding);
  await w.expect(204, "DELETE", `${X}/bindings?path=/shop&key_name=edge`);

  const { runtime } = w.d.s;
  const key = {
    "SVC-API-Key": await userKey(runtime, w.d.f.users.super_admin, w.d.f.workspace.id, ["execute"]),
  };
  await w.expect(200, "GET", "/api/x/openapi.json", undefined, key);
  equal((await w.expect(200, "GET", "/api/x/shop/blue", undefined, key)).rows[0][0], "blue");
  const long = await w.expect(201, "POST", P, {
    name: "shop/long",
    nodes: [{ id: "count", type: "DQL", source: "wh", sql: LONG }],
  });
  await w.expect(200, "POST", `${P}/${long.id}/release`, undefined, w.ifMatch(long.body_hash));
  await w.expect(201, "POST", X, {
    path_pattern: "/slow",
    pipeline_id: long.id,
    timeout_seconds: 1,
  });
  const accepted = await w.expect(202, "GET", "/api/x/slow", undefined, key);
  // The run goes on after the 202; cancelling it is the cancel route's answer.
  await w.expect(204, "DELETE", `${E}/${accepted.execution_id}`);
  await w.expect(204, "DELETE", `${X}?path=/slow`);
}
