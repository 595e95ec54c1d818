/**
 * The result store (docs/decisions.md#result-pages-and-lifetimes): a caller result kept in the
 * shared store, so any replica can serve its pages. Rows are appended in chunks of `chunkRows`
 * JSON-encoded rows to one list (stable order across pages, few round trips); the metadata key is
 * written last, so a result is readable only once it is complete. Expiry is fixed when the writer
 * starts and every key carries that same instant; reads never extend it.
 */
import { AppError } from "../errors/mod.ts";
import type { SharedStore } from "../shared/mod.ts";
import { Unavailable } from "../lib/unavailable.ts";
import { utf8Length } from "../lib/utf8.ts";
import {
  type ColumnSchema,
  type JsonCell,
  toJsonCell,
  type WireType,
  type WireValue,
} from "../datasources/mod.ts";

export { type JsonCell, toJsonCell };

/**
 * `result.storage_unavailable`'s `details.reason` when the shared store was out of reach (an
 * outage a retry outlives) rather than refusing the result (full): a serve answers the first 503.
 */
export const STORE_UNREACHABLE = "unreachable";

/** The run's failure when the shared store failed it; the store's own error stays the cause. */
export function storageUnavailable(executionId: string, cause: unknown): AppError {
  const error = new AppError(
    "result.storage_unavailable",
    cause instanceof Unavailable
      ? { execution_id: executionId, reason: STORE_UNREACHABLE }
      : { execution_id: executionId },
  );
  error.cause = cause;
  return error;
}

/** A result column as the result cursor serves it. */
export interface ResultColumn {
  name: string;
  type: WireType;
  precision?: number;
  scale?: number;
}

export interface StoredResult {
  execution_id: string;
  schema: ResultColumn[];
  row_count: number;
  size_bytes: number;
  expires_at: string;
}

export interface ResultStoreOptions {
  /** `service.result.max-size-bytes`: a larger result fails with `result.too_large`. */
  maxBytes: number;
  /** Rows per stored chunk. */
  chunkRows?: number;
  now?: () => number;
}

const encoder = new TextEncoder();

export function resultColumns(schema: ColumnSchema[]): ResultColumn[] {
  return schema.map(({ name, type, precision, scale }) => ({
    name,
    type,
    ...(precision === undefined ? {} : { precision }),
    ...(scale === undefined ? {} : { scale }),
  }));
}

const metaKey = (id: string) => `result:${id}:meta`;
const rowsKey = (id: string) => `result:${id}:rows`;

export class ResultStore {
  readonly #store: SharedStore;
  readonly #maxBytes: number;
  readonly #chunkRows: number;
  readonly #now: () => number;

  constructor(store: SharedStore, options: ResultStoreOptions) {
    this.#store = store;
    this.#maxBytes = options.maxBytes;
    this.#chunkRows = options.chunkRows ?? 500;
    this.#now = options.now ?? Date.now;
  }

  /** Starts a result whose expiry is fixed now: `ttlSeconds` from this instant. */
  writer(executionId: string, schema: ColumnSchema[], ttlSeconds: number): ResultWriter {
    return new ResultWriter(this.#store, {
      executionId,
      schema: resultColumns(schema),
      expiresAt: this.#now() + ttlSeconds * 1000,
      maxBytes: this.#maxBytes,
      chunkRows: this.#chunkRows,
      now: this.#now,
    });
  }

  /** The stored result's description, or null when absent, incomplete or expired. */
  async describe(executionId: string): Promise<StoredResult | null> {
    const text = await this.#store.get(metaKey(executionId));
    if (text === null) return null;
    const meta = JSON.parse(text) as StoredResult & { chunk_rows: number };
    if (Date.parse(meta.expires_at) <= this.#now()) return null;
    const { chunk_rows: _, ...result } = meta;
    return result;
  }

  /** Rows `offset` to `offset + limit - 1` in stored order, or null when there is no result. */
  async page(
    executionId: string,
    offset: number,
    limit: number,
  ): Promise<{ result: StoredResult; rows: JsonCell[][] } | null> {
    const text = await this.#store.get(metaKey(executionId));
    if (text === null) return null;
    const meta = JSON.parse(text) as StoredResult & { chunk_rows: number };
    if (Date.parse(meta.expires_at) <= this.#now()) return null;
    const { chunk_rows: chunkRows, ...result } = meta;
    const end = Math.min(offset + limit, result.row_count);
    if (limit <= 0 || offset >= end) return { result, rows: [] };
    const first = Math.floor(offset / chunkRows);
    const last = Math.floor((end - 1) / chunkRows);
    const chunks = await this.#store.range(rowsKey(executionId), first, last);
    const rows = chunks.flatMap((c) => JSON.parse(c) as JsonCell[][]);
    const from = offset - first * chunkRows;
    return { result, rows: rows.slice(from, from + (end - offset)) };
  }

  /**
   * The whole result as CSV (header row first), read a few chunks at a time so a large result is
   * never held in memory. Null when there is no result.
   */
  async csv(executionId: string): Promise<ReadableStream<Uint8Array> | null> {
    const text = await this.#store.get(metaKey(executionId));
    if (text === null) return null;
    const meta = JSON.parse(text) as StoredResult & { chunk_rows: number };
    if (Date.parse(meta.expires_at) <= this.#now()) return null;
    const chunkCount = Math.ceil(meta.row_count / meta.chunk_rows);
    const store = this.#store;
    const key = rowsKey(executionId);
    let next = 0;
    let headerSent = false;
    // About 1,000 rows a store read, handed on a stored chunk at a time: pieces
    // this small die young, where whole reads would pile up in V8's large-object space (and RSS)
    // until a full collection.
    const perRead = Math.max(1, Math.floor(1024 / meta.chunk_rows));
    let fetched: string[] = [];
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(csvLine(meta.schema.map((c) => c.name))));
          return;
        }
        if (fetched.length === 0) {
          if (next >= chunkCount) return controller.close();
          fetched = await store.range(key, next, Math.min(chunkCount, next + perRead) - 1);
          next += perRead;
          if (fetched.length === 0) {
            // Expired mid-download: the body is already streaming, so the only honest answer
            // left is to break it off rather than end it as if it were complete.
            return controller.error(new Error(`result of ${executionId} expired during download`));
          }
          fetched.reverse();
        }
        controller.enqueue(encoder.encode(csvFromChunk(fetched.pop()!)));
      },
    });
  }

  /** Removes a result (a failed write, or a purge with its execution). */
  async remove(executionId: string): Promise<void> {
    await this.#store.delete(metaKey(executionId), rowsKey(executionId));
  }
}

/** RFC 4180: a field is quoted when it holds a comma, quote, CR or LF. */
function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line; NULL is empty. */
export function csvLine(cells: JsonCell[]): string {
  return cells.map((cell) => cell === null ? "" : csvField(String(cell))).join(",") + "\r\n";
}

/**
 * The CSV lines of one stored chunk, read straight from its JSON text (an array of rows of
 * scalars, as `JSON.stringify` wrote it): the same text `csvLine` gives for the parsed rows.
 * Not `JSON.parse`: V8 interns the short strings it parses (numbers as text, dates), and with
 * millions of them a whole-result download spends most of its time in the string table.
 */
export function csvFromChunk(text: string): string {
  let out = "";
  const n = text.length;
  let i = 1; // past the outer '['
  let backslash = text.indexOf("\\");
  while (text.charCodeAt(i) === OPEN) {
    i++;
    let first = true;
    while (i < n && text.charCodeAt(i) !== CLOSE) {
      if (!first) out += ",";
      first = false;
      if (text.charCodeAt(i) === QUOTE) {
        // The closing quote is the first one not escaped; escapes are rare, so find them lazily.
        let j = i + 1;
        let escaped = false;
        let end: number;
        for (;;) {
          end = text.indexOf('"', j);
          if (backslash !== -1 && backslash < j) backslash = text.indexOf("\\", j);
          if (backslash === -1 || backslash > end) break;
          escaped = true;
          j = backslash + 2;
          backslash = text.indexOf("\\", j);
        }
        if (end === -1) throw new Error("a stored result chunk is not JSON");
        if (escaped) {
          out += csvField(JSON.parse(text.slice(i, end + 1)) as string);
        } else {
          // Unescaped JSON text has no quote, CR or LF; only a comma needs quoting.
          const value = text.slice(i + 1, end);
          out += value.includes(",") ? `"${value}"` : value;
        }
        i = end + 1;
      } else {
        // A number, true, false or null: written as String() would write it; NULL is empty.
        let end = i;
        while (end < n && text.charCodeAt(end) !== COMMA && text.charCodeAt(end) !== CLOSE) end++;
        if (text.charCodeAt(i) !== NULL_N) out += text.slice(i, end);
        i = end;
      }
      if (text.charCodeAt(i) === COMMA) i++;
    }
    out += "\r\n";
    i++; // past the row's ']'
    if (text.charCodeAt(i) === COMMA) i++;
  }
  return out;
}

const OPEN = 91; // [
const CLOSE = 93; // ]
const QUOTE = 34; // "
const COMMA = 44; // ,
const NULL_N = 110; // n

interface WriterOptions {
  executionId: string;
  schema: ResultColumn[];
  expiresAt: number;
  maxBytes: number;
  chunkRows: number;
  now: () => number;
}

/**
 * Appends rows in order; `finish()` makes the result readable. Any failure removes what was
 * written and raises `result.too_large` or `result.storage_unavailable`; there is no fallback.
 */
export class ResultWriter {
  readonly #store: SharedStore;
  readonly #o: WriterOptions;
  readonly #convert: number[];
  #pending: JsonCell[][] = [];
  /** The first stored chunk's rows, kept: the inline first page needs no read back. */
  #head: JsonCell[][] = [];
  /** `#head`'s JSON text as stored: `data_ready` carries the same rows (see frame_json.ts). */
  #headJson: string | undefined;
  #rows = 0;
  #bytes = 0;
  #pendingChars = 0;
  #done = false;

  constructor(store: SharedStore, options: WriterOptions) {
    this.#store = store;
    this.#o = options;
    this.#convert = options.schema.flatMap((c, i) =>
      c.type === "bigint" || c.type === "binary" || c.type === "double" ? [i] : []
    );
  }

  get rowCount(): number {
    return this.#rows;
  }

  /** Rows from the first, in stored order: the whole first chunk (or the whole result). */
  get head(): readonly JsonCell[][] {
    return this.#head;
  }

  /** `JSON.stringify(head)`, the text the first chunk was stored as (none before a flush). */
  get headJson(): string | undefined {
    return this.#headJson;
  }

  /**
   * Takes the rows: cells of bigint, binary and double columns (the only ones whose JSON form
   * differs from the wire value) are rewritten in place, which a copy per row would cost as much
   * as the rest of the write. Appending the same rows again gives the same result.
   */
  async append(rows: WireValue[][]): Promise<void> {
    if (this.#done) throw new Error("result writer already finished");
    const convert = this.#convert;
    for (const row of rows) {
      for (const c of convert) row[c] = toJsonCell(row[c]);
      // Characters of its strings: never more than the row's stored bytes, so a result is
      // refused here before pending rows that could never be stored fill the heap.
      for (const cell of row) if (typeof cell === "string") this.#pendingChars += cell.length;
      if (this.#bytes + this.#pendingChars > this.#o.maxBytes) await this.#tooLarge();
      this.#pending.push(row as JsonCell[]);
      if (this.#pending.length >= this.#o.chunkRows) await this.#flush();
    }
  }

  async #tooLarge(): Promise<never> {
    await this.abort();
    throw new AppError("result.too_large", {
      execution_id: this.#o.executionId,
      max_size_bytes: this.#o.maxBytes,
    });
  }

  /** Writes the remainder and the metadata; returns what a reader will see. */
  async finish(): Promise<StoredResult> {
    await this.#flush();
    this.#done = true;
    const result: StoredResult = {
      execution_id: this.#o.executionId,
      schema: this.#o.schema,
      row_count: this.#rows,
      size_bytes: this.#bytes,
      expires_at: new Date(this.#o.expiresAt).toISOString(),
    };
    await this.#guard(() =>
      this.#store.set(
        metaKey(this.#o.executionId),
        JSON.stringify({ ...result, chunk_rows: this.#o.chunkRows }),
        { ttlMs: this.#ttlMs() },
      )
    );
    return result;
  }

  /** Drops a half-written result (the execution failed or was aborted). */
  async abort(): Promise<void> {
    this.#done = true;
    this.#pending = [];
    this.#head = [];
    this.#headJson = undefined;
    await this.#store.delete(metaKey(this.#o.executionId), rowsKey(this.#o.executionId))
      .catch(() => {});
  }

  async #flush(): Promise<void> {
    if (this.#pending.length === 0) return;
    const chunk = JSON.stringify(this.#pending);
    const rows = this.#pending.length;
    if (this.#rows === 0) {
      this.#head = this.#pending;
      this.#headJson = chunk;
    }
    this.#pending = [];
    this.#pendingChars = 0;
    this.#bytes += utf8Length(chunk);
    if (this.#bytes > this.#o.maxBytes) await this.#tooLarge();
    await this.#guard(() =>
      this.#store.append(rowsKey(this.#o.executionId), [chunk], { ttlMs: this.#ttlMs() })
    );
    this.#rows += rows;
  }

  /** Milliseconds left until the fixed expiry, so every key dies at the same instant. */
  #ttlMs(): number {
    return Math.max(1, this.#o.expiresAt - this.#o.now());
  }

  async #guard<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      await this.abort();
      // The store's own error stays the cause (for the failure record and the log), out of the
      // details a caller sees.
      throw storageUnavailable(this.#o.executionId, e);
    }
  }
}
