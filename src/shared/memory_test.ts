import { equal, rejects } from "node:assert/strict";
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

Deno.test("[memory] past maxChars a write fails whole, as Redis under maxmemory; room comes back", async () => {
  const store = new MemoryStore({ maxChars: 100 });
  try {
    await store.append("rows", ["a".repeat(40)]); // 4 + 40
    await store.set("meta", "m".repeat(20)); // 4 + 20
    equal(store.chars, 68);
    await rejects(store.append("rows", ["b".repeat(20), "c".repeat(20)]), /OOM/);
    equal(await store.length("rows"), 1, "no value of a refused append is kept");
    equal(store.chars, 68);
    await rejects(store.set("other", "x".repeat(40)), /OOM/);
    equal(await store.get("other"), null);
    // Counters keep the service's limits working while results fill the store.
    equal(await store.increment("budget:u1", { by: 5 }), 5);
    // Replacing a value counts only the difference.
    await store.set("meta", "m".repeat(50));
    equal(store.chars, 98);
    equal(await store.delete("meta"), 1);
    equal(store.chars, 44);
    await store.append("rows", ["b".repeat(20), "c".repeat(20)]);
    equal(store.chars, 84);
  } finally {
    await store.close();
  }
});

Deno.test("[memory] an expired entry makes room for a write at the cap before the sweep's timer runs", async () => {
  const store = new MemoryStore({ maxChars: 50 });
  try {
    await store.set("old", "o".repeat(40), { ttlMs: 20 });
    await rejects(store.set("new", "n".repeat(40)), /OOM/);
    await new Promise((resolve) => setTimeout(resolve, 40));
    // The refusal above swept (nothing had expired yet); the next sweep may come a second later.
    const deadline = Date.now() + 5000;
    let stored = false;
    while (!stored && Date.now() < deadline) {
      stored = await store.set("new", "n".repeat(40)).catch(() => false);
      if (!stored) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    equal(stored, true);
    equal(await store.get("old"), null);
    equal(store.chars, 43);
  } finally {
    await store.close();
  }
});
