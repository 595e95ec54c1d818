/**
 * The one row-stream loop every connector's read goes through. A driver adapter (`DriverRead`)
 * starts a statement, hands over its batches and gives its connection back; what every read does
 * around that is here, once:
 *
 * - `startRead`: the read's abort reaches the adapter's `cancel`; `finish` runs exactly once; a
 *   failure before the first row gives the connection back before it is thrown (an abort's reason
 *   in place of the driver error the abort caused).
 * - `rowStream`: serves the batches under `maxRows` and `maxBytes`, stops at an abort, and says
 *   `truncated` when it stopped with rows left.
 *
 * Bounds on single values and on a batch's bytes are the drivers' (see `value_bounds.ts`): they
 * must apply as rows arrive, before a driver has built more than it may.
 */
import type { ColumnSchema, QueryOptions, RowStream, WireValue } from "./types.ts";
import { rowBytes } from "./value_bounds.ts";

export const DEFAULT_BATCH_ROWS = 1000;

/** One statement under way on a driver, as the loop drives it. */
export interface DriverRead<Opened = { schema: ColumnSchema[]; first?: WireValue[][] }> {
  /** Starts the statement; resolves once the columns are known (with any rows read by then). */
  open(): Promise<Opened>;
  /** The read's signal aborted: stop the statement (the next batch then fails). */
  cancel?(): void;
  /** Ends the read and gives the connection back; `error` says how it failed. Runs once. */
  finish(error?: unknown): Promise<void>;
}

/** A driver's read of rows: `next` gives the batch after `open`'s, undefined at the end. */
export type RowRead = DriverRead & { next(): Promise<WireValue[][] | undefined> };

/** A connector's read: `startRead`, then `rowStream` over the adapter's batches. */
export async function openRead(read: RowRead, options: QueryOptions): Promise<RowStream> {
  const { opened, finish } = await startRead(read, options.signal);
  const { schema, first } = opened;
  return rowStream(schema, { first, next: () => read.next(), finish }, options);
}

/** Opens `read` under `signal`; see the module comment. */
export async function startRead<Opened>(
  read: DriverRead<Opened>,
  signal?: AbortSignal,
): Promise<{ opened: Opened; finish(error?: unknown): Promise<void> }> {
  const cancel = () => read.cancel?.();
  signal?.addEventListener("abort", cancel, { once: true });
  let finished = false;
  const finish = async (error?: unknown) => {
    if (finished) return;
    finished = true;
    signal?.removeEventListener("abort", cancel);
    await read.finish(error);
  };
  try {
    return { opened: await read.open(), finish };
  } catch (error) {
    await finish(error);
    throw signal?.aborted ? signal.reason : error;
  }
}

/**
 * Builds the stream a connector returns. `next` pulls the driver's next batch (undefined at the
 * end); `finish` runs exactly once when iteration ends, fails or is broken off, and gets back the
 * connection. `first` is a batch already read while learning the schema.
 */
export function rowStream(
  schema: ColumnSchema[],
  source: {
    first?: WireValue[][];
    next: () => Promise<WireValue[][] | undefined>;
    finish: (error?: unknown) => Promise<void>;
  },
  options: Pick<QueryOptions, "maxRows" | "maxBytes" | "signal"> = {},
): RowStream {
  let truncated = false;
  let started = false;
  let max = options.maxRows ?? Infinity;
  const maxBytes = options.maxBytes ?? Infinity;
  let bytes = 0;
  async function* iterate(): AsyncGenerator<WireValue[][]> {
    let seen = 0;
    let failure: unknown;
    try {
      let batch = source.first ?? await source.next();
      while (batch !== undefined) {
        options.signal?.throwIfAborted();
        if (maxBytes !== Infinity) {
          // The row that would pass `maxBytes` is where the read stops, as at `maxRows`; a first
          // row is always kept, so a read never answers nothing for being wide.
          for (let r = 0; r < batch.length && seen + r < max; r++) {
            bytes += rowBytes(batch[r]);
            if (bytes > maxBytes && seen + r > 0) max = seen + r;
          }
        }
        if (batch.length > 0) {
          const room = max - seen;
          if (batch.length >= room) {
            if (room > 0) yield batch.slice(0, room);
            seen += room;
            // Exactly at the cap: one more read tells whether anything was left.
            truncated = batch.length > room || ((await source.next())?.length ?? 0) > 0;
            return;
          }
          seen += batch.length;
          yield batch;
        }
        batch = await source.next();
      }
    } catch (error) {
      failure = options.signal?.aborted ? options.signal.reason : error;
      throw failure;
    } finally {
      await source.finish(failure);
    }
  }
  return {
    schema,
    get truncated() {
      return truncated;
    },
    [Symbol.asyncIterator]() {
      if (started) throw new Error("a row stream can be iterated once");
      started = true;
      return iterate();
    },
    async close() {
      if (started) return;
      started = true;
      await source.finish();
    },
  };
}
