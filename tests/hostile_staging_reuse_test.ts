/**
 * Staging reuse, through the real app over HTTP on both stores, with a pool of one instance so
 * every run lands on the instance the run before used (docs/executions.md#the-staging-pool): a
 * run that staged tables under guessable names, and tried to leave anything else behind, leaves
 * nothing a later run can see, by any listing DuckDB offers or by guessing. The same for the
 * SQLite staging engine's pooled worker.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { EventFrame } from "../src/executions/event_order.ts";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { frames } from "./support/executions_fixtures.ts";
import { call, startTestServer, type TestServer } from "./support/harness.ts";
import { dql } from "./support/pipeline_body.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { eventually } from "./support/wait.ts";

/** A listing as one text, its items sorted. */
const listed = (item: string, from: string) =>
  `(SELECT coalesce(string_agg(e, ',' ORDER BY e), '') FROM (SELECT ${item} AS e FROM ${from}))`;

/** One column per listing, each the listing as one text: what a run can learn of its instance. */
const LOOK = `SELECT
  ${
  listed("table_catalog || '.' || table_schema || '.' || table_name", "information_schema.tables")
},
  ${listed("catalog_name || '.' || schema_name", "information_schema.schemata")},
  ${listed("database_name || '.' || schema_name || '.' || table_name", "duckdb_tables()")},
  ${listed("database_name || '.' || view_name", "duckdb_views() WHERE NOT internal")},
  ${listed("database_name || '.' || function_name", "duckdb_functions() WHERE NOT internal")},
  ${listed("database_name || '.' || type_name", "duckdb_types() WHERE NOT internal")},
  ${listed("database_name || '.' || sequence_name", "duckdb_sequences()")},
  ${listed("database_name || '.' || schema_name", "duckdb_schemas()")},
  ${listed("database_name || ':' || readonly", "duckdb_databases()")},
  ${
  listed(
    "name || '=' || coalesce(value, '')",
    "duckdb_settings() WHERE name <> 'max_temp_directory_size'",
  )
},
  ${listed("name", "duckdb_variables()")},
  ${listed("path", "duckdb_temporary_files()")},
  (SELECT count(*) FROM duckdb_views()) AS views, (SELECT count(*) FROM duckdb_functions()) AS fns,
  (SELECT count(*) FROM duckdb_types()) AS types,
  current_database() AS db, current_schema() AS schema,
  current_setting('search_path') AS search_path, current_setting('threads') AS threads,
  current_setting('memory_limit') AS memory_limit`;

/** What a run tries in order to leave something behind: every one is refused. */
const ATTEMPTS = [
  "SET search_path = 'system.main'",
  "SET threads = 1",
  "SET memory_limit = '1GB'",
  "SET VARIABLE leaked = 42",
  "CREATE TEMP TABLE left_temp AS SELECT 42 AS secret",
  "CREATE MACRO left_macro(x) AS x",
  "CREATE TYPE left_type AS ENUM ('secret')",
  "CREATE SEQUENCE left_sequence",
  "CREATE SECRET left_secret (TYPE s3, KEY_ID 'k', SECRET 's')",
  "ATTACH ':memory:' AS left_db",
  "USE system",
  "SELECT * FROM query('CREATE TABLE left_query AS SELECT 42')",
];

/** Names the later run guesses. */
const GUESSES = [
  "SELECT * FROM left_table",
  "SELECT * FROM tempdb.main.left_table",
  'SELECT * FROM "__landing_left_decimal"',
  "SELECT * FROM left_decimal",
  "SELECT * FROM left_temp",
  "SELECT left_macro(1)",
];

async function run(
  s: TestServer,
  h: Record<string, string>,
  nodes: unknown[],
  settings?: { staging_engine: "sqlite" },
) {
  const created = await call(s, "POST", "/api/v1/pipelines", h, {
    name: `reuse/${crypto.randomUUID().slice(0, 8)}`,
    nodes,
    ...(settings ? { settings } : {}),
  });
  equal(created.status, 201, JSON.stringify(created.body));
  const res = await s.fetch(`/api/v1/pipelines/${created.body.data.id}/execute`, {
    method: "POST",
    headers: { ...h, accept: "text/event-stream", "content-type": "application/json" },
    body: "{}",
  });
  equal(res.status, 200);
  const events: EventFrame[] = await frames(res).rest();
  // The next run must find this run's instance reset and waiting: the pool holds one.
  const pool = s.runtime.stagingPool;
  await eventually(() => pool.stats().lent === 0 && pool.stats().sqlite.lent === 0, {
    what: "the run to give its instance back",
  });
  await pool.settled();
  return {
    events,
    ready: events.find((e) => e.event === "data_ready")?.data,
    failed: events.find((e) => e.event === "pipeline_failed")?.data,
  };
}

/** A staged table under a guessable name. */
const STAGED_SECRET = dql("a", {
  source: "tempdb",
  sql: "SELECT 42 AS secret",
  output: { target: "tempdb", table: "left_table" },
});

/** The rows of one run of `sql` on tempdb, which must succeed. */
async function rowsOf(
  s: TestServer,
  h: Record<string, string>,
  sql: string,
  settings?: { staging_engine: "sqlite" },
) {
  const { ready, failed } = await run(s, h, [dql("look", { source: "tempdb", sql })], settings);
  ok(ready, JSON.stringify(failed));
  return ready.rows;
}

forEachStoreKind(
  "a reused staging instance shows a run nothing an earlier run left",
  async (store) => {
    const s = await startTestServer({ store, env: { SERVICE_EXECUTOR_STAGING_POOL_SIZE: "1" } });
    try {
      const fx = await seedRoles(s.runtime);
      const author = await sessionHeaders(s.runtime, fx.users.author, "acme");
      const pool = s.runtime.stagingPool;
      const look = () => rowsOf(s, author, LOOK);
      const before = await look();

      // Staged tables under guessable names (one with a landing table, for its decimal), then
      // every attempt to leave something outside them.
      const left = await run(s, author, [
        STAGED_SECRET,
        dql("b", {
          source: "tempdb",
          sql: "SELECT 4.2::DECIMAL(5,1) AS secret, DATE '2024-01-01' AS day",
          output: { target: "tempdb", table: "left_decimal" },
        }),
        dql("seen", { source: "tempdb", depends_on: ["a", "b"], sql: GUESSES[0] }),
      ]);
      equal(left.ready?.rows[0][0], 42, JSON.stringify(left.failed));
      for (const sql of ATTEMPTS) {
        const { failed } = await run(s, author, [dql("try", { source: "tempdb", sql })]);
        ok(failed, `${sql}: not refused`);
      }

      deepEqual(await look(), before, "the instance looks as it did before any of it");
      for (const sql of GUESSES) {
        const { ready, failed } = await run(s, author, [dql("guess", { source: "tempdb", sql })]);
        ok(!ready, `${sql}: found ${JSON.stringify(ready?.rows)}`);
        const error = (failed as { error: { details: { reason?: string } } }).error;
        ok(/does not exist|not found/i.test(String(error.details.reason)), JSON.stringify(error));
      }
      // An unknown variable reads as NULL rather than failing.
      const variable = await run(s, author, [
        dql("v", { source: "tempdb", sql: "SELECT getvariable('leaked') AS v" }),
      ]);
      deepEqual(variable.ready?.rows, [[null]]);
      const stats = pool.stats();
      equal(stats.discarded, 0, "no run could dirty the instance");
      ok(stats.reused > ATTEMPTS.length, `the runs reused one instance: ${JSON.stringify(stats)}`);
      equal(stats.created, 1);
    } finally {
      await s.close();
    }
  },
);

/** What a SQLite staged run can learn of its database: every schema object, main and temp. */
const SQLITE_LOOK = `SELECT
  (SELECT coalesce(group_concat(type || ':' || name, ','), '') FROM
    (SELECT type, name FROM sqlite_schema ORDER BY 1, 2)) AS main,
  (SELECT coalesce(group_concat(type || ':' || name, ','), '') FROM
    (SELECT type, name FROM sqlite_temp_schema ORDER BY 1, 2)) AS temp`;

/**
 * What a SQLite staged run may make in its own database (author SQL may write there; the run
 * answers zero rows): none of it may outlive the run.
 */
const SQLITE_LEFTOVERS = [
  "CREATE TEMP TABLE left_temp AS SELECT 42 AS secret",
  "CREATE VIEW left_view AS SELECT 42 AS secret",
  "CREATE TABLE left_made AS SELECT 42 AS secret",
];

/** What it tries outside its database or its connection's settings: every one is refused. */
const SQLITE_ATTEMPTS = [
  "ATTACH ':memory:' AS left_db",
  "PRAGMA user_version = 42",
  "PRAGMA temp_store = MEMORY",
];

forEachStoreKind(
  "a reused SQLite staging worker shows a run nothing an earlier run left",
  async (store) => {
    const s = await startTestServer({ store, env: { SERVICE_EXECUTOR_STAGING_POOL_SIZE: "1" } });
    const sqlite = { staging_engine: "sqlite" } as const;
    try {
      const fx = await seedRoles(s.runtime);
      const author = await sessionHeaders(s.runtime, fx.users.author, "acme");
      const look = () => rowsOf(s, author, SQLITE_LOOK, sqlite);
      const before = await look();

      const left = await run(s, author, [
        STAGED_SECRET,
        dql("seen", { source: "tempdb", depends_on: ["a"], sql: "SELECT * FROM left_table" }),
      ], sqlite);
      equal(left.ready?.rows[0][0], 42, JSON.stringify(left.failed));
      for (const sql of SQLITE_LEFTOVERS) {
        const made = await run(s, author, [dql("make", { source: "tempdb", sql })], sqlite);
        ok(made.ready, `${sql}: ${JSON.stringify(made.failed)}`);
      }
      for (const sql of SQLITE_ATTEMPTS) {
        const { failed } = await run(s, author, [dql("try", { source: "tempdb", sql })], sqlite);
        ok(failed, `${sql}: not refused`);
      }

      deepEqual(await look(), before, "the database looks as it did before any of it");
      for (const name of ["left_table", "left_temp", "left_view", "left_made"]) {
        const nodes = [dql("guess", { source: "tempdb", sql: `SELECT * FROM ${name}` })];
        const { ready, failed } = await run(s, author, nodes, sqlite);
        ok(!ready, `${name}: found ${JSON.stringify(ready?.rows)}`);
        const error = (failed as { error: { details: { reason?: string } } }).error;
        ok(/no such table/i.test(String(error.details.reason)), JSON.stringify(error));
      }
      const stats = s.runtime.stagingPool.stats().sqlite;
      equal(stats.discarded, 0, "no run could dirty the worker");
      ok(
        stats.reused > SQLITE_ATTEMPTS.length,
        `the runs reused one worker: ${JSON.stringify(stats)}`,
      );
      equal(stats.created, 1);
    } finally {
      await s.close();
    }
  },
);
