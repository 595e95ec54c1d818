/**
 * `pipeline.promotion.not_newer` for the release production already has (spec 3 §4.4: one of the
 * sender's own refusals, made before anything is sent), on both stores between two deployments:
 * promote and preview both answer 409, production receives no push, development records no
 * promotion; the next release goes through.
 */
import { deepEqual, equal } from "node:assert/strict";
import type { Deployment } from "./support/promotion_client.ts";
import { release, template, withPair } from "./support/promotion_client.ts";
import { ordersPipeline } from "./support/promotion_fixtures.ts";
import { audits } from "./support/refusals.ts";
import { forEachStoreKind } from "./support/stores.ts";

const PROMOTE = "/api/v1/promotion/promote";

const count = async (d: Deployment, event: string) => (await audits(d.s.runtime.db, event)).length;

forEachStoreKind(
  "issue 22 finding 8: promoting the release the target already has is refused before anything is sent",
  (kind) =>
    withPair(kind, async ({ prod, dev }) => {
      await template(dev, "lib/orders", "SELECT id FROM orders WHERE id = :customer_id");
      const v1 = await release(dev, ordersPipeline("shop/orders", 1));
      const first = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: v1.id });
      equal(first.status, 200, JSON.stringify(first.body));
      const pushes = await count(prod, "auth.promotion.accepted");
      const promoted = await count(dev, "pipeline.promoted");

      const again = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: v1.id });
      deepEqual([again.status, again.body.error?.code], [409, "pipeline.promotion.not_newer"]);
      const d = again.body.error.details;
      deepEqual([d.name, d.version, d.target, d.target_version], [
        "shop/orders",
        v1.version,
        "production",
        v1.version,
      ]);
      const preview = await dev.req(
        "GET",
        `/api/v1/promotion/preview?pipeline_id=${v1.id}`,
        dev.promoter,
      );
      deepEqual([preview.status, preview.body.error?.code], [409, "pipeline.promotion.not_newer"]);
      // Nothing was pushed, accepted or rejected there, and nothing recorded here.
      equal(await count(prod, "auth.promotion.accepted"), pushes);
      equal(await count(prod, "auth.promotion.rejected"), 0);
      equal(await count(dev, "pipeline.promoted"), promoted);

      const v2 = await release(
        dev,
        ordersPipeline("shop/orders", 1, { description: "v2" }),
        v1.id,
      );
      const newer = await dev.req("POST", PROMOTE, dev.promoter, { pipeline_id: v1.id });
      equal(newer.status, 200, JSON.stringify(newer.body));
      deepEqual([newer.body.data.previous_version, newer.body.data.pipeline.version], [
        v1.version,
        v2.version,
      ]);
    }),
);
