/**
 * POSTGRES through the `postgres` package. Each pooled connection is a single-connection
 * postgres.js handle, so the pool of `pool.ts` (not the driver's) decides about size, lifetime and
 * validation, and a statement can be cancelled on the server by the driver's cancel request.
 *
 * Every socket write costs a system call that also runs the loopback TCP path, the dearest step
 * of a small read, so the read path is built to need few: statements are prepared, a result that
 * fits one batch is read without a cursor, and a read-only transaction is opened and closed in
 * the writes of the statements around it. Issue 13's read-only read is one write under load.
 */
import type postgres from "postgres";
import type { Logger } from "../../lib/log.ts";
import {
  bindValue,
  connectOnce,
  connectorPool,
  lossyWarning,
  probe,
  schemaRequired,
} from "./common.ts";
import { DEFAULT_BATCH_ROWS, openRead } from "./row_stream.ts";
import {
  type CatalogueRows,
  listSchemas,
  listTables,
  requireTable,
  withKeys,
} from "./catalogue.ts";
import type { Credential } from "./definition.ts";
import type { DriverOptions } from "./jdbc_url.ts";
import { type Lease, Pool, type PoolDriver } from "./pool.ts";
import type { PoolSettings } from "./pool_settings.ts";
import { numericTypmod, pgType } from "./postgres_types.ts";
import {
  type PgConn,
  type PgTarget,
  postgresDriver,
  postgresOptions,
  prepares,
  resetLeftOver,
  type RowGuard,
  rowGuard,
  SESSION_RESET,
  type SessionReset,
  STALE_PREPARED,
} from "./postgres_driver.ts";
import { translatePlaceholders } from "./placeholders.ts";
import { runWrite } from "./transaction.ts";
import { rowBound } from "./row_bound.ts";
import { BATCH_BYTES, BatchTooLarge, ValueTooLarge } from "./value_bounds.ts";
import {
  type ColumnInfo,
  type Connector,
  type QueryOptions,
  type RowStream,
  type Statement,
  type WireValue,
} from "./types.ts";

/** A result column as postgres.js describes it. */
type PgColumn = { name: string; type: number };

export class PostgresConnector implements Connector {
  readonly dialect = "POSTGRES" as const;
  readonly #pool: Pool<PgConn>;
  readonly #driver: PoolDriver<PgConn>;
  /** Connections back in the pool with their session reset still to send, until the sweep. */
  readonly #leftOver = new Set<PgConn>();
  #sweep: ReturnType<typeof setTimeout> | undefined;

  constructor(
    name: string,
    target: PgTarget,
    credential: Credential,
    options: DriverOptions,
    settings: PoolSettings,
    logger?: Logger,
  ) {
    const driverOptions = postgresOptions(target, credential, options, settings);
    this.#driver = postgresDriver(driverOptions);
    this.#pool = connectorPool(name, settings, this.#driver, logger);
  }

  get pool(): Pool<PgConn> {
    return this.#pool;
  }

  async query(statement: Statement, options: QueryOptions = {}): Promise<RowStream> {
    try {
      return await this.#read(statement, options);
    } catch (error) {
      // A prepared statement the session no longer has, or whose result shape changed (the
      // table behind `SELECT *` got a column): postgres.js has dropped it, and inside the failed
      // transaction its own re-run failed too. Nothing was served yet, so the read starts over.
      if (!STALE_PREPARED.has((error as { routine?: unknown })?.routine as string)) throw error;
      options.signal?.throwIfAborted();
      return await this.#read(statement, options);
    }
  }

  async #read(statement: Statement, options: QueryOptions): Promise<RowStream> {
    const { sql, values } = translatePlaceholders(statement.sql, statement.params, "postgres");
    const { signal, readOnly } = options;
    const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
    const lease = await this.#pool.acquire(signal);
    if (signal?.aborted) {
      lease.release();
      throw signal.reason;
    }
    const conn = lease.conn;
    // postgres.js sends what one tick queues on a connection in one socket write, in order, and
    // the server runs it in that order. So the previous user's session reset (see `finish`) and
    // BEGIN READ ONLY (under which a data-modifying CTE, SELECT INTO or a writing function
    // fails with 25006) cost no round trip of their own: the statement follows them in the same
    // packet and starts inside the transaction BEGIN opened. Either fails only with the session
    // itself (then so does what follows); their outcome is still checked below before a row is
    // handed on.
    const closing = resetLeftOver(conn);
    const begun = readOnly
      ? conn.sql.unsafe("BEGIN READ ONLY").then(() => undefined, (error) => ({ error }))
      : undefined;
    // Always the extended protocol: a text run as a simple query could hold several statements.
    const q = conn.sql.unsafe(sql, values.map(bindValue) as postgres.ParameterOrJSON<never>[], {
      simple: false,
      prepare: prepares(conn, sql),
    } as postgres.UnsafeQueryOptions).values();
    // A statement whose own LIMIT fits one batch is read whole: as a plain query it shares its
    // socket write and round trip with the BEGIN and ROLLBACK around it, where a cursor's Sync
    // (sent once the batch is in) and the ROLLBACK after it would take two more.
    // A plan is read whole too: it is small, and postgres.js's cursor delivers no row of one.
    const iterator = options.explain || (rowBound(statement.sql) ?? Infinity) <= batchRows
      ? undefined
      : q.cursor(batchRows)[Symbol.asyncIterator]();
    // Rows are measured as the driver builds them (postgres_driver.ts `RowGuard`); from the
    // second batch on, a cursor asks for as many rows as fit `BATCH_BYTES` at the width seen.
    const guard = conn.guard = rowGuard(options.maxCellBytes);
    guard.query = q as unknown as RowGuard["query"];
    let done = false;
    let driverFailed = false;
    const fetch = async (): Promise<WireValue[][] | undefined> => {
      try {
        if (!iterator) {
          done = true;
          return await q as unknown as WireValue[][];
        }
        if (guard.rows > 0) {
          const perRow = Math.max(1, guard.bytes / guard.rows);
          (q as unknown as { cursorRows: number }).cursorRows = Math.max(
            1,
            Math.min(batchRows, Math.floor(BATCH_BYTES / perRow)),
          );
        }
        guard.bytes = guard.rows = 0;
        // postgres.js answers a plain `{done: true}` (not a promise) once the query has already
        // completed, which happens when every row fit in the previous batch.
        const r = await iterator.next();
        if (r.done) {
          done = true;
          return undefined;
        }
        return r.value as unknown as WireValue[][];
      } catch (error) {
        driverFailed = true;
        throw error;
      }
    };
    let cancelling: Promise<unknown> | undefined;
    return await openRead({
      open: async () => {
        conn.running = q;
        // Queued in this tick, after BEGIN: a cursor is queued by its first `fetch()`, a plain
        // query by `execute()` (`await` would take its `then` a microtask late).
        if (!iterator) q.execute();
        const first = await fetch().finally(async () => {
          const failed = await closing === false
            ? { error: new Error("the session reset after the previous use failed") }
            : await begun;
          if (failed) {
            // Nothing ran inside a read-only transaction: no row of it is served, and the
            // session proves itself (in `finish`) before anyone reuses it.
            driverFailed = true;
            throw failed.error;
          }
        });
        const columns = (q as unknown as { statement?: { columns?: PgColumn[] } }).statement
          ?.columns ?? [];
        const schema = columns.map((c) => {
          const t = pgType(c.type);
          return { name: c.name, type: t.wire, source_type: t.name };
        });
        return { schema, first: first ?? [] };
      },
      next: () => done ? Promise.resolve(undefined) : fetch(),
      cancel: () => {
        cancelling = Promise.resolve(q.cancel()).catch(() => {});
      },
      finish: async (error) => {
        conn.running = undefined;
        if (conn.guard === guard) conn.guard = undefined;
        // Broken off early (or aborted between batches): close the portal so the connection is
        // free again. A statement that failed in the driver has no portal left to close.
        if (!done && !driverFailed) await iterator?.return?.();
        await cancelling;
        const failed = error !== undefined || cancelling !== undefined;
        const reset = readOnly ? SESSION_RESET.readOnly : SESSION_RESET.full;
        if (!failed) {
          // The session reset (the read-only transaction's ROLLBACK first) is never queued
          // behind the statement while it may still run: postgres.js runs a prepared statement
          // again when the server lost it or its result shape changed, at the back of what it
          // has sent, and behind a ROLLBACK that re-run would be outside the read-only
          // transaction.
          this.#releaseLeftOver(lease, reset);
          return;
        }
        if (error instanceof ValueTooLarge || error instanceof BatchTooLarge) {
          // Refused inside the driver mid-batch: the server may still be sending the rest of it.
          // Closing the connection ends the statement there and leaves no half-read protocol.
          lease.release({ broken: true });
          return;
        }
        // After a failure or a cancel the connection proves itself before anyone reuses it.
        const clean = await conn.sql.unsafe(reset).then(() => true, () => false);
        const broken = !clean ||
          !(await this.#driver.validate(conn, this.#pool.settings.validationTimeout));
        lease.release({ broken });
      },
    }, options);
  }

  /**
   * Gives a connection author SQL ran on back with `reset` still to send: it leaves in the same
   * socket write as the next user's statement, or, when nobody takes the connection within this
   * turn of the event loop, on its own (the sweep). Either way before anyone else runs a
   * statement on it, and a lock it held is free again within the turn.
   */
  #releaseLeftOver(lease: Lease<PgConn>, reset: SessionReset): void {
    lease.conn.leftOver = reset;
    this.#leftOver.add(lease.conn);
    this.#sweep ??= setTimeout(() => this.#resetLeftOver(), 0);
    lease.release();
  }

  /** Sends the session resets of connections nobody took since their release. */
  #resetLeftOver(): void {
    this.#sweep = undefined;
    for (const conn of this.#leftOver) void resetLeftOver(conn);
    this.#leftOver.clear();
  }

  async write(statements: Statement[], options: { signal?: AbortSignal } = {}) {
    const prepared = statements.map((s) => translatePlaceholders(s.sql, s.params, "postgres"));
    const lease = await this.#pool.acquire(options.signal);
    const conn = lease.conn;
    return await runWrite(prepared, {
      begin: async () => {
        // The previous user's session reset leaves in the same socket write as BEGIN.
        const [closed] = await Promise.all([resetLeftOver(conn) ?? true, conn.sql.unsafe("BEGIN")]);
        if (!closed) throw new Error("the session reset after the previous use failed");
      },
      run: async ({ sql, values }) => {
        const q = conn.sql.unsafe(sql, values.map(bindValue) as postgres.ParameterOrJSON<never>[]);
        conn.running = q;
        const { count } = await q;
        conn.running = undefined;
        return count ?? null;
      },
      commit: () => conn.sql.unsafe("COMMIT"),
      rollback: () => {
        conn.running = undefined;
        return conn.sql.unsafe("ROLLBACK").then(() => true, () => false);
      },
      cancel: () => void Promise.resolve(conn.running?.cancel()).catch(() => {}),
      release: (clean) =>
        clean ? this.#releaseLeftOver(lease, SESSION_RESET.full) : lease.release({ broken: true }),
    }, options.signal);
  }

  test: Connector["test"] = () =>
    probe(async () => {
      const conn = await connectOnce(this.#driver, this.#pool.settings.connectionTimeout);
      try {
        const [row] = await conn.sql.unsafe("SELECT current_setting('server_version') AS v");
        return String(row.v);
      } finally {
        await conn.sql.end({ timeout: 0 });
      }
    });

  /** The connector's own catalogue reads (fixed SQL, bound names). */
  #rows: CatalogueRows = (text, params) => {
    const { sql, values } = translatePlaceholders(text, params, "postgres");
    return this.#pool.use(async (conn) => {
      void resetLeftOver(conn);
      return await conn.sql.unsafe(sql, values as postgres.ParameterOrJSON<never>[]).values();
    });
  };

  schemas: Connector["schemas"] = (options) => listSchemas("POSTGRES", this.#rows, options);
  tables: Connector["tables"] = (options) => listTables("POSTGRES", this.#rows, options);

  async columns(table: string, schema?: string): Promise<ColumnInfo[]> {
    const resolved = schema ?? (await this.currentSchema()) ?? schemaRequired();
    // A table without columns is one row of NULLs here; no row at all is no table.
    const rows = await this.#rows(
      `SELECT a.attname, COALESCE(NULLIF(t.typbasetype, 0), t.oid)::int AS type_oid,
              t.typcategory, t.typtype, format_type(a.atttypid, a.atttypmod) AS source_type,
              CASE WHEN t.typbasetype <> 0 THEN t.typtypmod ELSE a.atttypmod END AS typmod,
              a.attnotnull OR t.typnotnull AS notnull,
              col_description(c.oid, a.attnum) AS remarks
         FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
         LEFT JOIN pg_type t ON t.oid = a.atttypid
        WHERE n.nspname = :schema AND c.relname = :table AND c.relkind IN ('r', 'p', 'f', 'v', 'm')
        ORDER BY a.attnum`,
      { schema: resolved, table },
    ) as [string | null, number, string, string, string, number, boolean, string | null][];
    if (rows.length === 0) await requireTable(this, table, resolved);
    return await withKeys(
      "POSTGRES",
      this.#rows,
      { schema: resolved, table },
      rows.filter(([name]) => name !== null).map(
        ([name, typeOid, category, typtype, sourceType, typmod, notnull, remarks]) => {
          const known = pgType(typeOid);
          // Arrays, enums, ranges and composites have no OID of their own in the map.
          const wire = category === "A" || typtype !== "b" && typtype !== "d"
            ? "string" as const
            : known.wire;
          // An enum reads as its label, which loses nothing.
          const lossy = wire === "string" &&
            (category === "A" || ["c", "r", "m"].includes(typtype) ||
              (["b", "d"].includes(typtype) && known.lossy === true));
          return {
            name: name!,
            type: wire,
            source_type: sourceType,
            nullable: !notnull,
            ...(wire === "decimal" ? numericTypmod(typmod) : {}),
            warnings: lossy ? [lossyWarning(sourceType)] : [],
            ...(remarks ? { remarks } : {}),
          };
        },
      ),
    );
  }

  async currentSchema(): Promise<string | null> {
    const [[name]] = await this.#rows("SELECT current_schema()", {});
    return name === null ? null : String(name);
  }

  close(deadline?: Date): Promise<void> {
    clearTimeout(this.#sweep);
    this.#resetLeftOver();
    return this.#pool.close(deadline);
  }
}
