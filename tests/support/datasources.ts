/**
 * Fixtures for connector tests: fresh databases on the real servers, connector configs for them,
 * and the connect timeout against a hanging server.
 */
import { deepEqual, ok } from "node:assert/strict";
import mysql from "mysql2/promise";
import { AppError } from "../../src/errors/mod.ts";
import { makeDuckdbFile, makeSqliteFile } from "../../src/datasources/connectors/test_fixtures.ts";
import type { Connector, RowStream, WireValue } from "../../src/datasources/connectors/types.ts";
import { connectorConfig, openConnector } from "../../src/datasources/mod.ts";
import postgres from "postgres";
import type { MysqlConnector } from "../../src/datasources/connectors/mysql.ts";
import type { PostgresConnector } from "../../src/datasources/connectors/postgres.ts";
import { assertServices, MARIADB_URL, skipUnless } from "./services.ts";
import { freshPostgresDatabase } from "./stores.ts";
import { hangingServer } from "./tcp_proxy.ts";

export { connectorConfig };

/** Creates an empty MariaDB database; `drop()` removes it. */
export async function freshMariaDatabase(): Promise<
  { name: string; url: string; drop(): Promise<void> }
> {
  assertServices("mariadb");
  const name = `svc_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = await mariaAdmin();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(MARIADB_URL);
  return {
    name,
    url: `jdbc:mariadb://${url.hostname}:${url.port || 3306}/${name}`,
    async drop() {
      const a = await mariaAdmin();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name}`);
      } finally {
        await a.end();
      }
    },
  };
}

/** An administrative MariaDB connection (root) for fixtures and for watching the server. */
export function mariaAdmin(database?: string): Promise<mysql.Connection> {
  const url = new URL(MARIADB_URL);
  return mysql.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || "root"),
    password: decodeURIComponent(url.password),
    database,
    multipleStatements: true,
  });
}

/** `postgres://…/db` as the jdbc_url form. */
export function pgJdbcUrl(url: string): string {
  const u = new URL(url);
  return `jdbc:postgresql://${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/**
 * A connector of `dialect` on a fresh database file made by `setup` (SQL), pool settings
 * `hikari`; closed, and the file removed, after `fn`.
 */
export async function withFileConnector<C extends Connector>(
  dialect: "SQLITE" | "DUCKDB",
  setup: string,
  fn: (c: C, path: string) => Promise<void>,
  hikari: Record<string, unknown> = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: `svc_${dialect.toLowerCase()}_` });
  const path = `${dir}/data.${dialect === "SQLITE" ? "db" : "duckdb"}`;
  if (dialect === "SQLITE") makeSqliteFile(path, setup);
  else await makeDuckdbFile(path, setup);
  const url = `jdbc:${dialect.toLowerCase()}:${path}`;
  const c = openConnector(connectorConfig(dialect, url, { hikari })) as C;
  try {
    await fn(c, path);
  } finally {
    await c.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The tests of one embedded connector: each `[dialect] name` runs `fn` with a connector on a fresh
 * file that `setup` makes (see `withFileConnector`), its pool set by `hikari`.
 */
export function fileConnectorTest<C extends Connector>(
  dialect: "SQLITE" | "DUCKDB",
  setup: string,
): (
  name: string,
  fn: (c: C, path: string) => Promise<void>,
  hikari?: Record<string, unknown>,
) => void {
  return (name, fn, hikari = {}) =>
    Deno.test(`[${dialect.toLowerCase()}] ${name}`, () =>
      withFileConnector(dialect, setup, fn, hikari));
}

/** Every batch of a stream, and the rows flattened. */
export async function drain(
  stream: RowStream,
): Promise<{ batches: number[]; rows: WireValue[][] }> {
  const batches: number[] = [];
  const rows: WireValue[][] = [];
  for await (const batch of stream) {
    batches.push(batch.length);
    for (const row of batch) rows.push(row);
  }
  return { batches, rows };
}

/**
 * A `dialect` connector at `urlFor(port)` of a server that never answers, with a 300 ms
 * connection timeout: a read fails as a timeout within it, and `test()` says timeout. `then`
 * runs against the same server before it closes.
 */
export async function assertConnectTimesOut(
  dialect: "POSTGRES" | "MYSQL",
  urlFor: (port: number) => string,
  then: (port: number) => Promise<void> = () => Promise.resolve(),
): Promise<void> {
  const server = hangingServer();
  const c = openConnector(
    connectorConfig(dialect, urlFor(server.port), { hikari: { connectionTimeout: 300 } }),
  );
  try {
    const started = Date.now();
    const error = await c.query({ sql: "SELECT 1" }).catch((e) => e);
    const took = Date.now() - started;
    ok(error instanceof AppError, String(error));
    deepEqual([error.code, error.details.error_class], [
      "pipeline.execution.datasource_unreachable",
      "timeout",
    ]);
    ok(took >= 290 && took < 5000, `took ${took} ms`);
    const outcome = await c.test();
    deepEqual([outcome.connected, outcome.error_class], [false, "timeout"]);
    await then(server.port);
  } finally {
    await c.close();
    await server.close();
  }
}

/**
 * One connector test on a server: `open` makes a fresh database with a connector and an admin
 * handle on it; the connector, the handle and the database all go afterwards, whatever the test did.
 */
function serverConnectorTest<T extends { c: Connector; admin: { end(): Promise<unknown> } }>(
  server: "postgres" | "mariadb",
  name: string,
  open: () => Promise<{ ctx: T; drop(): Promise<void> }>,
  fn: (ctx: T) => Promise<void>,
) {
  Deno.test({
    name: `[${server}] ${name}`,
    ignore: skipUnless(server),
    async fn() {
      const { ctx, drop } = await open();
      try {
        await fn(ctx);
      } finally {
        await ctx.c.close();
        await ctx.admin.end();
        await drop();
      }
    },
  });
}

/** A POSTGRES connector test: a fresh database, a connector on it and an admin handle. */
export function pgConnectorTest(
  name: string,
  fn: (ctx: { c: PostgresConnector; admin: postgres.Sql; url: string }) => Promise<void>,
  hikari: Record<string, unknown> = {},
) {
  serverConnectorTest("postgres", name, async () => {
    const db = await freshPostgresDatabase();
    const admin = postgres(db.url, { max: 2, onnotice: () => {} });
    const c = openConnector(connectorConfig("POSTGRES", pgJdbcUrl(db.url), { hikari }));
    return { ctx: { c: c as PostgresConnector, admin, url: db.url }, drop: () => db.drop() };
  }, fn);
}

/** A MYSQL connector test: a fresh MariaDB database, a connector on it (as root) and an admin handle. */
export function mariaConnectorTest(
  name: string,
  fn: (ctx: { c: MysqlConnector; admin: mysql.Connection; db: string }) => Promise<void>,
) {
  serverConnectorTest("mariadb", name, async () => {
    const db = await freshMariaDatabase();
    const admin = await mariaAdmin(db.name);
    const c = openConnector(connectorConfig("MYSQL", db.url, { username: "root" }));
    return { ctx: { c: c as MysqlConnector, admin, db: db.name }, drop: () => db.drop() };
  }, fn);
}
