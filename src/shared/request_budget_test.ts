import { forEachSharedStore } from "../../tests/support/shared_stores.ts";
import { deepEqual, equal, rejects } from "node:assert/strict";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import { RequestBudget } from "./request_budget.ts";
import { REDIS_URL, skipUnless } from "../../tests/support/services.ts";

// 10:00:00.250 — a quarter into a second, far from a minute edge.
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0, 250);

forEachSharedStore(
  "the per-second window refuses past its limit and frees at the next second",
  async (store, who) => {
    let now = T0;
    const budget = new RequestBudget(store, { perSecond: 3, perMinute: 100 }, () => now);
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await budget.take(who));
    deepEqual(seen.map((d) => [d.allowed, d.remaining]), [[true, 2], [true, 1], [true, 0], [
      false,
      0,
    ]]);
    deepEqual(seen[3], { allowed: false, limit: 3, remaining: 0, resetSeconds: 1 });
    now = T0 + 1000;
    const next = await budget.take(who);
    equal(next.allowed, true);
    equal(next.remaining, 2);
  },
);

forEachSharedStore(
  "the per-minute window binds across seconds and waits for the minute",
  async (store, who) => {
    let now = T0;
    const budget = new RequestBudget(store, { perSecond: 100, perMinute: 5 }, () => now);
    for (let i = 0; i < 5; i++) {
      now = T0 + i * 1000;
      equal((await budget.take(who)).allowed, true);
    }
    now = T0 + 5000;
    const refused = await budget.take(who);
    deepEqual(refused, { allowed: false, limit: 5, remaining: 0, resetSeconds: 55 });
  },
);

forEachSharedStore("subjects have budgets of their own", async (store, who) => {
  const budget = new RequestBudget(store, { perSecond: 1, perMinute: 10 }, () => T0);
  equal((await budget.take(who)).allowed, true);
  equal((await budget.take(who)).allowed, false);
  equal((await budget.take(`${who}-other`)).allowed, true);
});

Deno.test({
  name: "[redis] two instances draw from one budget",
  ignore: skipUnless("redis"),
  async fn() {
    const [a, b] = [await RedisStore.connect(REDIS_URL), await RedisStore.connect(REDIS_URL)];
    try {
      const who = `user-${crypto.randomUUID()}`;
      const limits = { perSecond: 4, perMinute: 100 };
      const [ba, bb] = [
        new RequestBudget(a, limits, () => T0),
        new RequestBudget(b, limits, () => T0),
      ];
      const answers = await Promise.all([ba, bb, ba, bb, ba, bb].map((x) => x.take(who)));
      equal(answers.filter((d) => d.allowed).length, 4);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  },
});

Deno.test("an unreachable store makes take() throw, so the caller fails closed", async () => {
  const store = new MemoryStore();
  await store.close();
  const budget = new RequestBudget(store, { perSecond: 1, perMinute: 1 });
  await rejects(budget.take("anyone"));
});
