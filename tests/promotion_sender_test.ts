/**
 * The promotion sender over HTTP on both stores (DECISIONS.md "promotion sender", spec 3 §4.4):
 * promote through the operation matrix, every refusal before anything is sent, the closure
 * (templates, child pipelines), endpoints carried with their bindings by key name, and the hardened
 * posture of the receiver (authoring refused, promotion accepted).
 */
import { deepEqual, equal } from "node:assert/strict";
import { sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { freePort, type Json } from "./support/harness.ts";
import {
  type Deployment,
  deployment,
  HARDENED,
  inventory,
  release,
  template,
  withPair,
} from "./support/promotion_client.ts";
import { forEachStoreKind } from "./support/stores.ts";

const PROMOTE = "/api/v1/promotion/promote";
const ORDERS_SQL = "SELECT id, amount FROM orders WHERE id = :customer_id";

const orders = (name: string, tv: number, extra: Json = {}) => ({
  name,
  parameters: { customer_id: { type: "integer", required: true } },
  nodes: [{ id: "orders", type: "DQL", source: "wh", template: { id: "lib/orders", version: tv } }],
  ...extra,
});

/** lib/orders and the pipeline shop/orders over it, both released on `dev`. */
async function releaseOrders(dev: Deployment) {
  await template(dev, "lib/orders", ORDERS_SQL);
  return await release(dev, orders("shop/orders", 1));
}

forEachStoreKind(
  "promotion sender: promote, re-promote, newer release, refusals",
  (kind) =>
    withPair(kind, async ({ prod, dev, key }) => {
      const child = await releaseOrders(dev);
      const parent = await release(dev, {
        name: "shop/report",
        nodes: [{ id: "c", type: "PIPELINE", pipeline: { id: child.id, version: child.version } }],
      });

      // The matrix: an author without the promote flag is refused; a viewer too.
      const author = await dev.req("POST", PROMOTE, await headersOf(dev, "author"), {
        pipeline_id: parent.id,
      });
      equal(author.status, 403, JSON.stringify(author.body));
      const viewerKey = await userKey(dev.s.runtime, dev.f.users.viewer, dev.f.workspace.id, [
        "read",
      ]);
      equal(
        (await dev.req("POST", PROMOTE, { "SVC-API-Key": viewerKey }, { pipeline_id: parent.id }))
          .status,
        403,
      );

      // A key: author scope and an issuer holding the promote flag; execute scope is not enough.
      const rt = dev.s.runtime;
      const executeKey = await userKey(rt, dev.f.users.promoter, dev.f.workspace.id, ["execute"]);
      const ex = await dev.req("POST", PROMOTE, { "SVC-API-Key": executeKey }, {
        pipeline_id: parent.id,
      });
      deepEqual([ex.status, ex.body.error.code], [403, "auth.scope.insufficient"]);
      const authorKey = await userKey(rt, dev.f.users.promoter, dev.f.workspace.id, ["author"]);
      const first = await dev.req("POST", PROMOTE, { "SVC-API-Key": authorKey }, {
        pipeline_id: parent.id,
      });
      equal(first.status, 200, JSON.stringify(first.body));
      deepEqual(
        [
          first.body.data.target,
          first.body.data.pipeline.version,
          first.body.data.previous_version,
        ],
        ["production", parent.version, null],
      );
      deepEqual(first.body.data.pushed.applied, { templates: 1, pipelines: 2, endpoints: 0 });
      // Entry by entry, what the push changed there (additive; the UI's outcome reads it).
      deepEqual(
        first.body.data.changes.pipelines.map((r: Json) => [r.name, r.target_version, r.change]),
        [["shop/orders", null, "added"], ["shop/report", null, "added"]],
      );
      deepEqual(first.body.data.changes.templates.map((r: Json) => [r.name, r.change]), [
        ["lib/orders", "added"],
      ]);
      deepEqual(first.body.data.changes.endpoints, []);
      let inv = await inventory(prod, key);
      deepEqual(inv.pipelines.map((p: Json) => [p.name, p.current_version]), [
        ["shop/orders", child.version],
        ["shop/report", parent.version],
      ]);
      deepEqual(inv.templates.map((p: Json) => [p.name, p.current_version]), [["lib/orders", 1]]);

      // Re-promotion of the release production has: not newer, refused before any push.
      const again = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: parent.id });
      deepEqual([again.status, again.body.error.code], [409, "pipeline.promotion.not_newer"]);

      // A newer release of the child arrives with its own number.
      const child2 = await release(dev, orders("shop/orders", 1, { description: "v2" }), child.id);
      const newer = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: child.id });
      equal(newer.status, 200, JSON.stringify(newer.body));
      equal(newer.body.data.previous_version, child.version);
      inv = await inventory(prod, key);
      equal(
        inv.pipelines.find((p: Json) => p.name === "shop/orders").current_version,
        child2.version,
      );

      // not_newer: development serves the older release again.
      const back = await dev.req("POST", `/api/v1/pipelines/${child.id}/current`, dev.admin, {
        version: child.version,
      });
      equal(back.status, 200, JSON.stringify(back.body));
      const stale = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: child.id });
      deepEqual([stale.status, stale.body.error.code], [409, "pipeline.promotion.not_newer"]);

      // not_released: a pipeline with only a draft.
      const draft = await dev.req("POST", "/api/v1/pipelines", dev.admin, orders("shop/draft", 1));
      const nr = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: draft.body.data.id });
      deepEqual([nr.status, nr.body.error.code], [409, "pipeline.promotion.not_released"]);

      // missing_datasources: production has no `wh2`.
      const other = await release(dev, {
        name: "shop/other",
        nodes: [{ id: "a", type: "DQL", source: "wh2", sql: "SELECT 1 AS x" }],
      });
      const md = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: other.id });
      deepEqual([md.status, md.body.error.code, md.body.error.details.missing], [
        409,
        "pipeline.promotion.missing_datasources",
        ["wh2"],
      ]);
      // Nothing of the refused promotions reached production.
      inv = await inventory(prod, key);
      deepEqual(inv.pipelines.map((p: Json) => p.name), ["shop/orders", "shop/report"]);
      equal(
        inv.pipelines.find((p: Json) => p.name === "shop/orders").current_version,
        child2.version,
      );

      // The hardened posture: authoring routes refused, promotion accepted (above).
      const refused = await prod.req("POST", "/api/v1/pipelines", prod.admin, orders("shop/x", 1));
      deepEqual([refused.status, refused.body.error.code], [403, "pipeline.authoring.disabled"]);
      const imported = await prod.req("POST", "/api/v1/pipelines/import", prod.admin, {
        ...orders("shop/y", 1),
      });
      deepEqual([imported.status, imported.body.error.code], [403, "pipeline.authoring.disabled"]);
      const tpl = await prod.req("POST", "/api/v1/templates", prod.admin, {
        id: "lib/x",
        dialect: "SQLITE",
        display_name: "x",
        body: "SELECT 1",
      });
      deepEqual([tpl.status, tpl.body.error.code], [403, "pipeline.authoring.disabled"]);
      // What arrived runs on production.
      const prodOrders = inv.pipelines.find((p: Json) => p.name === "shop/orders");
      const run = await prod.req(
        "POST",
        `/api/v1/pipelines/${prodOrders.id}/execute`,
        { ...prod.admin, accept: "text/event-stream" },
        { parameters: { customer_id: 1 } },
      );
      equal(run.status, 200);
    }),
);

forEachStoreKind(
  "promotion sender: a target with authoring enabled is refused",
  (kind) =>
    withPair(kind, async ({ prod, dev, key }) => {
      await template(dev, "lib/orders", "SELECT id FROM orders");
      const p = await release(dev, orders("shop/orders", 1));
      const r = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: p.id });
      deepEqual([r.status, r.body.error.code], [409, "pipeline.promotion.target_is_authoring"]);
      deepEqual((await inventory(prod, key)).pipelines, []);
    }, { SERVICE_DEPLOYMENT_NAME: "staging" }),
);

forEachStoreKind(
  "promotion sender: endpoints travel with their bindings by key name",
  (kind) =>
    withPair(kind, async ({ prod, dev, key }) => {
      const p = await releaseOrders(dev);
      const authorDev = await headersOf(dev, "super_admin");
      const pub = await dev.req("POST", "/api/v1/endpoints", authorDev, {
        path_pattern: "/shop/orders/{customer_id}",
        pipeline_id: p.id,
      });
      equal(pub.status, 201, JSON.stringify(pub.body));
      const ek = await dev.req("POST", "/api/v1/auth/api-keys", authorDev, {
        name: "shop-app",
        kind: "endpoint",
      });
      equal(ek.status, 201, JSON.stringify(ek.body));
      const bound = await dev.req("POST", "/api/v1/endpoints/bindings", authorDev, {
        path: "/shop",
        key_name: "shop-app",
      });
      equal(bound.status, 201, JSON.stringify(bound.body));

      // Production lacks the key name: refused before anything is pushed.
      const missing = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: p.id });
      deepEqual([missing.status, missing.body.error.code, missing.body.error.details.key_name], [
        409,
        "endpoint.promotion.key_missing",
        "shop-app",
      ]);
      deepEqual((await inventory(prod, key)).pipelines, []);

      // With an endpoint key of that name on production, the endpoint and its binding arrive.
      const prodKey = await prod.req("POST", "/api/v1/auth/api-keys", prod.admin, {
        name: "shop-app",
        kind: "endpoint",
      });
      equal(prodKey.status, 201);
      const done = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: p.id });
      equal(done.status, 200, JSON.stringify(done.body));
      deepEqual(done.body.data.pushed.applied, { templates: 1, pipelines: 1, endpoints: 2 });
      const ep = await prod.req(
        "GET",
        "/api/v1/endpoints?path=/shop/orders/{customer_id}",
        prod.admin,
      );
      equal(ep.status, 200, JSON.stringify(ep.body));
      deepEqual(ep.body.data.bindings.map((b: Json) => [b.path, b.key_name]), [[
        "/shop",
        "shop-app",
      ]]);
      // The production key serves it; another key is not bound.
      const served = await prod.s.fetch("/api/x/shop/orders/1", {
        headers: { "SVC-API-Key": String(prodKey.body.data.key) },
      });
      equal(served.status, 200, await served.clone().text());
      const rows = (await served.json()).rows;
      deepEqual(rows.length, 1);
    }),
);

function headersOf(d: Deployment, role: "author" | "super_admin") {
  return sessionHeaders(d.s.runtime, d.f.users[role], "acme");
}

forEachStoreKind(
  "promotion preview: the diff with breaking changes, and nothing changes",
  (kind) =>
    withPair(kind, async ({ prod, dev, key }) => {
      await template(dev, "lib/orders", ORDERS_SQL);
      const p = await release(
        dev,
        orders("shop/orders", 1, {
          parameters: {
            customer_id: { type: "integer", required: true },
            limit: { type: "integer" },
          },
        }),
      );
      const preview = (id: string) =>
        dev.req("GET", `/api/v1/promotion/preview?pipeline_id=${id}`, dev.promoter);
      const fresh = await preview(p.id);
      equal(fresh.status, 200, JSON.stringify(fresh.body));
      deepEqual(
        fresh.body.data.pipelines.map((
          r: Json,
        ) => [r.name, r.target_version, r.new_version, r.change]),
        [["shop/orders", null, p.version, "added"]],
      );
      deepEqual(fresh.body.data.templates.map((r: Json) => [r.name, r.change]), [[
        "lib/orders",
        "added",
      ]]);
      equal(fresh.body.data.breaking, false);
      deepEqual((await inventory(prod, key)).pipelines, [], "a preview pushes nothing");

      const pub = await dev.req("POST", "/api/v1/endpoints", await headersOf(dev, "super_admin"), {
        path_pattern: "/shop/orders/{customer_id}",
        pipeline_id: p.id,
      });
      equal(pub.status, 201, JSON.stringify(pub.body));
      equal((await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: p.id })).status, 200);
      // What production has is not newer: the preview refuses as promote would.
      const same = await preview(p.id);
      deepEqual([same.status, same.body.error.code], [409, "pipeline.promotion.not_newer"]);

      // A release that retypes nothing but drops `limit` and requires `region`: breaking, since
      // production publishes the pipeline.
      const v2 = await release(
        dev,
        orders("shop/orders", 1, {
          parameters: {
            customer_id: { type: "integer", required: true },
            region: { type: "string", required: true },
          },
        }),
        p.id,
      );
      const before = await inventory(prod, key);
      const b = await preview(p.id);
      equal(b.status, 200, JSON.stringify(b.body));
      const row = b.body.data.pipelines[0];
      deepEqual([row.target_version, row.new_version, row.change, row.published_on_target], [
        p.version,
        v2.version,
        "updated",
        true,
      ]);
      deepEqual(row.parameters, [
        { name: "region", change: "added", to: "string", breaking: true },
        { name: "limit", change: "removed", from: "integer", breaking: true },
      ]);
      // Neither version ever ran here or there: the columns are unknown, not guessed.
      equal(row.result_columns, null);
      deepEqual(b.body.data.templates.map((r: Json) => [r.name, r.change]), [[
        "lib/orders",
        "unchanged",
      ]]);
      deepEqual(b.body.data.endpoints, [{
        path_pattern: "/shop/orders/{customer_id}",
        pipeline_name: "shop/orders",
        change: "unchanged",
      }]);
      equal(b.body.data.breaking, true);
      deepEqual(await inventory(prod, key), before);

      // The preview refuses as promote does, and a viewer may not preview.
      const draft = await dev.req("POST", "/api/v1/pipelines", dev.admin, orders("shop/draft", 1));
      const nr = await preview(String(draft.body.data.id));
      deepEqual([nr.status, nr.body.error.code], [409, "pipeline.promotion.not_released"]);
      const viewer = await sessionHeaders(dev.s.runtime, dev.f.users.viewer, "acme");
      equal(
        (await dev.req("GET", `/api/v1/promotion/preview?pipeline_id=${p.id}`, viewer)).status,
        403,
      );
    }),
);

forEachStoreKind("promotion sender: no target, an unreachable one, a refused key", async (kind) => {
  const prod = await deployment(kind, HARDENED);
  const cases: [Record<string, string>, number, string, number | undefined][] = [
    [{}, 409, "pipeline.promotion.target_not_configured", undefined],
    [
      {
        SERVICE_DEPLOYMENT_PROMOTION_TARGET_URL: `http://127.0.0.1:${freePort()}`,
        SERVICE_DEPLOYMENT_PROMOTION_TARGET_KEY: "svck_x",
      },
      502,
      "pipeline.promotion.target_unreachable",
      0,
    ],
    [
      {
        SERVICE_DEPLOYMENT_PROMOTION_TARGET_URL: prod.s.url,
        SERVICE_DEPLOYMENT_PROMOTION_TARGET_KEY: `svck_${"a".repeat(12)}.${"b".repeat(48)}`,
      },
      502,
      "pipeline.promotion.target_unreachable",
      401,
    ],
  ];
  try {
    for (const [env, status, code, targetStatus] of cases) {
      const dev = await deployment(kind, env);
      try {
        await template(dev, "lib/orders", "SELECT id FROM orders");
        const p = await release(dev, orders("shop/orders", 1));
        const r = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: p.id });
        deepEqual([r.status, r.body.error.code, r.body.error.details.status], [
          status,
          code,
          targetStatus,
        ]);
      } finally {
        await dev.s.close();
      }
    }
  } finally {
    await prod.s.close();
  }
});
