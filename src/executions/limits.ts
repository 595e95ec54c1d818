/**
 * Request limits of execute (docs/decisions.md#result-pages-and-lifetimes): the result TTL and
 * inline page headers, clamped to the configured bounds (an unparseable value counts as absent),
 * and the per-user stream slots, counted in the shared store so every instance sees the same
 * number.
 */
import { AppError } from "../errors/mod.ts";
import type { SharedStore } from "../shared/mod.ts";

export interface ResultLimits {
  ttlDefaultSeconds: number;
  ttlMinSeconds: number;
  ttlMaxSeconds: number;
  pageRows: number;
  pageRowsMax: number;
}

/** A header's integer, or undefined when absent or not a plain integer. */
function headerInt(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !/^\s*-?\d{1,12}\s*$/.test(value)) return undefined;
  return Number(value.trim());
}

const clamp = (v: number, min: number, max: number) => Math.min(max, Math.max(min, v));

/** `SVC-Result-TTL-Seconds`: clamped to [min, max]; absent or unparseable → the default. */
export function resultTtlSeconds(header: string | null | undefined, l: ResultLimits): number {
  const asked = headerInt(header);
  return asked === undefined ? l.ttlDefaultSeconds : clamp(asked, l.ttlMinSeconds, l.ttlMaxSeconds);
}

/** `SVC-Result-Page-Rows`: may lower or raise the inline page up to the cap; at least 1. */
export function inlinePageRows(header: string | null | undefined, l: ResultLimits): number {
  const asked = headerInt(header);
  return asked === undefined ? l.pageRows : clamp(asked, 1, l.pageRowsMax);
}

/** Give-backs tried again after a shared-store outage: about 30 s in all, then the expiry. */
const RELEASE_RETRIES_MS = [250, 500, 1_000, 2_000, 4_000, 8_000, 15_000];

/**
 * Open event streams per user, across instances. A slot is taken before the stream opens and
 * given back exactly once when it ends. The counter carries a day's expiry from its creation so
 * slots leaked by a crashed instance cannot lock a user out for longer than that.
 *
 * Giving a slot back never fails the caller: the run it guarded has its answer, and a shared
 * store that is out for a moment must not turn that answer into a 500. A give-back the store
 * refuses is tried again in the background until the store answers (docs/operations.md#faults-and-the-soak).
 */
export class StreamSlots {
  readonly #pending = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly shared: SharedStore,
    private readonly max: number,
  ) {}

  async take(userId: string): Promise<() => Promise<void>> {
    const key = `sse-streams:${userId}`;
    const open = await this.shared.increment(key, { ttlMs: 86_400_000 });
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await this.#giveBack(key, 0);
    };
    if (open > this.max) {
      await release();
      throw new AppError("pipeline.execution.stream_limit", { open: open - 1, limit: this.max }, {
        "Retry-After": "5",
      });
    }
    return release;
  }

  /** Give-backs still waiting for the shared store. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Shutdown: give-backs not yet through are left to the counter's expiry. */
  close(): void {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }

  async #giveBack(key: string, attempt: number): Promise<void> {
    try {
      await this.shared.increment(key, { by: -1, ttlMs: 86_400_000 });
    } catch {
      const delay = RELEASE_RETRIES_MS[attempt];
      if (delay === undefined) return;
      const timer = setTimeout(() => {
        this.#pending.delete(timer);
        void this.#giveBack(key, attempt + 1);
      }, delay);
      // Never what keeps a stopping process alive.
      Deno.unrefTimer(timer);
      this.#pending.add(timer);
    }
  }
}
