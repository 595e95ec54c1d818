/**
 * The mysql2 side of the MYSQL connector: connection options from a parsed `jdbc_url` (local
 * file loading and multi-statements off, whatever the server offers) and callback-to-promise
 * helpers.
 */
import type mysql from "mysql2";
import { bindValue } from "./common.ts";
import type { Credential } from "./definition.ts";
import type { DriverOptions, JdbcTarget } from "./jdbc_url.ts";
import type { PoolSettings } from "./pool_settings.ts";

export type MysqlTarget = Extract<JdbcTarget, { dialect: "MYSQL" }>;
export type Conn = mysql.Connection;

export function mysqlOptions(
  target: MysqlTarget,
  credential: Credential,
  options: DriverOptions,
  settings: PoolSettings,
): mysql.ConnectionOptions {
  const sslMode = options.sslMode ??
    (options.ssl === "true" || options.useSSL === "true" ? "REQUIRED" : "DISABLED");
  return {
    host: target.host,
    port: target.port,
    database: target.database ?? undefined,
    user: credential.username ?? "root",
    password: credential.kind === "none" ? undefined : credential.secret ?? undefined,
    connectTimeout: Math.min(
      settings.connectionTimeout,
      Number(options.connectTimeout ?? Infinity),
    ),
    ssl: sslMode === "DISABLED" || sslMode === "PREFERRED"
      ? undefined
      : { rejectUnauthorized: sslMode === "VERIFY_CA" || sslMode === "VERIFY_IDENTITY" },
    charset: "utf8mb4",
    timezone: "Z",
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    rowsAsArray: true,
    multipleStatements: false,
    flags: ["-LOCAL_FILES", "-MULTI_STATEMENTS"],
    // Never read client files, whatever the server asks for.
    infileStreamFactory: () => {
      throw new Error("LOAD DATA LOCAL is disabled");
    },
    ...({ jsonStrings: true } as object),
  };
}

export function run(conn: Conn, sql: string, values: unknown[] = []): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    conn.execute({ sql, values: values.map(bindValue), rowsAsArray: true }, (error, rows) => {
      if (error) reject(error);
      else resolve(rows as unknown[]);
    });
  });
}

export function plain(conn: Conn, sql: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    conn.query(sql, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * What every session starts with: TIMESTAMP values are read in UTC.
 */
export function setUpSession(conn: Conn): Promise<unknown> {
  return plain(conn, "SET time_zone = '+00:00'");
}

/**
 * Frees the named locks (`GET_LOCK`) a read took on `conn`, before the pool hands it to anyone:
 * they belong to the session and outlive a ROLLBACK, so the connection's next user would hold
 * them and everyone else would wait. `RELEASE_ALL_LOCKS()` is MySQL 5.7 and MariaDB 10.5 on;
 * false (the connection is then closed, which frees them) where it failed or does not exist.
 * A query cannot change much else (user variables); a read that was no query (a SET) closes its
 * connection instead. `resetSession` would clear it all, but also the statements mysql2 has
 * prepared: a prepare and two round trips more on every read.
 */
export function releaseLocks(conn: Conn): Promise<boolean> {
  return plain(conn, "DO RELEASE_ALL_LOCKS()").then(() => true, () => false);
}

/**
 * Ends the session state a write's SQL (any statement) may have left: COM_RESET_CONNECTION rolls
 * back and drops locks, temporary tables, user variables, prepared statements (mysql2 forgets its
 * own) and session settings; the session's own setting is then made again. False where either
 * failed (the connection is then closed).
 */
export async function resetSession(conn: Conn): Promise<boolean> {
  try {
    await new Promise<void>((resolve, reject) => conn.reset((e) => (e ? reject(e) : resolve())));
    await setUpSession(conn);
    return true;
  } catch {
    return false;
  }
}

/**
 * Closes `conn` for real. mysql2's `destroy()` only half-closes (`stream.end()`): a socket paused
 * mid-result keeps its read side open, so the server stays blocked "Writing to net" until its
 * `net_write_timeout` (60 s). Destroying the socket with unread data resets the connection, and
 * the server's next write fails at once.
 */
export function hardClose(conn: Conn): void {
  conn.destroy();
  (conn as unknown as { stream?: { destroy(): void } }).stream?.destroy();
}
