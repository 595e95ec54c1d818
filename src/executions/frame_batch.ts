/**
 * A run's frames as the store holds them while they may be replayed
 * (docs/decisions.md#every-event-is-durable): one row per commit batch per execution, the frames in
 * order, each with its id, type, payload and `observed_at`. A serve's dozen frames are one row, not
 * twelve.
 *
 * Payloads are stored without what every frame of the run repeats: `execution_id`,
 * `pipeline_id` and `correlation_id` are cut from a payload's JSON text when their value is the
 * run's, and a fifth tuple element says where each stood, so a reader puts them back in place
 * (same keys, same order, the same JSON text) from the row's `execution_id` and the run's record
 * (`RunConstants`). A tuple without it is stored whole (rows written before, a value that is not
 * the run's).
 *
 * Past its first few rows (journal.ts, `SHORT_RUN_ROWS`), a running run's later batches extend its
 * last row (`extended`, `writeOver`) until that holds `ROW_BYTES` of frames: a long run's progress
 * samples, a second apart, each come in a batch of their own, and a row each made a run of 300
 * samples 304 rows. Each batch is still committed as it comes.
 *
 * The row's `event_id` is the FIRST frame id of the last batch written into it and
 * `last_event_id` its last frame's: a reaper that ended the run elsewhere stored its terminal
 * frame under the id this run's next batch starts with, so the primary key refuses that batch,
 * whether inserted as a row or written into the run's last row by moving its key there, as it
 * refused the lone frame row before. Its `observed_at` is the last frame's, which the retention
 * sweep reads.
 */
import type { Queryable, RowInsert } from "../store/mod.ts";
import type { EventFrame } from "./event_order.ts";
import { frameJson, keepReadyJson, payloadJsonWithout } from "./frame_json.ts";
import type { StoredFrame } from "./packed_events.ts";

/** The event_type of a batch row: no frame has it. */
export const FRAMES = "frames";

const COLUMNS = "execution_id, event_id, event_type, data, observed_at, last_event_id";

/**
 * How much frame text a row takes before the run's next batch starts a row of its own (~7
 * progress samples). The row is written whole each time; this size keeps it inside one SQLite
 * page, so an extension writes about the pages the insert it replaces would (a larger row spills
 * to overflow pages, all rewritten each time), and PostgreSQL compresses it in place.
 */
export const ROW_BYTES = 3 * 1024;

const EXTEND =
  `UPDATE execution_events SET event_id = $1, last_event_id = $2, observed_at = $3, data = $4
  WHERE execution_id = $5 AND event_id = $6`;

/**
 * Frames gathered for one row; `data` holds `[id, event, payload, observed_at]` tuples as JSON
 * text, each payload's text made once (frame_json.ts).
 */
export class FrameBatch {
  /**
   * The tuples so far, comma-separated. Concatenated, not joined at the end: a join copied each
   * tuple twice (flattened, then copied), this is flattened once, where the row is written.
   */
  #tuples = "";
  #first = -1;
  #last = -1;
  #lastAt = "";
  #bytes = 0;

  constructor(readonly executionId: string) {}

  /** True before the first frame. */
  get empty(): boolean {
    return this.#first < 0;
  }

  /** Adds a frame made by `frameTuple`. */
  add(id: number, tuple: string, observedAt: string): void {
    this.#tuples = this.#tuples === "" ? tuple : this.#tuples + "," + tuple;
    this.#bytes += tuple.length;
    if (this.#first < 0) this.#first = id;
    this.#last = id;
    this.#lastAt = observedAt;
  }

  get firstId(): number {
    return this.#first;
  }

  get lastId(): number {
    return this.#last;
  }

  /** The length of its frames' text. */
  get bytes(): number {
    return this.#bytes;
  }

  /** This batch's row with `next` written into it, under `next`'s first id (see above). */
  extended(next: FrameBatch): FrameBatch {
    const both = new FrameBatch(this.executionId);
    for (const b of [this, next]) {
      if (b.#tuples !== "") {
        both.#tuples = both.#tuples === "" ? b.#tuples : both.#tuples + "," + b.#tuples;
      }
      both.#bytes += b.#bytes;
    }
    both.#first = next.#first;
    both.#last = next.#last;
    both.#lastAt = next.#lastAt;
    return both;
  }

  /**
   * Stores this row over `stored`, the run's row it extends; false when that row is gone (the
   * retention sweep took the row of a run silent for longer than it keeps events).
   */
  async writeOver(q: Queryable, stored: FrameBatch): Promise<boolean> {
    const values = [
      this.#first,
      this.#last,
      this.#lastAt,
      this.#data(),
      this.executionId,
      stored.#first,
    ];
    return await q.execute(EXTEND, values) === 1;
  }

  #data(): string {
    return "[" + this.#tuples + "]";
  }

  row(): RowInsert {
    return {
      table: "execution_events",
      columns: COLUMNS,
      values: [
        this.executionId,
        this.#first,
        FRAMES,
        this.#data(),
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
  const head = `[${frame.id},${JSON.stringify(frame.event)},`;
  if (frame.event === "data_ready") keepReadyJson(frame.data);
  if (run) {
    const [omit, where] = constantsIn(frame.data, run);
    if (where !== 0) {
      return `${head}${payloadJsonWithout(frame.data, omit)},"${observedAt}",${where}]`;
    }
  }
  return `${head}${frameJson(frame)},"${observedAt}"]`;
}

/**
 * The members of `data` whose value is the run's constant, and where each stood (position + 1
 * in `data`'s keys, 5 bits per key of CONSTANT_KEYS; 0 when none). The payload's text is then
 * made without them (frame_json.ts), not cut from the whole text: `data_ready`'s large part, its
 * rows' text, is made once and copied only where the row is written.
 */
function constantsIn(data: Record<string, unknown>, run: RunConstants): [string[], number] {
  const omit: string[] = [];
  let where = 0;
  let i = 0;
  for (const key in data) {
    if (i >= MAX_POSITION) break;
    const k = CONSTANT_KEYS.indexOf(key as typeof CONSTANT_KEYS[number]);
    if (k >= 0 && typeof data[key] === "string" && data[key] === run[key as keyof RunConstants]) {
      omit.push(key);
      where += (i + 1) * 2 ** (5 * k);
    }
    i++;
  }
  return [omit, where];
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
