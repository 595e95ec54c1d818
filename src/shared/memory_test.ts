import { equal } from "node:assert/strict";
import { MemoryStore } from "./memory.ts";

// Behaviour shared with Redis is tested in shared_store_test.ts; this covers memory reclamation.

Deno.test("[memory] the sweep frees expired entries that nobody reads again", async () => {
  const store = new MemoryStore({ sweepIntervalMs: 20 });
  try {
    await store.set("short", "v", { ttlMs: 30 });
    await store.append("list", ["v"], { ttlMs: 30 });
    await store.set("kept", "v");
    equal(store.size, 3);
    const deadline = Date.now() + 3000;
    while (store.size > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    equal(store.size, 1);
    equal(await store.get("kept"), "v");
  } finally {
    // The sanitizer fails this test if close() leaves the sweep interval running.
    await store.close();
  }
});
