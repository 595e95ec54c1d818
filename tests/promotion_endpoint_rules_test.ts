/**
 * Pushed endpoint rows pass the target's publish rules (spec 3 §4.3, §4.4), on both stores over
 * HTTP: a reserved pattern, a path variable the served release does not declare, a write-capable
 * release and an overlap refuse the whole batch with publish's codes, audited as
 * `auth.promotion.rejected`, nothing written; a timeout is clamped to the target's bounds. Then
 * between two deployments: a development bound wider than production's, and a release that
 * dropped a published path variable.
 */
import { deepEqual, equal } from "node:assert/strict";
import type { Json } from "./support/harness.ts";
import {
  deployment,
  HARDENED,
  inventory,
  mintServerKey,
  release,
  template,
  withPair,
} from "./support/promotion_client.ts";
import {
  ordersPipeline,
  pipelineEntry,
  pushBody,
  templateEntry,
} from "./support/promotion_fixtures.ts";
import { audits } from "./support/refusals.ts";
import { forEachStoreKind } from "./support/stores.ts";

const PUSH = "/api/v1/promotion/push";

const endpoint = (path_pattern: string, pipeline_name: string, extra: Json = {}) => ({
  path_pattern,
  pipeline_name,
  timeout_seconds: 30,
  enabled: true,
  description: null,
  bindings: [],
  ...extra,
});

forEachStoreKind(
  "issue 22 finding 6: pushed endpoint rows pass the publish rules; a refusal leaves nothing",
  async (kind) => {
    const prod = await deployment(kind, {
      ...HARDENED,
      SERVICE_ENDPOINTS_TIMEOUT_MIN_SECONDS: "5",
      SERVICE_ENDPOINTS_TIMEOUT_MAX_SECONDS: "120",
    });
    try {
      const { key } = await mintServerKey(prod);
      const h = { "SVC-Promotion-Key": key };
      const orders = templateEntry("lib/orders", 1, "SELECT * FROM orders WHERE id = :customer_id");
      const shop = pipelineEntry(crypto.randomUUID(), 1, ordersPipeline("shop/orders", 1));
      const writer = pipelineEntry(crypto.randomUUID(), 1, {
        name: "shop/writer",
        nodes: [{ id: "w", type: "DML", source: "wh", sql: "DELETE FROM orders" }],
      });
      const push = (endpoints: Json[], pipelines = [shop]) =>
        prod.req("POST", PUSH, h, pushBody("acme", [orders], pipelines, { endpoints }));
      const snapshot = async () => {
        const db = prod.s.runtime.db;
        return {
          templates: await db.query("SELECT name FROM templates"),
          pipelines: await db.query("SELECT name, current_version FROM pipelines"),
          endpoints: await db.query("SELECT path_pattern, timeout_seconds FROM endpoints"),
          keys: await db.query("SELECT id, bindings FROM api_keys ORDER BY id"),
        };
      };
      const empty = await snapshot();

      const cases: [string, Json[], Json[] | undefined, number, string, Json][] = [
        [
          "reserved",
          [endpoint("/openapi.json", "shop/orders")],
          undefined,
          400,
          "endpoint.validation.path_invalid",
          { path: "/openapi.json" },
        ],
        [
          "variable",
          [endpoint("/shop/{region}", "shop/orders")],
          undefined,
          400,
          "endpoint.path_variable_unknown",
          { variable: "region", declared: ["customer_id"] },
        ],
        [
          "writer",
          [endpoint("/shop/writer", "shop/writer")],
          [shop, writer],
          409,
          "endpoint.pipeline_not_readonly",
          { node_id: "w" },
        ],
        [
          "overlap",
          [
            endpoint("/shop/{customer_id}", "shop/orders"),
            endpoint("/shop/all", "shop/orders"),
          ],
          undefined,
          409,
          "endpoint.path_conflict",
          { path_pattern: "/shop/all", conflicts_with: "/shop/{customer_id}" },
        ],
      ];
      for (const [why, endpoints, pipelines, status, code, details] of cases) {
        const r = await push(endpoints, pipelines);
        deepEqual(
          [r.status, r.body.error?.code],
          [status, code],
          `${why}: ${JSON.stringify(r.body)}`,
        );
        for (const [k, v] of Object.entries(details)) {
          deepEqual(r.body.error.details[k], v, `${why}: details.${k}`);
        }
        deepEqual(await snapshot(), empty, `${why}: nothing of the batch was written`);
      }
      const rejected = await audits(prod.s.runtime.db, "auth.promotion.rejected");
      deepEqual(rejected.map((a) => a.details.reason), cases.map((c) => c[4]));
      equal(rejected[1].details.source_env, "development");

      // A timeout outside the target's bounds is clamped to them, as a publish there clamps it.
      const clamped = await push([
        endpoint("/shop/slow/{customer_id}", "shop/orders", { timeout_seconds: 86400 }),
        endpoint("/shop/fast/{customer_id}", "shop/orders", { timeout_seconds: 1 }),
      ]);
      equal(clamped.status, 200, JSON.stringify(clamped.body));
      deepEqual(
        (await snapshot()).endpoints.map((e) => [e.path_pattern, Number(e.timeout_seconds)]).sort(),
        [["/shop/fast/{customer_id}", 5], ["/shop/slow/{customer_id}", 120]],
      );
      // A re-push of the same rows is still a no-op: the clamped value is what is compared.
      const again = await push([
        endpoint("/shop/slow/{customer_id}", "shop/orders", { timeout_seconds: 86400 }),
        endpoint("/shop/fast/{customer_id}", "shop/orders", { timeout_seconds: 1 }),
      ]);
      deepEqual(again.body.data.applied, { templates: 0, pipelines: 0, endpoints: 0 });
    } finally {
      await prod.s.close();
    }
  },
);

forEachStoreKind(
  "issue 22 finding 6: production applies its own publish rules to what development publishes",
  (kind) =>
    withPair(
      kind,
      async ({ prod, dev, key }) => {
        await template(dev, "lib/orders", "SELECT id, amount FROM orders WHERE id = :customer_id");
        const v1 = await release(dev, ordersPipeline("shop/orders", 1));
        const pub = await dev.req("POST", "/api/v1/endpoints", dev.admin, {
          path_pattern: "/shop/orders/{customer_id}",
          pipeline_id: v1.id,
          timeout_seconds: 1800,
        });
        equal(pub.status, 201, JSON.stringify(pub.body));
        equal(pub.body.data.timeout_seconds, 1800, "development allows 30 minutes");
        const first = await dev.req("POST", "/api/v1/promotion/promote", dev.promoter, {
          pipeline_id: v1.id,
        });
        equal(first.status, 200, JSON.stringify(first.body));
        const ep = await prod.req(
          "GET",
          "/api/v1/endpoints?path=/shop/orders/{customer_id}",
          prod.admin,
        );
        equal(ep.body.data.timeout_seconds, 300, "production's bound");

        // v2 no longer declares customer_id, which the published pattern binds.
        const v2 = await release(dev, {
          name: "shop/orders",
          nodes: [{
            id: "orders",
            type: "DQL",
            source: "wh",
            sql: "SELECT id, amount FROM orders",
          }],
        }, v1.id);
        const refused = await dev.req("POST", "/api/v1/promotion/promote", dev.promoter, {
          pipeline_id: v1.id,
        });
        deepEqual(
          [refused.status, refused.body.error.code, refused.body.error.details.variable],
          [400, "endpoint.path_variable_unknown", "customer_id"],
          JSON.stringify(refused.body),
        );
        equal(refused.body.error.details.pipeline_version, v2.version);
        const inv = await inventory(prod, key);
        deepEqual(inv.pipelines.map((p: Json) => [p.name, p.current_version]), [
          ["shop/orders", v1.version],
        ]);
      },
      HARDENED,
      { SERVICE_ENDPOINTS_TIMEOUT_MAX_SECONDS: "3600" },
    ),
);
