import { equal, rejects } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { MemoryStore } from "../shared/mod.ts";
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
