/**
 * Reading a DuckDB result, shared by the DUCKDB and LAKE connectors (both are DuckDB underneath):
 * chunks fetched one ahead while the caller works on the last, converted column by column, cut
 * into batches for `query()` or handed out whole for `chunks()`, and stopped inside the engine
 * when the read is aborted or broken off.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBResult, DuckDBType } from "@duckdb/node-api";
import { DEFAULT_BATCH_ROWS, rowStream } from "./common.ts";
import { duckdbColumnReader } from "./duckdb_types.ts";
import type { ChunkStream, ColumnSchema, QueryOptions, RowStream, WireValue } from "./types.ts";

/**
 * Interrupts until told to stop. An interrupt only reaches a statement the engine has started,
 * and a statement handed over an instant ago may not have started yet; repeating closes that gap.
 */
export function keepInterrupting(conn: DuckDBConnection): () => void {
  conn.interrupt();
  const timer = setInterval(() => conn.interrupt(), 20);
  return () => clearInterval(timer);
}

/** One read under way; `release` must be called exactly once. */
export interface DuckRead {
  schema: ColumnSchema[];
  types: DuckDBType[];
  /** The next non-empty chunk, or null at the end. */
  next(): Promise<DuckDBDataChunk | null>;
  toRows(chunk: DuckDBDataChunk): WireValue[][];
  release(error?: unknown): Promise<void>;
}

export interface DuckReadOptions {
  signal?: AbortSignal;
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
  const onAbort = () => {
    interrupted = true;
    stopInterrupting = keepInterrupting(conn);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  // The chunk being fetched while the caller works on the last one (the engine reads on its own
  // thread); settled before the connection is handed back.
  let ahead: Promise<DuckDBDataChunk | null> | undefined;
  let fetching = false;
  const release = async (error?: unknown) => {
    if (fetching) {
      // Broken off with a fetch under way: stop it rather than wait for a chunk nobody reads.
      interrupted = true;
      conn.interrupt();
    }
    await ahead?.catch(() => {});
    signal?.removeEventListener("abort", onAbort);
    stopInterrupting?.();
    await options.finish({ error, interrupted });
  };
  let result: DuckDBResult;
  let first: DuckDBDataChunk | null;
  try {
    signal?.throwIfAborted();
    result = await start();
    first = await result.fetchChunk();
    signal?.throwIfAborted();
  } catch (error) {
    await release(error);
    throw signal?.aborted ? signal.reason : error;
  }
  const types = result.columnTypes();
  const schema = result.columnNames().map((name, i) => options.schemaOf(name, types[i]));
  const readers = schema.map((c, i) => duckdbColumnReader(types[i], c.type));
  ahead = Promise.resolve(first);
  return {
    schema,
    types,
    release,
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
    // Column by column: a vector read whole costs a fraction of reading it value by value.
    toRows: (c) => {
      const rows: WireValue[][] = new Array(c.rowCount);
      for (let r = 0; r < rows.length; r++) rows[r] = new Array(readers.length);
      for (let i = 0; i < readers.length; i++) readers[i](c.getColumnVector(i), rows, i);
      return rows;
    },
  };
}

/** The read as batches of `options.batchRows` rows (chunks are DuckDB's 2,048-row vectors). */
export function duckRows(read: DuckRead, options: QueryOptions): RowStream {
  const batchRows = Math.max(1, options.batchRows ?? DEFAULT_BATCH_ROWS);
  let pending: WireValue[][] = [];
  let exhausted = false;
  const take = async (): Promise<WireValue[][] | undefined> => {
    while (pending.length < batchRows && !exhausted) {
      const chunk = await read.next();
      if (!chunk) {
        exhausted = true;
        break;
      }
      const rows = read.toRows(chunk);
      if (pending.length === 0) pending = rows;
      else for (const row of rows) pending.push(row);
    }
    if (pending.length === 0) return undefined;
    const batch = pending.length <= batchRows ? pending : pending.slice(0, batchRows);
    pending = pending.length <= batchRows ? [] : pending.slice(batchRows);
    return batch;
  };
  return rowStream(read.schema, { next: take, finish: read.release }, options);
}

/** The read as DuckDB's own chunks, for a DuckDB-to-DuckDB copy (staging). Iterable once. */
export function duckChunks(read: DuckRead, signal?: AbortSignal): ChunkStream {
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
