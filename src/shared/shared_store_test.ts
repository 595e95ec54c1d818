import { eventually } from "../../tests/support/wait.ts";
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import { REDIS_URL, skipUnless } from "../../tests/support/services.ts";
import type { SharedStore } from "./types.ts";

const skipRedis = skipUnless("redis");

interface Ctx {
  store: SharedStore;
  /** A unique key (or channel) name for this test, so tests can share one Redis in parallel. */
  key(name: string): string;
  /** Another instance on the same backing store (the same instance for memory). */
  peer(): Promise<SharedStore>;
}

const impls = [
  { name: "memory", ignore: false, open: () => Promise.resolve(new MemoryStore()) },
  { name: "redis", ignore: skipRedis, open: () => RedisStore.connect(REDIS_URL) },
] as const;

const cases: Record<string, (ctx: Ctx) => Promise<void>> = {
  "get() returns null for an absent key and the value after set()": async ({ store, key }) => {
    equal(await store.get(key("a")), null);
    equal(await store.set(key("a"), "1"), true);
    equal(await store.get(key("a")), "1");
  },
  "set() overwrites the value and drops a previous expiry": async ({ store, key }) => {
    await store.set(key("a"), "old", { ttlMs: 60_000 });
    equal(await store.set(key("a"), "new"), true);
    equal(await store.get(key("a")), "new");
    equal(await store.ttl(key("a")), -1);
  },
  "set() with onlyIfAbsent writes only when the key is absent": async ({ store, key }) => {
    equal(await store.set(key("a"), "first", { onlyIfAbsent: true }), true);
    equal(await store.set(key("a"), "second", { onlyIfAbsent: true }), false);
    equal(await store.get(key("a")), "first");
    await store.append(key("list"), ["x"]);
    equal(await store.set(key("list"), "v", { onlyIfAbsent: true }), false);
  },
  "set() with ttlMs expires the key": async ({ store, key }) => {
    await store.set(key("a"), "v", { ttlMs: 100 });
    const ttl = await store.ttl(key("a"));
    ok(ttl > 0 && ttl <= 100, `ttl ${ttl}`);
    await eventually(async () => (await store.get(key("a"))) === null);
    equal(await store.ttl(key("a")), -2);
    equal(await store.set(key("a"), "again", { onlyIfAbsent: true }), true);
  },
  "ttl() is -1 without expiry and -2 for an absent key": async ({ store, key }) => {
    await store.set(key("a"), "v");
    equal(await store.ttl(key("a")), -1);
    equal(await store.ttl(key("absent")), -2);
  },
  "delete() returns how many of the keys existed": async ({ store, key }) => {
    await store.set(key("a"), "1");
    await store.append(key("b"), ["x"]);
    equal(await store.delete(key("a"), key("b"), key("c")), 2);
    equal(await store.delete(), 0);
    equal(await store.get(key("a")), null);
    equal(await store.length(key("b")), 0);
  },
  "increment() counts by 1 by default, by any integer on request": async ({ store, key }) => {
    equal(await store.increment(key("n")), 1);
    equal(await store.increment(key("n")), 2);
    equal(await store.increment(key("n"), { by: 5 }), 7);
    equal(await store.increment(key("n"), { by: -10 }), -3);
    equal(await store.get(key("n")), "-3");
    await store.set(key("s"), "41");
    equal(await store.increment(key("s")), 42);
  },
  "increment() keeps the first window's expiry": async ({ store, key }) => {
    equal(await store.increment(key("n"), { ttlMs: 150 }), 1);
    equal(await store.increment(key("n"), { ttlMs: 60_000 }), 2);
    const ttl = await store.ttl(key("n"));
    ok(ttl > 0 && ttl <= 150, `window was extended: ttl ${ttl}`);
    await eventually(async () => (await store.get(key("n"))) === null);
    equal(await store.increment(key("n"), { ttlMs: 60_000 }), 1, "a new window starts");
    ok((await store.ttl(key("n"))) > 150);
  },
  "increment() adds no expiry to an existing counter": async ({ store, key }) => {
    await store.increment(key("n"));
    await store.increment(key("n"), { ttlMs: 60_000 });
    equal(await store.ttl(key("n")), -1);
  },
  "increment() rejects a value that is not an integer": async ({ store, key }) => {
    for (const value of ["abc", "1.5", "007", ""]) {
      await store.set(key("s"), value);
      await rejects(store.increment(key("s")), /not an integer/, `value ${JSON.stringify(value)}`);
      equal(await store.get(key("s")), value);
    }
  },
  "append() returns the new length; range() and length() read the list": async ({ store, key }) => {
    equal(await store.append(key("l"), ["a", "b"]), 2);
    equal(await store.append(key("l"), ["c"]), 3);
    equal(await store.append(key("l"), []), 3);
    equal(await store.length(key("l")), 3);
    deepEqual(await store.range(key("l"), 0, -1), ["a", "b", "c"]);
    equal(await store.ttl(key("l")), -1);
  },
  "range() follows LRANGE for negative and out-of-range indexes": async ({ store, key }) => {
    await store.append(key("l"), ["a", "b", "c", "d", "e"]);
    const expected: [number, number, string][] = [
      [0, 0, "a"],
      [1, 2, "bc"],
      [-2, -1, "de"],
      [-100, 1, "ab"],
      [3, 100, "de"],
      [-100, 100, "abcde"],
      [4, 2, ""],
      [5, 10, ""],
      [-1, -2, ""],
      [0, -6, ""],
    ];
    for (const [start, end, items] of expected) {
      deepEqual(await store.range(key("l"), start, end), [...items], `range(${start}, ${end})`);
    }
  },
  "range() and length() of an absent list are empty": async ({ store, key }) => {
    deepEqual(await store.range(key("none"), 0, -1), []);
    equal(await store.length(key("none")), 0);
  },
  "append() with ttlMs (re)sets the list's expiry": async ({ store, key }) => {
    await store.append(key("l"), ["a"], { ttlMs: 60_000 });
    ok((await store.ttl(key("l"))) > 1000);
    await store.append(key("l"), ["b"], { ttlMs: 100 });
    const ttl = await store.ttl(key("l"));
    ok(ttl > 0 && ttl <= 100, `ttl ${ttl}`);
    await store.append(key("l"), ["c"]);
    ok((await store.ttl(key("l"))) > 0, "append without ttlMs keeps the expiry");
    await eventually(async () => (await store.length(key("l"))) === 0);
    equal(await store.ttl(key("l")), -2);
  },
  "a key holds one type: reads and writes of another type reject": async ({ store, key }) => {
    await store.set(key("s"), "v");
    await rejects(store.append(key("s"), ["x"], { ttlMs: 100 }), /WRONGTYPE/);
    await rejects(store.range(key("s"), 0, -1), /WRONGTYPE/);
    await rejects(store.length(key("s")), /WRONGTYPE/);
    equal(await store.ttl(key("s")), -1, "a failed append must not set an expiry");
    await store.append(key("l"), ["x"]);
    await rejects(store.get(key("l")), /WRONGTYPE/);
    await rejects(store.increment(key("l")), /WRONGTYPE/);
    equal(await store.set(key("l"), "replaced"), true, "SET replaces a key of any type");
    equal(await store.get(key("l")), "replaced");
  },
  "invalid ttlMs, by and indexes reject": async ({ store, key }) => {
    for (const ttlMs of [0, -5, 1.5, NaN]) {
      await rejects(store.set(key("a"), "v", { ttlMs }), RangeError);
      await rejects(store.append(key("l"), ["v"], { ttlMs }), RangeError);
    }
    await rejects(store.increment(key("n"), { by: 1.5 }), RangeError);
    await rejects(store.range(key("l"), 0.5, 1), RangeError);
    equal(await store.ttl(key("a")), -2);
  },
  "publish() reaches every subscriber, even when one throws": async ({ store, key, peer }) => {
    const other = await peer();
    const [first, second]: string[][] = [[], []];
    await other.subscribe(key("ch"), () => {
      throw new Error("subscriber bug");
    });
    await other.subscribe(key("ch"), (m) => first.push(m));
    await other.subscribe(key("ch"), (m) => second.push(m));
    await store.publish(key("ch"), "m1");
    await store.publish(key("ch"), "m2");
    await store.publish(key("elsewhere"), "not for us");
    await eventually(() => first.length === 2 && second.length === 2);
    deepEqual([first, second], [["m1", "m2"], ["m1", "m2"]]);
  },
  "unsubscribe stops delivery to that handler only": async ({ store, key, peer }) => {
    const other = await peer();
    const [stopped, kept, marker]: string[][] = [[], [], []];
    const handler = (m: string) => stopped.push(m);
    const unsubscribe = await other.subscribe(key("ch"), handler);
    const twice = await other.subscribe(key("ch"), handler); // a second, independent subscription
    const unsubscribeKept = await other.subscribe(key("ch"), (m) => kept.push(m));
    await other.subscribe(key("marker"), (m) => marker.push(m));
    await unsubscribe();
    await unsubscribe(); // idempotent
    await store.publish(key("ch"), "one");
    await eventually(() => kept.length === 1);
    deepEqual(stopped, ["one"], "the second subscription of the handler still receives");
    await twice();
    await unsubscribeKept();
    await store.publish(key("ch"), "two");
    // Delivery is ordered, so once the marker arrives a message on ch would have arrived too.
    await store.publish(key("marker"), "done");
    await eventually(() => marker.length === 1);
    deepEqual([stopped, kept], [["one"], ["one"]]);
  },
  "ping() resolves while open; everything rejects after close()": async ({ store }) => {
    await store.ping();
    await store.close();
    await rejects(store.ping());
    await rejects(store.get("any"));
    await rejects(store.subscribe("any", () => {}));
    await store.close(); // idempotent
  },
};

for (const impl of impls) {
  for (const [name, fn] of Object.entries(cases)) {
    Deno.test({
      name: `[${impl.name}] ${name}`,
      ignore: impl.ignore,
      async fn() {
        const prefix = `test:shared:${crypto.randomUUID()}:`;
        const keys = new Set<string>();
        const store = await impl.open();
        const peers: SharedStore[] = [];
        const ctx: Ctx = {
          store,
          key: (name) => (keys.add(prefix + name), prefix + name),
          peer: async () => {
            if (impl.name === "memory") return store;
            const peer = await impl.open();
            peers.push(peer);
            return peer;
          },
        };
        try {
          await fn(ctx);
        } finally {
          // Leave nothing behind in the shared database (keys without expiry would accumulate).
          if (keys.size > 0) await store.delete(...keys).catch(() => {});
          await Promise.all([store, ...peers].map((s) => s.close()));
        }
      },
    });
  }
}
