import { equal, rejects } from "node:assert/strict";
import { MemoryStore } from "./memory.ts";
import { eventually } from "../../tests/support/wait.ts";

// Behaviour shared with Redis is tested in shared_store_test.ts; this covers memory reclamation.

Deno.test("[memory] the sweep frees expired entries that nobody reads again", async () => {
  const clock = { t: 1_000_000 };
  const store = new MemoryStore({ sweepIntervalMs: 20, now: () => clock.t });
  try {
    await store.set("short", "v", { ttlMs: 30 });
    await store.append("list", ["v"], { ttlMs: 30 });
    await store.set("kept", "v");
    equal(store.size, 3);
    clock.t += 30;
    // Nothing reads the expired keys: only the sweep's own timer can free them.
    await eventually(() => store.size === 1, { what: "the sweep" });
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
  const clock = { t: 1_000_000 };
  const store = new MemoryStore({ maxChars: 50, now: () => clock.t });
  try {
    await store.set("old", "o".repeat(40), { ttlMs: 20 });
    await rejects(store.set("new", "n".repeat(40)), /OOM/);
    // The refusal above swept (nothing had expired yet); the next sweep may come a second later.
    clock.t += 40;
    await rejects(store.set("new", "n".repeat(40)), /OOM/, "at most one sweep a second");
    clock.t += 1000;
    equal(await store.set("new", "n".repeat(40)), true);
    equal(await store.get("old"), null);
    equal(store.chars, 43);
  } finally {
    await store.close();
  }
});
