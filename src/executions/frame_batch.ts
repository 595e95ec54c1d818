/**
 * A run's frames as the store holds them while they may be replayed
 * (docs/decisions.md#every-event-is-durable): one row per commit batch per execution, the frames in
 * order, each with its id, type, payload and `observed_at`. A serve's dozen frames are one row, not
 * twelve, and a long run's progress samples share a row with whatever else its batch brought.
 *
 * Payloads are stored without what every frame of the run repeats: `execution_id`,
 * `pipeline_id` and `correlation_id` are cut from a payload's JSON text when their value is the
 * run's, and a fifth tuple element says where each stood, so a reader puts them back in place
 * (same keys, same order, the same JSON text) from the row's `execution_id` and the run's record
 * (`RunConstants`). A tuple without it is stored whole (rows written before, a value that is not
 * the run's).
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

  /** True before the first frame. */
  get empty(): boolean {
    return this.#first < 0;
  }

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

/** What every frame of a run may repeat: cut on the way in, put back on the way out. */
export interface RunConstants {
  execution_id: string;
  pipeline_id: string;
  correlation_id: string | null;
}

/** The keys cut, in the order of their 5-bit fields in a tuple's fifth element. */
const CONSTANT_KEYS = ["execution_id", "pipeline_id", "correlation_id"] as const;
/** A key is cut only among a payload's first 31 keys (its position must fit 5 bits). */
const MAX_POSITION = 31;

/**
 * A frame as its batch stores it, its run's constants cut from the payload when `run` is given;
 * throws when its payload is not JSON.
 */
export function frameTuple(frame: EventFrame, observedAt: string, run?: RunConstants): string {
  const text = frameJson(frame);
  const head = `[${frame.id},${JSON.stringify(frame.event)},`;
  if (run) {
    const [cut, where] = compact(frame.data, text, run);
    if (where !== 0) return `${head}${cut},"${observedAt}",${where}]`;
  }
  return `${head}${text},"${observedAt}"]`;
}

/**
 * `text` (the JSON of `data`) without the members whose value is the run's constant, and where
 * each stood (position + 1 in `data`'s keys, 5 bits per key of CONSTANT_KEYS; 0 when none was
 * cut). Cut in the text, not by serialising again: `data_ready`'s text is made once. A member is
 * cut only where the text surely holds it at the top level: the first key, the last key, or a key
 * that only scalar values precede (a JSON string cannot hold an unescaped quote, so the first
 * `,"key":value` is then that member).
 */
function compact(
  data: Record<string, unknown>,
  text: string,
  run: RunConstants,
): [string, number] {
  const keys = Object.keys(data);
  let out = text;
  let where = 0;
  let scalarsOnly = true;
  for (let i = 0; i < keys.length && i < MAX_POSITION; i++) {
    const key = keys[i];
    const k = CONSTANT_KEYS.indexOf(key as typeof CONSTANT_KEYS[number]);
    const value = k < 0 ? undefined : run[key as keyof RunConstants];
    if (typeof value === "string" && data[key] === value) {
      const member = `"${key}":${JSON.stringify(value)}`;
      let cut: string | undefined;
      if (out.startsWith(`{${member},`)) cut = "{" + out.slice(member.length + 2);
      else if (i === keys.length - 1 && out.endsWith(`,${member}}`)) {
        cut = out.slice(0, out.length - member.length - 2) + "}";
      } else if (scalarsOnly) {
        const at = out.indexOf(`,${member}`);
        if (at > 0) cut = out.slice(0, at) + out.slice(at + member.length + 1);
      }
      if (cut !== undefined) {
        out = cut;
        where += (i + 1) * 2 ** (5 * k);
      }
    }
    const v = data[key];
    if (v !== null && typeof v === "object") scalarsOnly = false;
  }
  return [out, where];
}

/** `data` with the members `where` says were cut put back in their places. */
function restore(
  data: Record<string, unknown>,
  where: number,
  run: RunConstants,
): Record<string, unknown> {
  const cut: [number, string][] = [];
  CONSTANT_KEYS.forEach((key, k) => {
    const position = Math.floor(where / 2 ** (5 * k)) % 32;
    if (position > 0) cut.push([position - 1, key]);
  });
  cut.sort((a, b) => a[0] - b[0]);
  const out: Record<string, unknown> = {};
  let next = 0;
  let position = 0;
  const putCut = () => {
    while (next < cut.length && cut[next][0] <= position) {
      const key = cut[next++][1] as keyof RunConstants;
      out[key] = run[key];
      position++;
    }
  };
  for (const key of Object.keys(data)) {
    putCut();
    out[key] = data[key];
    position++;
  }
  putCut();
  for (; next < cut.length; next++) {
    const key = cut[next][1] as keyof RunConstants;
    out[key] = run[key];
  }
  return out;
}

/** The frames of a batch row's `data` after `afterId`, in order. */
export function batchFrames(data: string, run: RunConstants, afterId = -1): EventFrame[] {
  return parseBatch(data, run).filter((f) => f.id > afterId).map(({ id, event, data }) => ({
    id,
    event,
    data,
  }));
}

/** A batch row's frames with their `observed_at` (what packing keeps), payloads whole. */
export function parseBatch(data: string, run: RunConstants): StoredFrame[] {
  const tuples = JSON.parse(data) as [number, string, EventFrame["data"], string, number?][];
  return tuples.map(([id, event, data, observedAt, where]) => ({
    id,
    event,
    data: where ? restore(data, where, run) : data,
    observedAt,
  }));
}
