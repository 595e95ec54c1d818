/**
 * An executor world per store for the executor tests, and real server databases registered in
 * it as datasources: one set-up and one clean-up instead of a try/finally in every test.
 */
import type mysql from "mysql2/promise";
import postgres from "postgres";
import { openConnector } from "../../src/datasources/mod.ts";
import {
  addDatasource,
  sqliteSource,
  type World,
  world,
} from "../../src/executions/executor_fixtures.ts";
import { StoredRuns } from "../../src/executions/stored_run_fixtures.ts";
import type { Db } from "../../src/store/mod.ts";
import { connectorConfig, freshMariaDatabase, mariaAdmin, pgJdbcUrl } from "./datasources.ts";
import { type ServiceName, skipUnless } from "./services.ts";
import { forEachStore, freshPostgresDatabase } from "./stores.ts";

/**
 * Registers `name` once per store with a fresh world and durable runs on it, both closed after
 * `fn` (with whatever the test deferred). Without `services` up the test passes without running,
 * as `skipUnless` decides (never under SERVICE_TEST_REQUIRE_SERVICES).
 */
export function forEachWorld(
  name: string,
  fn: (w: World, runs: StoredRuns, db: Db) => Promise<void>,
  options: { services?: ServiceName[] } = {},
): void {
  forEachStore(name, async (db) => {
    if (options.services && skipUnless(...options.services)) return;
    const w = await world(db);
    const runs = new StoredRuns(w);
    try {
      await fn(w, runs, db);
    } finally {
      await runs.close();
      await w.close();
    }
  });
}

/** `forEachWorld` with the SQLite datasource `crm` (people: Ada, Bo and Cy) registered first. */
export function forEachCrmWorld(
  name: string,
  fn: (w: World, runs: StoredRuns, db: Db) => Promise<void>,
  options: { services?: ServiceName[] } = {},
): void {
  forEachWorld(name, (w, runs, db) => {
    sqliteSource(w, "crm");
    return fn(w, runs, db);
  }, options);
}

interface SourceOptions {
  /** SQL run on the fresh database before the datasource opens. */
  setup?: string;
  readonly?: boolean;
  hikari?: Record<string, unknown>;
}

/** Opens the server database at `jdbcUrl` as datasource `name` of `w`. */
function register(
  w: World,
  name: string,
  dialect: "POSTGRES" | "MYSQL",
  jdbcUrl: string,
  username: string,
  { hikari, readonly }: SourceOptions,
): void {
  addDatasource(
    w,
    name,
    openConnector(connectorConfig(dialect, jdbcUrl, { username, hikari })),
    readonly,
  );
}

/** A server database registered as a datasource, with an administrator's view of it. */
export interface ServerSource<Admin> {
  url: string;
  /** An administrator's connection to the same database, to set up and to look. */
  sql: Admin;
  /** How many other sessions are running a statement that contains `tag`. */
  running(tag: string): Promise<number>;
}

export type PostgresSource = ServerSource<postgres.Sql>;

export interface MariaSource extends ServerSource<mysql.Connection> {
  /** The database's name. */
  database: string;
}

/** Opens a fresh server database as datasource `name` of `w`, dropped when the world closes. */
type SourceOpener<S> = (w: World, name: string, options?: SourceOptions) => Promise<S>;

/** A fresh PostgreSQL database (a `SourceOpener`). */
export const postgresSource: SourceOpener<PostgresSource> = async (w, name, options = {}) => {
  const pg = await freshPostgresDatabase();
  w.defer(() => pg.drop());
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  w.defer(() => sql.end());
  if (options.setup) await sql.unsafe(options.setup);
  const username = new URL(pg.url).username || "postgres";
  register(w, name, "POSTGRES", pgJdbcUrl(pg.url), username, options);
  return {
    url: pg.url,
    sql,
    running: async (tag) =>
      (await sql.unsafe(
        `SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%${tag}%' AND pid <> pg_backend_pid()`,
      )).length,
  };
};

/** A fresh MariaDB database (a `SourceOpener`). */
export const mariaSource: SourceOpener<MariaSource> = async (w, name, options = {}) => {
  const maria = await freshMariaDatabase();
  w.defer(() => maria.drop());
  const sql = await mariaAdmin(maria.name);
  w.defer(() => sql.end());
  if (options.setup) await sql.query(options.setup);
  register(w, name, "MYSQL", maria.url, "root", options);
  return {
    url: maria.url,
    database: maria.name,
    sql,
    running: async (tag) => {
      const [rows] = await sql.query(
        `SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()`,
        [`%${tag}%`],
      );
      return (rows as unknown[]).length;
    },
  };
};
