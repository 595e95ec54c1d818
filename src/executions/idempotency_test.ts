import { forEachSharedStore } from "../../tests/support/shared_stores.ts";
import { deepEqual, equal, rejects } from "node:assert/strict";
import { IdempotencyCache } from "./idempotency.ts";

const request = { pipeline_id: "p1", version: null, parameters: { region: "eu", n: 3 } };

forEachSharedStore(
  "a retry with the same key and request gets the original execution",
  async (store, user) => {
    const cache = new IdempotencyCache(store, 60);
    deepEqual(await cache.claim(user, "k1", request, "exec-1"), {
      fresh: true,
      executionId: "exec-1",
    });
    // Key order in the request does not matter: it is hashed canonically.
    const reordered = { parameters: { n: 3, region: "eu" }, version: null, pipeline_id: "p1" };
    deepEqual(await cache.claim(user, "k1", reordered, "exec-2"), {
      fresh: false,
      executionId: "exec-1",
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
