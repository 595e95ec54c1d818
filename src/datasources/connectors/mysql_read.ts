/**
 * A MYSQL read as the row-stream loop's adapter (`row_stream.ts`). mysql2 pushes rows as the
 * socket delivers them; they queue here, bounded by rows and by bytes (`BATCH_BYTES` a batch),
 * with the socket paused while the consumer is behind, and a value over the cell bound ends the
 * read. An abort, or a read broken off, stops the statement with `KILL QUERY` from a second
 * connection, which leaves the pooled connection usable.
 */
import { bindValue } from "./common.ts";
import { type Conn, plain, releaseLocks } from "./mysql_driver.ts";
import { fieldType, mysqlConverter, type MysqlField } from "./mysql_types.ts";
import type { Lease } from "./pool.ts";
import { DEFAULT_BATCH_ROWS, type RowRead } from "./row_stream.ts";
import type { QueryOptions, WireValue } from "./types.ts";
import { BATCH_BYTES, rowBytes } from "./value_bounds.ts";

/** How long a cancelled statement may run on before its kill is sent again. */
const KILL_RETRY_MS = 500;

/** What a read needs of its connector. */
export interface MysqlServer {
  /** Stops whatever `conn` runs, from a second connection (MySQL has no in-band cancel). */
  kill(conn: Conn): Promise<void>;
  /** Whether `conn` answers within the pool's validation timeout. */
  validate(conn: Conn): Promise<boolean>;
  /** The pool's validation timeout, also how long a killed statement may take to end. */
  validationTimeout: number;
}

/** A read that returned no result set, worded as a server error would be. */
function noResultSet(): Error {
  return Object.assign(
    new Error("the statement returned no result set; a read must be a query that returns rows"),
    { code: "ER_NO_RESULT_SET" },
  );
}

/**
 * Runs `sql` on the leased connection as a server-side prepared statement (`execute`), values
 * apart from the SQL text. Under `readOnly` the caller has opened the read-only transaction;
 * `finish` rolls it back.
 */
export function mysqlRead(
  lease: Lease<Conn>,
  { sql, values }: { sql: string; values: unknown[] },
  options: QueryOptions,
  server: MysqlServer,
): RowRead {
  const { signal } = options;
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const maxCellBytes = options.maxCellBytes ?? Infinity;
  const conn = lease.conn;
  const queue: unknown[][] = [];
  const sizes: number[] = [];
  let queuedBytes = 0;
  let ended = false;
  let failure: unknown;
  let paused = false;
  let discarding = false;
  let rowsSeen = 0;
  let fields: MysqlField[] | undefined;
  let converters: ((value: unknown) => WireValue)[] = [];
  let killing: Promise<void> | undefined;
  const kill = () => server.kill(conn).catch(() => {});
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const waitFor = (ready: () => boolean) =>
    new Promise<void>((resolve) => {
      if (ready()) resolve();
      else wake = resolve;
    });
  const waitUntil = async (ready: () => boolean, ms: number) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([waitFor(ready), timeout]);
    clearTimeout(timer);
    return ready();
  };
  // A statement is prepared, then executed: a kill landing between the two finds nothing to
  // stop, and the execute runs on. So it is sent again until the statement ends, or the
  // connection is given up as broken.
  const stopped = async () => {
    const deadline = Date.now() + server.validationTimeout;
    await killing;
    while (!(await waitUntil(() => ended, Math.min(KILL_RETRY_MS, deadline - Date.now())))) {
      if (Date.now() >= deadline) return false;
      await kill();
    }
    return true;
  };
  const resumeIfBehind = () => {
    if (paused && queue.length < batchRows && queuedBytes < BATCH_BYTES) {
      paused = false;
      conn.resume();
    }
  };

  const start = () => {
    const cmd = conn.execute({ sql, values: values.map(bindValue), rowsAsArray: true });
    // A read is its first result set. A procedure's (CALL) ends with a status result set of
    // no fields, announced as `undefined`, which must not unset the read's.
    cmd.on("fields", (f: MysqlField[] | undefined) => {
      if (fields === undefined && Array.isArray(f)) fields = f;
      notify();
    });
    cmd.on("result", (row: unknown, index?: number) => {
      // A statement without a result set (DELETE, CREATE, SET, COMMIT) answers one OK packet
      // here, not a row, and so does a procedure after its rows: never a row for the converters.
      if (!Array.isArray(row) || (index ?? 0) > 0) return;
      if (discarding || failure !== undefined) return;
      rowsSeen++;
      // Wide rows: the queue is bounded by bytes as well as rows (BATCH_BYTES a batch), and a
      // value over the cell bound ends the read (`finish` stops the statement).
      let bytes: number;
      try {
        bytes = rowBytes(row as WireValue[], maxCellBytes, fields);
      } catch (error) {
        failure = error;
        notify();
        return;
      }
      queue.push(row as unknown[]);
      sizes.push(bytes);
      queuedBytes += bytes;
      if ((queue.length >= batchRows * 2 || queuedBytes >= 2 * BATCH_BYTES) && !paused) {
        paused = true;
        conn.pause();
      }
      if (queue.length >= batchRows || queuedBytes >= BATCH_BYTES) notify();
    });
    cmd.on("error", (error: unknown) => {
      failure = error;
      ended = true;
      notify();
    });
    cmd.on("end", () => {
      ended = true;
      notify();
    });
  };

  return {
    open: async () => {
      start();
      await waitFor(() => fields !== undefined || ended || signal?.aborted === true);
      if (signal?.aborted) throw signal.reason;
      if (failure !== undefined) throw failure;
      if (fields === undefined) throw noResultSet();
      const types = fields.map(fieldType);
      converters = types.map((t) => mysqlConverter(t.type));
      return {
        schema: fields.map((f, i) => ({
          name: f.name,
          type: types[i].type,
          source_type: types[i].source,
        })),
      };
    },

    next: async () => {
      resumeIfBehind();
      await waitFor(() =>
        queue.length >= batchRows || queuedBytes >= BATCH_BYTES || ended ||
        failure !== undefined || signal?.aborted === true
      );
      if (signal?.aborted) throw signal.reason;
      if (queue.length === 0) {
        if (failure !== undefined) throw failure;
        return undefined;
      }
      let take = 0;
      for (let bytes = 0; take < queue.length && take < batchRows; take++) {
        if (take > 0 && bytes + sizes[take] > BATCH_BYTES) break;
        bytes += sizes[take];
        queuedBytes -= sizes[take];
      }
      sizes.splice(0, take);
      const batch = queue.splice(0, take);
      resumeIfBehind();
      return batch.map((row) => row.map((v, i) => converters[i](v)));
    },

    cancel: () => {
      killing = kill();
      notify();
    },

    finish: async (error) => {
      // A statement that ran and answered no result set was no query (a SET, a DO): whatever it
      // changed on the session goes with the connection.
      let broken = ended && failure === undefined && fields === undefined;
      if (!ended) {
        // Broken off early: stop the statement on the server. A statement still computing (no
        // row yet, like a long SLEEP) ends at once and the connection is reused. One that was
        // sending rows leaves them in flight, and MariaDB keeps sending what it produced:
        // reading them off could take longer than opening a new connection, so it is closed.
        // The socket stays paused meanwhile: parsing rows nobody wants would starve the event
        // loop, the kill included.
        discarding = true;
        queue.length = 0;
        sizes.length = 0;
        queuedBytes = 0;
        if (rowsSeen > 0) conn.pause();
        killing ??= kill();
        broken = rowsSeen > 0 || !(await stopped());
      }
      await killing;
      if (!broken && (error !== undefined || killing !== undefined)) {
        broken = !(await server.validate(conn));
      }
      if (!broken && options.readOnly) {
        broken = !(await plain(conn, "ROLLBACK").then(() => true, () => false));
      }
      lease.release({ broken: broken || !(await releaseLocks(conn)) });
    },
  };
}
