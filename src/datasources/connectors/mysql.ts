/**
 * MYSQL (MySQL and MariaDB) through `mysql2`. Statements run as server-side prepared statements
 * (`execute`), so values travel apart from the SQL text; rows stream with the socket paused while
 * the consumer is behind. A cancel is `KILL QUERY` sent from a second connection, which stops the
 * statement on the server and leaves the pooled connection usable.
 */
import mysql from "mysql2";
import type { Logger } from "../../lib/log.ts";
import {
  bindValue,
  connectorPool,
  DEFAULT_BATCH_ROWS,
  lossyWarning,
  probe,
  rowStream,
  schemaRequired,
} from "./common.ts";
import { type CatalogueRows, listSchemas, listTables, requireTable } from "./catalogue.ts";
import type { Credential } from "./definition.ts";
import type { DriverOptions } from "./jdbc_url.ts";
import {
  type Conn,
  hardClose,
  mysqlOptions,
  type MysqlTarget,
  plain,
  releaseLocks,
  resetSession,
  run,
  setUpSession,
} from "./mysql_driver.ts";
import { dataType, fieldType, mysqlConverter, type MysqlField } from "./mysql_types.ts";
import { translatePlaceholders } from "./placeholders.ts";
import { BATCH_BYTES, rowBytes } from "./value_bounds.ts";
import { Pool, type PoolDriver } from "./pool.ts";
import type { PoolSettings } from "./pool_settings.ts";
import {
  type ColumnInfo,
  type Connector,
  type QueryOptions,
  type RowStream,
  type Statement,
  type TestOutcome,
  type WireValue,
  WriteError,
  type WriteOutcome,
} from "./types.ts";

/** How long a cancelled statement may run on before its kill is sent again. */
const KILL_RETRY_MS = 500;

/** A read that returned no result set, worded as a server error would be. */
function noResultSet(): Error {
  return Object.assign(
    new Error("the statement returned no result set; a read must be a query that returns rows"),
    { code: "ER_NO_RESULT_SET" },
  );
}

export class MysqlConnector implements Connector {
  readonly dialect = "MYSQL" as const;
  readonly #pool: Pool<Conn>;
  readonly #driver: PoolDriver<Conn>;
  readonly #options: mysql.ConnectionOptions;

  constructor(
    name: string,
    target: MysqlTarget,
    credential: Credential,
    options: DriverOptions,
    settings: PoolSettings,
    logger?: Logger,
  ) {
    const connOptions = mysqlOptions(target, credential, options, settings);
    this.#options = connOptions;
    this.#driver = {
      connect: (signal) =>
        new Promise<Conn>((resolve, reject) => {
          const conn = mysql.createConnection(connOptions);
          const abort = () => {
            conn.destroy();
            reject(new Error("connect aborted at connectionTimeout"));
          };
          signal.addEventListener("abort", abort, { once: true });
          conn.connect((error) => {
            signal.removeEventListener("abort", abort);
            if (error) {
              conn.destroy();
              reject(error);
            } else {
              // A connection error after connect would otherwise be an uncaught exception.
              conn.on("error", () => {});
              setUpSession(conn).then(() => resolve(conn), reject);
            }
          });
        }),
      validate: async (conn, timeoutMs) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        try {
          return await Promise.race([
            plain(conn, "SELECT 1").then(() => true, () => false),
            new Promise<boolean>((
              resolve,
            ) => (timer = setTimeout(() => resolve(false), timeoutMs))),
          ]);
        } finally {
          clearTimeout(timer);
        }
      },
      close: async (conn) => {
        // The socket goes at once: a statement still sending rows stops when its write fails.
        // The kill (its own connection, slow on a loaded server) is for one still computing,
        // and needs only the thread id, so it runs alongside rather than before.
        const killing = this.#kill(conn).catch(() => {});
        hardClose(conn);
        await killing;
      },
    };
    this.#pool = connectorPool(name, settings, this.#driver, logger);
  }

  get pool(): Pool<Conn> {
    return this.#pool;
  }

  /** Stops whatever `conn` is running, from a second connection (MySQL has no in-band cancel). */
  async #kill(conn: Conn): Promise<void> {
    const killer = mysql.createConnection({ ...this.#options, connectTimeout: 5000 });
    killer.on("error", () => {});
    try {
      await new Promise<void>((resolve, reject) =>
        killer.connect((e) => (e ? reject(e) : resolve()))
      );
      await plain(killer, `KILL QUERY ${Number(conn.threadId)}`);
    } finally {
      killer.destroy();
    }
  }

  async query(statement: Statement, options: QueryOptions = {}): Promise<RowStream> {
    const { sql, values } = translatePlaceholders(statement.sql, statement.params, "mysql");
    const signal = options.signal;
    const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
    const maxCellBytes = options.maxCellBytes ?? Infinity;
    const lease = await this.#pool.acquire(signal);
    const conn = lease.conn;
    if (options.readOnly) {
      // The engine's own rule (error 1792 on a write); ROLLBACK in `finish` ends it.
      try {
        await plain(conn, "START TRANSACTION READ ONLY");
      } catch (error) {
        lease.release({ broken: true });
        throw error;
      }
    }
    const queue: unknown[][] = [];
    const sizes: number[] = [];
    let queuedBytes = 0;
    let ended = false;
    let failure: unknown;
    let paused = false;
    let discarding = false;
    let rowsSeen = 0;
    let wake: (() => void) | undefined;
    let fields: MysqlField[] | undefined;
    const notify = () => {
      wake?.();
      wake = undefined;
    };
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
    let killing: Promise<void> | undefined;
    const onAbort = () => {
      killing = this.#kill(conn).catch(() => {});
      notify();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const waitFor = (ready: () => boolean) =>
      new Promise<void>((resolve) => {
        if (ready()) resolve();
        else wake = resolve;
      });

    const resumeIfBehind = () => {
      if (paused && queue.length < batchRows && queuedBytes < BATCH_BYTES) {
        paused = false;
        conn.resume();
      }
    };
    const next = async (): Promise<unknown[][] | undefined> => {
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
      return batch;
    };
    let finished = false;
    const finish = async (error?: unknown) => {
      if (finished) return;
      finished = true;
      signal?.removeEventListener("abort", onAbort);
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
        killing ??= this.#kill(conn).catch(() => {});
        broken = rowsSeen > 0 || !(await stopped());
      }
      await killing;
      if (!broken && (error !== undefined || killing !== undefined)) {
        broken = !(await this.#driver.validate(conn, this.#pool.settings.validationTimeout));
      }
      if (!broken && options.readOnly) {
        broken = !(await plain(conn, "ROLLBACK").then(() => true, () => false));
      }
      lease.release({ broken: broken || !(await releaseLocks(conn)) });
    };
    // A statement is prepared, then executed: a kill landing between the two finds nothing to
    // stop, and the execute runs on. So it is sent again until the statement ends, or the
    // connection is given up as broken.
    const stopped = async () => {
      const deadline = Date.now() + this.#pool.settings.validationTimeout;
      await killing;
      while (!(await waitUntil(() => ended, Math.min(KILL_RETRY_MS, deadline - Date.now())))) {
        if (Date.now() >= deadline) return false;
        await this.#kill(conn).catch(() => {});
      }
      return true;
    };
    const waitUntil = async (ready: () => boolean, ms: number) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
      await Promise.race([waitFor(ready), timeout]);
      clearTimeout(timer);
      return ready();
    };
    try {
      await waitFor(() => fields !== undefined || ended || signal?.aborted === true);
      if (signal?.aborted) throw signal.reason;
      if (failure !== undefined) throw failure;
      if (fields === undefined) throw noResultSet();
    } catch (error) {
      await finish(error);
      throw error;
    }
    const types = (fields ?? []).map(fieldType);
    const converters = types.map((t) => mysqlConverter(t.type));
    const convert = (rows: unknown[][]): WireValue[][] =>
      rows.map((row) => row.map((v, i) => converters[i](v)));
    const schema = (fields ?? []).map((f, i) => ({
      name: f.name,
      type: types[i].type,
      source_type: types[i].source,
    }));
    return rowStream(schema, {
      next: async () => {
        const rows = await next();
        return rows && convert(rows);
      },
      finish,
    }, options);
  }

  async write(
    statements: Statement[],
    options: { signal?: AbortSignal } = {},
  ): Promise<WriteOutcome> {
    const prepared = statements.map((s) => translatePlaceholders(s.sql, s.params, "mysql"));
    const lease = await this.#pool.acquire(options.signal);
    const conn = lease.conn;
    const rows_affected: (number | null)[] = [];
    const onAbort = () => void this.#kill(conn).catch(() => {});
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await plain(conn, "START TRANSACTION");
      for (const { sql, values } of prepared) {
        options.signal?.throwIfAborted();
        const result = await run(conn, sql, values) as unknown as { affectedRows?: number };
        rows_affected.push(typeof result?.affectedRows === "number" ? result.affectedRows : null);
      }
      options.signal?.throwIfAborted();
      await plain(conn, "COMMIT");
      lease.release({ broken: !(await resetSession(conn)) });
      return { committed: true, rolled_back: false, rows_affected };
    } catch (error) {
      const rolledBack = await plain(conn, "ROLLBACK").then(() => true, () => false);
      lease.release({ broken: !rolledBack || !(await resetSession(conn)) });
      throw WriteError.afterRollback(rolledBack, rows_affected, error, options.signal);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  test(): Promise<TestOutcome> {
    return probe(async () => {
      const controller = new AbortController();
      const timeout = this.#pool.settings.connectionTimeout;
      const timer = setTimeout(() => controller.abort(), timeout);
      let conn: Conn | undefined;
      try {
        conn = await Promise.race([
          this.#driver.connect(controller.signal),
          new Promise<never>((_, reject) =>
            controller.signal.addEventListener(
              "abort",
              () => reject(new Error(`connect timed out after ${timeout} ms`)),
            )
          ),
        ]);
        const [[version]] = await run(conn, "SELECT VERSION()") as string[][];
        return version;
      } finally {
        clearTimeout(timer);
        conn?.destroy();
      }
    });
  }

  /** The connector's own catalogue reads (fixed SQL, bound names). */
  #rows: CatalogueRows = (sql, params) => {
    const t = translatePlaceholders(sql, params, "mysql");
    return this.#pool.use(async (conn) => await run(conn, t.sql, t.values) as unknown[][]);
  };

  schemas: Connector["schemas"] = (options) => listSchemas("MYSQL", this.#rows, options);
  tables: Connector["tables"] = (options) => listTables("MYSQL", this.#rows, options);

  async columns(table: string, schema?: string): Promise<ColumnInfo[]> {
    const resolved = schema ?? (await this.currentSchema()) ?? schemaRequired();
    const rows = await this.#rows(
      `SELECT c.COLUMN_NAME, c.DATA_TYPE, c.COLUMN_TYPE, c.IS_NULLABLE, c.NUMERIC_PRECISION,
              c.NUMERIC_SCALE, c.COLUMN_COMMENT,
              EXISTS (SELECT 1 FROM information_schema.CHECK_CONSTRAINTS k
                       WHERE k.CONSTRAINT_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME
                         AND k.CHECK_CLAUSE LIKE CONCAT('json\\_valid(\`', c.COLUMN_NAME, '\`)')) AS is_json
         FROM information_schema.COLUMNS c
        WHERE BINARY c.TABLE_SCHEMA = :schema AND BINARY c.TABLE_NAME = :table
        ORDER BY c.ORDINAL_POSITION`,
      { schema: resolved, table },
    );
    // No columns: no such table, or none the account may see.
    if (rows.length === 0) await requireTable(this, table, resolved);
    return rows.map(
      ([name, dataTypeName, columnType, nullable, precision, scale, comment, isJson]) => {
        // MariaDB's JSON is LONGTEXT with a json_valid() check it adds itself.
        const { type, lossy } = Number(isJson) === 1
          ? { type: "json" as const, lossy: false }
          : dataType(String(dataTypeName), String(columnType));
        return {
          name: String(name),
          type,
          source_type: Number(isJson) === 1 ? "json" : String(columnType),
          nullable: nullable === "YES",
          ...(type === "decimal" && precision !== null
            ? { precision: Number(precision), scale: Number(scale ?? 0) }
            : {}),
          warnings: lossy ? [lossyWarning(String(columnType))] : [],
          ...(comment ? { remarks: String(comment) } : {}),
        };
      },
    );
  }

  async currentSchema(): Promise<string | null> {
    const [[name]] = await this.#rows("SELECT DATABASE()", {});
    return name === null ? null : String(name);
  }

  close(deadline?: Date): Promise<void> {
    return this.#pool.close(deadline);
  }
}
