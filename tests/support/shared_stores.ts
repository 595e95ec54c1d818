/**
 * Registers a test once per shared store: `[memory] name` and `[redis] name` (the real local
 * Redis, skipped or failing per tests/support/services.ts). Each run gets a fresh store and a random
 * subject, so runs can share one Redis in parallel.
 */
import { MemoryStore, RedisStore, type SharedStore } from "../../src/shared/mod.ts";
import { REDIS_URL, skipUnless } from "./services.ts";

const impls = [
  { name: "memory", ignore: false, open: () => Promise.resolve(new MemoryStore()) },
  { name: "redis", ignore: skipUnless("redis"), open: () => RedisStore.connect(REDIS_URL) },
] as const;

export function forEachSharedStore(
  name: string,
  fn: (store: SharedStore, subject: string) => Promise<void>,
): void {
  for (const impl of impls) {
    Deno.test({
      name: `[${impl.name}] ${name}`,
      ignore: impl.ignore,
      async fn() {
        const store = await impl.open();
        try {
          await fn(store, crypto.randomUUID());
        } finally {
          await store.close();
        }
      },
    });
  }
}
