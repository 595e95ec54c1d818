/**
 * A run's frames as the store holds them while they may be replayed
 * (docs/decisions.md#every-event-is-durable): one row per commit batch per execution, the frames in
 * order, each with its id, type, payload and `observed_at`. A serve's dozen frames are one row, not
 * twelve, and a long run's progress samples share a row with whatever else its batch brought.
 *
 * The row's `event_id` is the batch's FIRST frame id and `last_event_id` its last: a reaper that
 * ended the run elsewhere stored its terminal frame under the id this run's next batch starts with,
 * so the primary key refuses that batch as it refused the lone frame row before. Its
 * `observed_at` is the last frame's, which the retention sweep reads.
 */
import type { RowInsert } from "../store/mod.ts";
import type { EventFrame } from "./event_order.ts";
import { frameJson } from "./frame_json.ts";
import type { StoredFrame } from "./packed_events.ts";

/** The event_type of a batch row: no frame has it. */
export const FRAMES = "frames";

const COLUMNS = "execution_id, event_id, event_type, data, observed_at, last_event_id";

/**
 * Frames gathered for one row; `data` holds `[id, event, payload, observed_at]` tuples as JSON
 * text, each payload's text made once (frame_json.ts).
 */
export class FrameBatch {
  readonly #tuples: string[] = [];
  #first = -1;
  #last = -1;
  #lastAt = "";

  constructor(readonly executionId: string) {}

  /** Adds a frame made by `frameTuple`. */
  add(id: number, tuple: string, observedAt: string): void {
    this.#tuples.push(tuple);
    if (this.#first < 0) this.#first = id;
    this.#last = id;
    this.#lastAt = observedAt;
  }

  get lastId(): number {
    return this.#last;
  }

  row(): RowInsert {
    return {
      table: "execution_events",
      columns: COLUMNS,
      values: [
        this.executionId,
        this.#first,
        FRAMES,
        `[${this.#tuples.join(",")}]`,
        this.#lastAt,
        this.#last,
      ],
    };
  }
}

/** A frame as its batch stores it; throws when its payload is not JSON. */
export function frameTuple(frame: EventFrame, observedAt: string): string {
  return `[${frame.id},${JSON.stringify(frame.event)},${frameJson(frame)},"${observedAt}"]`;
}

/** The frames of a batch row's `data` after `afterId`, in order. */
export function batchFrames(data: string, afterId = -1): EventFrame[] {
  return parseBatch(data).filter((f) => f.id > afterId).map(({ id, event, data }) => ({
    id,
    event,
    data,
  }));
}

/** A batch row's frames with their `observed_at` (what packing keeps). */
export function parseBatch(data: string): StoredFrame[] {
  const tuples = JSON.parse(data) as [number, string, EventFrame["data"], string][];
  return tuples.map(([id, event, data, observedAt]) => ({ id, event, data, observedAt }));
}
