import { equal, rejects } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { MemoryStore, RedisStore } from "../shared/mod.ts";
import { REDIS_URL, skipUnless } from "../../tests/support/services.ts";
import { startTcpProxy } from "../../tests/support/tcp_proxy.ts";
import { eventually } from "../../tests/support/wait.ts";
import { inlinePageRows, resultTtlSeconds, StreamSlots } from "./limits.ts";

const limits = {
  ttlDefaultSeconds: 300,
  ttlMinSeconds: 30,
  ttlMaxSeconds: 86400,
  pageRows: 1000,
  pageRowsMax: 10000,
};

Deno.test("SVC-Result-TTL-Seconds is clamped; absent or unparseable means the default", () => {
  equal(resultTtlSeconds("600", limits), 600);
  equal(resultTtlSeconds("5", limits), 30);
  equal(resultTtlSeconds("999999", limits), 86400);
  for (const bad of [undefined, null, "", "abc", "1.5", "60s", "1e3"]) {
    equal(resultTtlSeconds(bad, limits), 300, String(bad));
  }
});

Deno.test("SVC-Result-Page-Rows may lower or raise the inline page up to the cap", () => {
  equal(inlinePageRows("10", limits), 10);
  equal(inlinePageRows("50000", limits), 10000);
  equal(inlinePageRows("0", limits), 1);
  equal(inlinePageRows("many", limits), 1000);
});

Deno.test("stream slots: one past the limit is refused, and a slot given back frees it once", async () => {
  const shared = new MemoryStore();
  const slots = new StreamSlots(shared, 2);
  const a = await slots.take("u");
  await slots.take("u");
  await rejects(slots.take("u"), (e) => {
    equal((e as AppError).code, "pipeline.execution.stream_limit");
    equal((e as AppError).headers["Retry-After"], "5");
    return true;
  });
  // Another user has slots of their own.
  await slots.take("v");
  await a();
  await a();
  await slots.take("u");
  await rejects(slots.take("u"), AppError);
  await shared.close();
});

Deno.test({
  name:
    "[redis] a slot given back while Redis is out never fails the caller and is given back after",
  ignore: skipUnless("redis"),
  async fn() {
    // Found by the soak: a serve whose run had ended answered 500 because the give-back failed.
    const url = new URL(REDIS_URL);
    let proxy = startTcpProxy({ hostname: url.hostname, port: Number(url.port || 6379) });
    const store = await RedisStore.connect(`redis://127.0.0.1:${proxy.port}/0`, { timeoutMs: 500 });
    const user = crypto.randomUUID();
    const slots = new StreamSlots(store, 1);
    try {
      const release = await slots.take(user);
      await proxy.cut();
      await release();
      equal(slots.pending, 1);
      proxy = startTcpProxy({ hostname: url.hostname, port: Number(url.port || 6379) }, proxy.port);
      await eventually(() => slots.pending === 0, { what: "the retried give-back", ms: 10_000 });
      equal(await store.get(`sse-streams:${user}`), "0");
      (await slots.take(user))();
    } finally {
      slots.close();
      await store.delete(`sse-streams:${user}`).catch(() => {});
      await store.close();
      await proxy.cut();
    }
  },
});
