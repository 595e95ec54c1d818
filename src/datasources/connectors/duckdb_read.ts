/**
 * Reading a DuckDB result, shared by the DUCKDB and LAKE connectors (both are DuckDB underneath):
 * chunks fetched one ahead while the caller works on the last, converted column by column, cut
 * into batches for `query()` or handed out whole for `chunks()`, and stopped inside the engine
 * when the read is aborted or broken off.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBType } from "@duckdb/node-api";
import { DEFAULT_BATCH_ROWS, rowStream, startRead } from "./row_stream.ts";
import { rowBytes, variableWidth } from "./duckdb_bytes.ts";
import { type ColumnReader, duckdbColumnReader } from "./duckdb_types.ts";
import { BATCH_BYTES, ValueTooLarge } from "./value_bounds.ts";
import type {
  ChunkStream,
  ColumnSchema,
  QueryOptions,
  RowStream,
  Statement,
  WireValue,
} from "./types.ts";

/**
 * Interrupts until told to stop. An interrupt only reaches a statement the engine has started,
 * and a statement handed over an instant ago may not have started yet; repeating closes that gap.
 */
export function keepInterrupting(conn: DuckDBConnection): () => void {
  conn.interrupt();
  const timer = setInterval(() => conn.interrupt(), 20);
  return () => clearInterval(timer);
}

/** One read under way; `release` gives the connection back (once, whoever calls it first). */
export interface DuckRead {
  schema: ColumnSchema[];
  types: DuckDBType[];
  /** The next non-empty chunk, or null at the end. */
  next(): Promise<DuckDBDataChunk | null>;
  /** A chunk's rows in batches of at most `BATCH_BYTES` of values (see `ChunkStream.toRows`). */
  toRows(chunk: DuckDBDataChunk): Generator<WireValue[][]>;
  release(error?: unknown): Promise<void>;
}

export interface DuckReadOptions {
  signal?: AbortSignal;
  /** A value over this many bytes throws `ValueTooLarge` before it becomes a JS value. */
  maxCellBytes?: number;
  /** Each connector's column description (the wire type must be `duckdbWireType`'s). */
  schemaOf(name: string, type: DuckDBType): ColumnSchema;
  /** Hands the connection back; `interrupted` says the engine was stopped mid-statement. */
  finish(outcome: { error?: unknown; interrupted: boolean }): Promise<void> | void;
}

/** Starts `start()` on `conn` and reads its first chunk; a failure releases before it throws. */
export async function openDuckRead(
  conn: DuckDBConnection,
  start: () => Promise<DuckDBResult>,
  options: DuckReadOptions,
): Promise<DuckRead> {
  const { signal } = options;
  let interrupted = false;
  let stopInterrupting: (() => void) | undefined;
  // The chunk being fetched while the caller works on the last one (the engine reads on its own
  // thread); settled before the connection is handed back.
  let ahead: Promise<DuckDBDataChunk | null> | undefined;
  let fetching = false;
  const { opened: { result, first }, finish } = await startRead({
    open: async () => {
      signal?.throwIfAborted();
      const result = await start();
      const first = await result.fetchChunk();
      signal?.throwIfAborted();
      return { result, first };
    },
    cancel: () => {
      interrupted = true;
      stopInterrupting = keepInterrupting(conn);
    },
    finish: async (error) => {
      if (fetching) {
        // Broken off with a fetch under way: stop it rather than wait for a chunk nobody reads.
        interrupted = true;
        conn.interrupt();
      }
      await ahead?.catch(() => {});
      stopInterrupting?.();
      await options.finish({ error, interrupted });
    },
  }, signal);
  const types = result.columnTypes();
  const schema = result.columnNames().map((name, i) => options.schemaOf(name, types[i]));
  const readers = schema.map((c, i) => duckdbColumnReader(types[i], c.type));
  ahead = Promise.resolve(first);
  return {
    schema,
    types,
    release: finish,
    next: async () => {
      const current = await ahead!;
      // An interrupted fetch may come back empty: an aborted read must not look complete.
      signal?.throwIfAborted();
      if (!current || current.rowCount === 0) return null;
      fetching = true;
      ahead = result.fetchChunk();
      // Handled here so a read broken off before the next call is no unhandled rejection; the
      // next call still sees the error.
      ahead.catch(() => {}).finally(() => (fetching = false));
      return current;
    },
    toRows: (c) => chunkRows(c, schema, readers, options.maxCellBytes ?? Infinity),
  };
}

/**
 * A chunk's rows, column by column (a vector read whole costs a fraction of reading it value by
 * value). The sizes of its strings, blobs and nested values are read off the engine's headers
 * first: a value over `maxCellBytes` fails the read before anything becomes a JS value, and a
 * chunk holding more than `BATCH_BYTES` is converted a slice at a time.
 */
function* chunkRows(
  chunk: DuckDBDataChunk,
  schema: ColumnSchema[],
  readers: ColumnReader[],
  maxCellBytes: number,
): Generator<WireValue[][]> {
  const count = chunk.rowCount;
  const vectors = readers.map((_, i) => chunk.getColumnVector(i));
  const sizes = new Float64Array(count);
  vectors.forEach((vector, i) => {
    if (!variableWidth(vector)) return;
    const bytes = rowBytes(vector, count);
    for (let r = 0; r < count; r++) {
      if (bytes[r] > maxCellBytes) throw new ValueTooLarge(schema[i].name, bytes[r], maxCellBytes);
      sizes[r] += bytes[r];
    }
  });
  for (let from = 0; from < count;) {
    let to = from + 1;
    for (let sum = sizes[from]; to < count && sum + sizes[to] <= BATCH_BYTES; to++) {
      sum += sizes[to];
    }
    const rows: WireValue[][] = new Array(to - from);
    for (let r = 0; r < rows.length; r++) rows[r] = new Array(readers.length);
    for (let i = 0; i < readers.length; i++) {
      readers[i](
        from === 0 && to === count ? vectors[i] : vectors[i].slice(from, to - from),
        rows,
        i,
      );
    }
    yield rows;
    from = to;
  }
}

/**
 * `query()` and `chunks()` of a connector whose reads are DuckDB results (DUCKDB and LAKE); `read`
 * starts one (`openDuckRead`) on a connection of the connector's.
 */
export abstract class DuckReads {
  protected abstract read(
    statement: Statement,
    options: QueryOptions,
    readOnly: boolean,
  ): Promise<DuckRead>;

  async query(statement: Statement, options: QueryOptions = {}): Promise<RowStream> {
    return duckRows(await this.read(statement, options, options.readOnly === true), options);
  }

  /**
   * The same read as `query()`, as DuckDB's own column chunks: a DuckDB-to-DuckDB copy (staging)
   * appends them whole instead of converting every value to its wire form and back.
   */
  async chunks(
    statement: Statement,
    options: Pick<QueryOptions, "signal" | "maxCellBytes"> = {},
  ): Promise<ChunkStream> {
    return duckChunks(await this.read(statement, options, false), options.signal);
  }
}

/** The read as batches of `options.batchRows` rows (chunks are DuckDB's 2,048-row vectors). */
function duckRows(read: DuckRead, options: QueryOptions): RowStream {
  const batchRows = Math.max(1, options.batchRows ?? DEFAULT_BATCH_ROWS);
  let pending: WireValue[][] = [];
  let exhausted = false;
  // The slices of the chunk being converted: a slice cut by bytes is a batch of its own.
  let slices: Generator<WireValue[][]> | undefined;
  let cut = false;
  const take = async (): Promise<WireValue[][] | undefined> => {
    while (pending.length < batchRows && !exhausted) {
      let slice = slices?.next();
      if (!slice || slice.done) {
        const chunk = await read.next();
        if (!chunk) {
          exhausted = true;
          break;
        }
        slices = read.toRows(chunk);
        slice = slices.next();
        if (slice.done) continue;
        cut = slice.value.length < chunk.rowCount;
      }
      const rows = slice.value;
      if (pending.length === 0) pending = rows;
      else for (const row of rows) pending.push(row);
      if (cut) break;
    }
    if (pending.length === 0) return undefined;
    const batch = pending.length <= batchRows ? pending : pending.slice(0, batchRows);
    pending = pending.length <= batchRows ? [] : pending.slice(batchRows);
    return batch;
  };
  return rowStream(read.schema, { next: take, finish: read.release }, options);
}

/** The read as DuckDB's own chunks, for a DuckDB-to-DuckDB copy (staging). Iterable once. */
function duckChunks(read: DuckRead, signal?: AbortSignal): ChunkStream {
  let started = false;
  async function* iterate(): AsyncGenerator<DuckDBDataChunk> {
    let failure: unknown;
    try {
      for (let chunk = await read.next(); chunk; chunk = await read.next()) {
        signal?.throwIfAborted();
        yield chunk;
      }
    } catch (error) {
      failure = signal?.aborted ? signal.reason : error;
      throw failure;
    } finally {
      await read.release(failure);
    }
  }
  return {
    schema: read.schema,
    types: read.types,
    toRows: read.toRows,
    [Symbol.asyncIterator]() {
      if (started) throw new Error("a chunk stream can be iterated once");
      started = true;
      return iterate();
    },
  };
}
