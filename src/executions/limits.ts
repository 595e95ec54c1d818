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

/**
 * Open event streams per user, across instances. A slot is taken before the stream opens and
 * given back exactly once when it ends. The counter carries a day's expiry from its creation so
 * slots leaked by a crashed instance cannot lock a user out for longer than that.
 */
export class StreamSlots {
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
      await this.shared.increment(key, { by: -1, ttlMs: 86_400_000 });
    };
    if (open > this.max) {
      await release();
      throw new AppError("pipeline.execution.stream_limit", { open: open - 1, limit: this.max }, {
        "Retry-After": "5",
      });
    }
    return release;
  }
}
