/**
 * The mysql2 side of the MYSQL connector: connection options from a parsed `jdbc_url` (local
 * file loading and multi-statements off, whatever the server offers) and callback-to-promise
 * helpers.
 */
import mysql from "mysql2";
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
 * Frees the named locks (`GET_LOCK`) author SQL took on `conn`, before the pool hands it to
 * anyone: they belong to the session and outlive a ROLLBACK, so the connection's next user would
 * hold them and everyone else would wait. `RELEASE_ALL_LOCKS()` is MySQL 5.7 and MariaDB 10.5 on;
 * false (the connection is then closed, which frees them) where it failed or does not exist.
 * Other session state (user variables, settings) stays: COM_RESET_CONNECTION would clear it but
 * also the statements mysql2 has prepared and the session's UTC time zone, a prepare and a
 * round trip more on every read.
 */
export function releaseLocks(conn: Conn): Promise<boolean> {
  return plain(conn, "DO RELEASE_ALL_LOCKS()").then(() => true, () => false);
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
