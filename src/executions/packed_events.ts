/**
 * The stored form of a finished run's stream once its replay window has passed: every frame,
 * with its id, type, payload and `observed_at`, in order, in ONE row
 * (docs/decisions.md#every-event-is-durable), Brotli-compressed into `execution_events.packed`. A serve's dozen
 * frames take ~5 KB as rows and well under 1 KB packed: their payloads repeat the run's ids and
 * field names frame after frame. `data_ready` loses its `rows` on the way (nothing replays them
 * any more; the result has its own TTL).
 *
 * The packed row keeps the run's last frame id and `observed_at`, so `MAX(event_id)` and the
 * event retention sweep (observed_at) read it like the rows it replaces; `ExecutionRepo.events`
 * unpacks it, so every reader sees the same frames as before.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import type { EventFrame } from "./event_order.ts";

/** The event_type of a packed row: no frame has it. */
export const PACKED = "packed";

export interface StoredFrame extends EventFrame {
  observedAt: string;
}

/** The frames as one value; `data_ready` without its rows. */
export function packFrames(frames: StoredFrame[]): Uint8Array {
  const tuples = frames.map((f) => {
    let data = f.data;
    if (f.event === "data_ready" && "rows" in data) {
      const { rows: _, ...rest } = data;
      data = rest;
    }
    return [f.id, f.event, data, f.observedAt];
  });
  return brotliCompressSync(JSON.stringify(tuples), {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: 6,
    },
  });
}

/** The frames of a packed row after `afterId`, in order. */
export function unpackFrames(packed: Uint8Array, afterId = -1): EventFrame[] {
  const tuples = JSON.parse(brotliDecompressSync(packed).toString("utf8")) as [
    number,
    string,
    EventFrame["data"],
    string,
  ][];
  return tuples.filter(([id]) => id > afterId).map(([id, event, data]) => ({ id, event, data }));
}
