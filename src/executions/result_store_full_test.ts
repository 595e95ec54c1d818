import { deepEqual, equal, rejects } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { MemoryStore } from "../shared/mod.ts";
import { ResultStore } from "./result_store.ts";

Deno.test("a result the full memory store cannot take is result.storage_unavailable, and nothing of it stays", async () => {
  const store = new MemoryStore({ maxChars: 4_000 });
  try {
    const results = new ResultStore(store, { maxBytes: 1_000_000, chunkRows: 10 });
    const kept = results.writer("kept", [{ name: "s", type: "string", source_type: "TEXT" }], 300);
    await kept.append([["small"]]);
    await kept.finish();
    const before = store.chars;

    const id = crypto.randomUUID();
    const big = results.writer(id, [{ name: "s", type: "string", source_type: "TEXT" }], 300);
    const rows = Array.from({ length: 100 }, (_, i) => [`row ${i} ${"x".repeat(60)}`]);
    await rejects(
      (async () => {
        await big.append(rows);
        await big.finish();
      })(),
      (e: unknown) => e instanceof AppError && e.code === "result.storage_unavailable",
    );
    equal(await results.describe(id), null);
    equal(store.chars, before, "the refused result's chunks are gone");
    deepEqual((await results.page("kept", 0, 10))!.rows, [["small"]]);
  } finally {
    await store.close();
  }
});
