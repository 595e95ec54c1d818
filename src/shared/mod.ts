import { redactUrl } from "../lib/redact.ts";
import { MemoryStore } from "./memory.ts";
import { RedisStore } from "./redis.ts";
import type { SharedStore } from "./types.ts";

export type { MessageHandler, SharedStore } from "./types.ts";
export { MemoryStore } from "./memory.ts";
export { RedisStore } from "./redis.ts";
export { Broadcast } from "./broadcast.ts";

/**
 * Opens the shared store named by `url`: `memory:` (single instance) or `redis://` / `rediss://`
 * (connected and pinged, so a wrong URL fails at startup rather than on the first request).
 */
export async function openSharedStore(
  url: string,
  options: { timeoutMs?: number; memoryMaxChars?: number } = {},
): Promise<SharedStore> {
  if (url.startsWith("memory:")) return new MemoryStore({ maxChars: options.memoryMaxChars });
  if (url.startsWith("redis://") || url.startsWith("rediss://")) {
    return await RedisStore.connect(url, options);
  }
  throw new Error(
    `unsupported shared store URL ${redactUrl(url)}: expected memory:, redis:// or rediss://`,
  );
}
export { type BudgetDecision, RequestBudget } from "./request_budget.ts";
