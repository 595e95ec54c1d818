/**
 * MYSQL (MySQL and MariaDB) through `mysql2`. Statements run as server-side prepared statements
 * (`execute`), so values travel apart from the SQL text; rows stream with the socket paused while
 * the consumer is behind. A cancel is `KILL QUERY` sent from a second connection, which stops the
 * statement on the server and leaves the pooled connection usable.
 */
import type mysql from "mysql2";
import { withTimeout } from "../../lib/deadline.ts";
import type { Logger } from "../../lib/log.ts";
import { connectOnce, connectorPool, lossyWarning, probe, schemaRequired } from "./common.ts";
import {
  type CatalogueRows,
  listSchemas,
  listTables,
  requireTable,
  withKeys,
} from "./catalogue.ts";
import type { Credential } from "./definition.ts";
import type { DriverOptions } from "./jdbc_url.ts";
import {
  type Conn,
  hardClose,
  mysqlOptions,
  type MysqlTarget,
  plain,
  resetSession,
  run,
  setUpSession,
} from "./mysql_driver.ts";
import { mysqlRead, type MysqlServer } from "./mysql_read.ts";
import { dataType } from "./mysql_types.ts";
import { translatePlaceholders } from "./placeholders.ts";
import { runWrite } from "./transaction.ts";
import { openRead } from "./row_stream.ts";
import { Pool, type PoolDriver } from "./pool.ts";
import type { PoolSettings } from "./pool_settings.ts";
import {
  type ColumnInfo,
  type Connector,
  type QueryOptions,
  type RowStream,
  type Statement,
} from "./types.ts";

/** mysql2, loaded with the first connection: most instances never open a MySQL pool. */
let loaded: Promise<typeof mysql> | undefined;
const driver = () => loaded ??= import("mysql2").then((m) => m.default);

export class MysqlConnector implements Connector {
  readonly dialect = "MYSQL" as const;
  readonly #pool: Pool<Conn>;
  readonly #driver: PoolDriver<Conn>;
  readonly #options: mysql.ConnectionOptions;
  readonly #server: MysqlServer;

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
      connect: async (signal) => {
        const mysql = await driver();
        signal.throwIfAborted(); // aborted while the driver loaded: no listener would see it
        return await new Promise<Conn>((resolve, reject) => {
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
        });
      },
      validate: (conn, timeoutMs) =>
        withTimeout(plain(conn, "SELECT 1"), timeoutMs, "validation").then(() => true, () => false),
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
    this.#server = {
      kill: (conn) => this.#kill(conn),
      validate: (conn) => this.#driver.validate(conn, settings.validationTimeout),
      validationTimeout: settings.validationTimeout,
    };
  }

  get pool(): Pool<Conn> {
    return this.#pool;
  }

  /** Stops whatever `conn` is running, from a second connection (MySQL has no in-band cancel). */
  async #kill(conn: Conn): Promise<void> {
    const killer = (await driver()).createConnection({ ...this.#options, connectTimeout: 5000 });
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
    const translated = translatePlaceholders(statement.sql, statement.params, "mysql");
    const lease = await this.#pool.acquire(options.signal);
    if (options.readOnly) {
      // The engine's own rule (error 1792 on a write); ROLLBACK in `finish` ends it.
      try {
        await plain(lease.conn, "START TRANSACTION READ ONLY");
      } catch (error) {
        lease.release({ broken: true });
        throw error;
      }
    }
    return await openRead(mysqlRead(lease, translated, options, this.#server), options);
  }

  async write(statements: Statement[], options: { signal?: AbortSignal } = {}) {
    const prepared = statements.map((s) => translatePlaceholders(s.sql, s.params, "mysql"));
    const lease = await this.#pool.acquire(options.signal);
    const conn = lease.conn;
    return await runWrite(prepared, {
      begin: () => plain(conn, "START TRANSACTION"),
      run: async ({ sql, values }) => {
        const result = await run(conn, sql, values) as unknown as { affectedRows?: number };
        return typeof result?.affectedRows === "number" ? result.affectedRows : null;
      },
      commit: () => plain(conn, "COMMIT"),
      rollback: () => plain(conn, "ROLLBACK").then(() => true, () => false),
      cancel: () => void this.#kill(conn).catch(() => {}),
      // Whatever the SQL left on the session (settings, variables, locks) ends here.
      release: async (clean) => lease.release({ broken: !clean || !(await resetSession(conn)) }),
    }, options.signal);
  }

  test: Connector["test"] = () =>
    probe(async () => {
      const conn = await connectOnce(this.#driver, this.#pool.settings.connectionTimeout);
      try {
        const [[version]] = await run(conn, "SELECT VERSION()") as string[][];
        return version;
      } finally {
        conn.destroy();
      }
    });

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
    return await withKeys(
      "MYSQL",
      this.#rows,
      { schema: resolved, table },
      rows.map(
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
      ),
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
