import { forEachSharedStore } from "../../tests/support/shared_stores.ts";
import { deepEqual, equal, rejects } from "node:assert/strict";
import { IdempotencyCache } from "./idempotency.ts";

const request = { pipeline_id: "p1", version: null, parameters: { region: "eu", n: 3 } };

forEachSharedStore(
  "a retry with the same key and request gets the original execution",
  async (store, user) => {
    const cache = new IdempotencyCache(store, 60);
    deepEqual(await cache.claim(user, "k1", request, "exec-1", 1_000), {
      fresh: true,
      executionId: "exec-1",
    });
    // Key order in the request does not matter: it is hashed canonically.
    const reordered = { parameters: { n: 3, region: "eu" }, version: null, pipeline_id: "p1" };
    deepEqual(await cache.claim(user, "k1", reordered, "exec-2"), {
      fresh: false,
      executionId: "exec-1",
      claimedAt: 1_000,
    });
  },
);

forEachSharedStore(
  "the same key with a different request is idempotency.key_reused_for_different_request",
  async (store, user) => {
    const cache = new IdempotencyCache(store, 60);
    await cache.claim(user, "k1", request, "exec-1");
    await rejects(
      cache.claim(user, "k1", { ...request, parameters: { region: "us", n: 3 } }, "exec-2"),
      (e: { code: string; details: unknown }) => {
        equal(e.code, "idempotency.key_reused_for_different_request");
        deepEqual(e.details, { key: "k1" });
        return true;
      },
    );
  },
);

forEachSharedStore(
  "keys belong to their user, and a released key can be claimed again",
  async (store, user) => {
    const cache = new IdempotencyCache(store, 60);
    await cache.claim(user, "k1", request, "exec-1");
    equal((await cache.claim(`${user}-other`, "k1", request, "exec-9")).fresh, true);
    await cache.release(user, "k1");
    deepEqual(await cache.claim(user, "k1", request, "exec-3"), {
      fresh: true,
      executionId: "exec-3",
    });
  },
);

forEachSharedStore("concurrent claims settle on one execution", async (store, user) => {
  const cache = new IdempotencyCache(store, 60);
  const claims = await Promise.all(
    Array.from({ length: 8 }, (_, i) => cache.claim(user, "race", request, `exec-${i}`)),
  );
  equal(claims.filter((c) => c.fresh).length, 1);
  equal(new Set(claims.map((c) => c.executionId)).size, 1);
});

forEachSharedStore(
  "a claim whose run was never recorded is taken over once; the key is then claimed afresh",
  async (store, user) => {
    const a = new IdempotencyCache(store, 60);
    const b = new IdempotencyCache(store, 60);
    await a.claim(user, "k1", request, "dead-run");
    // Two instances find the same abandoned claim: one wins the take-over.
    const won = await Promise.all([
      a.takeOver(user, "k1", "dead-run"),
      b.takeOver(user, "k1", "dead-run"),
    ]);
    deepEqual(won.filter(Boolean).length, 1);
    deepEqual((await b.claim(user, "k1", request, "new-run")).executionId, "new-run");
    // A late take-over of the dead run never frees the new claim.
    await a.takeOver(user, "k1", "dead-run");
    deepEqual((await a.claim(user, "k1", request, "third")).executionId, "new-run");
  },
);
