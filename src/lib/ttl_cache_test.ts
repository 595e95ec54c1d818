import { equal } from "node:assert/strict";
import { TtlCache } from "./ttl_cache.ts";

Deno.test("TtlCache serves hits until the TTL, shares in-flight loads, and forgets on delete", async () => {
  let now = 0;
  let loads = 0;
  const cache = new TtlCache<string, number>(1000, { now: () => now });
  const load = () => Promise.resolve(++loads);
  equal((await Promise.all([cache.get("a", load), cache.get("a", load)]))[1], 1);
  equal(loads, 1);
  now = 999;
  equal(await cache.get("a", load), 1);
  now = 1000;
  equal(await cache.get("a", load), 2);
  cache.delete("a");
  equal(await cache.get("a", load), 3);
  cache.deleteWhere((k) => k === "a");
  equal(await cache.get("a", load), 4);
});
