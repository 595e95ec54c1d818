/**
 * The staging pool (docs/executions.md#the-staging-pool) with one instance, so every run lands on
 * the instance the run before it used: a run sees nothing an earlier run created or set, however
 * it looks; a reset that cannot prove the instance clean discards it; spill files go with the run.
 */
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import type { ColumnSchema, WireValue } from "../datasources/mod.ts";
import { DuckdbStaging, type Staging } from "./staging.ts";
import { StagingPool } from "./staging_pool.ts";
import { SqliteStaging } from "./staging_sqlite.ts";

/** Every row of `sql` on a staging database, of either engine. */
async function rows(staging: Staging, sql: string): Promise<WireValue[][]> {
  const out: WireValue[][] = [];
  for await (const batch of await staging.connector.query({ sql })) out.push(...batch);
  return out;
}

/**
 * What a run can find out about the instance it is on, by every listing DuckDB offers. Run on a
 * new instance and on a reused one, the answers must be the same.
 */
const LOOKS = [
  "SELECT table_catalog, table_schema, table_name, table_type FROM information_schema.tables ORDER BY ALL",
  "SELECT catalog_name, schema_name FROM information_schema.schemata ORDER BY ALL",
  "SELECT database_name, schema_name, table_name FROM duckdb_tables() ORDER BY ALL",
  "SELECT database_name, view_name FROM duckdb_views() WHERE NOT internal ORDER BY ALL",
  "SELECT count(*) FROM duckdb_views()",
  "SELECT database_name, function_name FROM duckdb_functions() WHERE NOT internal ORDER BY ALL",
  "SELECT count(*) FROM duckdb_functions()",
  "SELECT database_name, type_name FROM duckdb_types() WHERE NOT internal ORDER BY ALL",
  "SELECT count(*) FROM duckdb_types()",
  "SELECT database_name, sequence_name FROM duckdb_sequences() ORDER BY ALL",
  "SELECT database_name, schema_name FROM duckdb_schemas() ORDER BY ALL",
  "SELECT database_name, index_name FROM duckdb_indexes() ORDER BY ALL",
  "SELECT database_name, path, readonly FROM duckdb_databases() ORDER BY ALL",
  "SELECT name, value FROM duckdb_settings() ORDER BY ALL",
  "SELECT name FROM duckdb_variables() ORDER BY ALL",
  "SELECT path FROM duckdb_temporary_files() ORDER BY ALL",
  "SELECT current_database(), current_schema(), current_setting('search_path')",
];

async function look(staging: DuckdbStaging): Promise<string[]> {
  const seen: string[] = [];
  for (const sql of LOOKS) {
    const text = JSON.stringify(
      await rows(staging, sql),
      (_, v) => typeof v === "bigint" ? `${v}` : v,
    );
    seen.push(`${sql}: ${text}`);
  }
  return seen;
}

/** Everything an earlier run could make, made by the staging connector's own write path. */
const LEFTOVERS = [
  "CREATE TABLE left_table AS SELECT 42 AS secret",
  "CREATE VIEW left_view AS SELECT 42 AS secret",
  "CREATE MACRO left_macro(x) AS x + 42",
  "CREATE MACRO left_table_macro() AS TABLE SELECT 42 AS secret",
  "CREATE TYPE left_type AS ENUM ('secret')",
  "CREATE SEQUENCE left_sequence START 42",
  "CREATE SCHEMA left_schema",
  "CREATE TABLE left_schema.inner_table AS SELECT 42 AS secret",
  "CREATE INDEX left_index ON left_table (secret)",
  "CREATE TEMP TABLE left_temp AS SELECT 42 AS secret",
  "CREATE TEMP VIEW left_temp_view AS SELECT 42 AS secret",
  "CREATE TEMP MACRO left_temp_macro(x) AS x",
];

/** Names a later run guesses; each must be unknown to it. */
const GUESSES = [
  "SELECT * FROM left_table",
  "SELECT * FROM tempdb.main.left_table",
  "SELECT * FROM left_view",
  "SELECT left_macro(1)",
  "SELECT * FROM left_table_macro()",
  "SELECT 'secret'::left_type",
  "SELECT nextval('left_sequence')",
  "SELECT * FROM left_schema.inner_table",
  "SELECT * FROM temp.main.left_temp",
  "SELECT * FROM left_temp_view",
  "SELECT left_temp_macro(1)",
];

/** A test on a pool of one instance of `memoryMb`, closed afterwards. */
function poolTest(name: string, memoryMb: number, fn: (pool: StagingPool) => Promise<void>) {
  Deno.test(name, async () => {
    const pool = new StagingPool({ size: 1, memoryMb });
    try {
      await fn(pool);
    } finally {
      await pool.close();
    }
  });
}

/** Ends the run on `staging`: its instance, the pool's only one, is back idle and kept. */
async function endedIdle(pool: StagingPool, staging: DuckdbStaging): Promise<void> {
  await staging.close();
  await pool.settled();
  deepEqual(pool.duckdb.stats(), { created: 1, reused: 0, discarded: 0, idle: 1, lent: 0 });
}

poolTest(
  "a pooled staging instance shows a run nothing an earlier run on it made",
  256,
  async (pool) => {
    const fresh = DuckdbStaging.lease(pool, 256);
    const before = await look(fresh);
    for (const sql of LEFTOVERS) await fresh.connector.write!([{ sql, params: {} }]);
    // The leftovers are there while the run lasts: the guesses below can find what exists.
    for (const sql of GUESSES) await rows(fresh, sql);
    notEqual(JSON.stringify(await look(fresh)), JSON.stringify(before));
    await endedIdle(pool, fresh);

    const next = DuckdbStaging.lease(pool, 256);
    try {
      deepEqual(await look(next), before, "the reused instance looks new");
      for (const sql of GUESSES) {
        const outcome = await rows(next, sql).then(() => "read", (e: Error) => e.message);
        ok(/does not exist|not found/i.test(outcome), `${sql}: ${outcome}`);
      }
      equal(pool.duckdb.stats().reused, 1, "the second run was on the first run's instance");
    } finally {
      await next.close();
    }
  },
);

poolTest(
  "a run cannot write outside its own database, so nothing can outlive it",
  256,
  async (pool) => {
    const staging = DuckdbStaging.lease(pool, 256);
    const [[base]] = await rows(
      staging,
      "SELECT database_name FROM duckdb_databases() WHERE readonly",
    );
    for (const target of [`"${base}".main`, "system.main"]) {
      for (const ddl of ["TABLE x AS SELECT 1 AS a", "MACRO m(x) AS x", "TYPE t AS ENUM ('a')"]) {
        const [kind, rest] = [ddl.split(" ")[0], ddl.slice(ddl.indexOf(" ") + 1)];
        const sql = `CREATE ${kind} ${target}.${rest}`;
        const outcome = await staging.connector.write!([{ sql, params: {} }])
          .then(() => "made", (e: Error) => e.message);
        ok(/read-only|system catalog|Cannot create/i.test(outcome), `${sql}: ${outcome}`);
      }
    }
    await endedIdle(pool, staging);
  },
);

poolTest(
  "an instance whose reset finds anything left is discarded, and a spare replaces it",
  256,
  async (pool) => {
    // No author statement can attach a database; the pool's check must catch one anyway.
    const lease = await pool.duckdb.lease();
    const conn = await lease.host.instance.connect();
    await conn.run("ATTACH ':memory:' AS stray (READ_WRITE)");
    conn.closeSync();
    lease.release();
    await pool.settled();
    const stats = pool.duckdb.stats();
    equal(stats.discarded, 1);
    equal(stats.idle, 1, "a spare was made in the background");
    const next = await pool.duckdb.lease();
    notEqual(next.host.instance, lease.host.instance);
    next.release();
    await pool.settled();
  },
);

poolTest("a run's spill files are gone before its instance is lent again", 64, async (pool) => {
  const staging = DuckdbStaging.lease(pool, 64);
  // Some 200 MB of rows in a 64 MiB instance: the table's blocks are evicted to spill files.
  await staging.connector.write!([{
    sql: "CREATE TABLE big AS SELECT i, repeat('x', 200) AS s FROM range(1000000) t(i)",
    params: {},
  }]);
  const [[files]] = await rows(staging, "SELECT count(*) FROM duckdb_temporary_files()");
  ok(Number(files) > 0, "the run spilled");
  await endedIdle(pool, staging);
  const next = DuckdbStaging.lease(pool, 64);
  try {
    deepEqual(await rows(next, "SELECT count(*) FROM duckdb_temporary_files()"), [[0n]]);
  } finally {
    await next.close();
  }
});

/** Everything a SQLite staged run could make in its database, by the connector's write path. */
const SQLITE_LEFTOVERS = [
  "CREATE TABLE left_table (secret INTEGER)",
  "INSERT INTO left_table VALUES (42)",
  "CREATE VIEW left_view AS SELECT 42 AS secret",
  "CREATE INDEX left_index ON left_table (secret)",
  "CREATE TRIGGER left_trigger AFTER INSERT ON left_table BEGIN SELECT 1; END",
  "CREATE TEMP TABLE left_temp (secret INTEGER)",
  "CREATE TEMP VIEW left_temp_view AS SELECT 42 AS secret",
];

const SQLITE_LOOKS = [
  "SELECT type, name, tbl_name FROM sqlite_schema ORDER BY 1, 2",
  "SELECT type, name, tbl_name FROM sqlite_temp_schema ORDER BY 1, 2",
  "SELECT schema, name, type FROM pragma_table_list ORDER BY 1, 2",
];

const sqliteLook = async (staging: SqliteStaging) =>
  JSON.stringify(await Promise.all(SQLITE_LOOKS.map((sql) => rows(staging, sql))));

const secret: ColumnSchema[] = [{ name: "secret", type: "integer", source_type: "INTEGER" }];
async function* oneBatch(): AsyncIterable<WireValue[][]> {
  yield [[42]];
}

poolTest(
  "a pooled SQLite staging worker shows a run nothing an earlier run on it made",
  64,
  async (pool) => {
    const first = new SqliteStaging(pool.sqlite);
    const before = await sqliteLook(first);
    await first.load("left_staged", secret, oneBatch(), async () => {});
    for (const sql of SQLITE_LEFTOVERS) await first.connector.write!([{ sql, params: {} }]);
    notEqual(await sqliteLook(first), before, "the leftovers exist while the run lasts");
    await first.close();
    await pool.settled();

    const next = new SqliteStaging(pool.sqlite);
    try {
      equal(await sqliteLook(next), before, "the reused worker's database looks new");
      for (
        const name of ["left_staged", "left_table", "left_view", "left_temp", "temp.left_temp"]
      ) {
        const outcome = await rows(next, `SELECT * FROM ${name}`)
          .then(() => "read", (e: Error) => e.message);
        ok(/no such table/i.test(outcome), `${name}: ${outcome}`);
      }
      deepEqual(pool.sqlite.stats(), { created: 1, reused: 1, discarded: 0, idle: 0, lent: 1 });
    } finally {
      await next.close();
    }
  },
);

poolTest(
  "a reused SQLite worker answers nothing to the connection of the run before it",
  64,
  async (pool) => {
    const lease = await pool.sqlite.lease();
    const earlier = lease.host.thread;
    await earlier.request({ op: "exec", sql: "CREATE TABLE kept (secret INTEGER)" });
    lease.release();
    await pool.settled();
    const next = await pool.sqlite.lease();
    try {
      notEqual(next.host.thread, earlier, "a new connection object on the same worker");
      equal(pool.sqlite.stats().reused, 1);
      const late = await earlier.request({ op: "exec", sql: "CREATE TABLE late (a)" })
        .then(() => "ran", (e: Error) => e.message);
      ok(/closed/.test(late), late);
      const names = await next.host.thread.request({
        op: "all",
        sql: "SELECT name FROM sqlite_schema",
        values: [],
      });
      deepEqual(names, []);
    } finally {
      next.release();
      await pool.settled();
    }
  },
);

poolTest("a SQLite worker an abort ended is discarded, never lent again", 64, async (pool) => {
  const staging = new SqliteStaging(pool.sqlite);
  const abort = new AbortController();
  const endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) " +
    "SELECT count(*) FROM c";
  const reading = staging.connector.query({ sql: endless }, { signal: abort.signal });
  setTimeout(() => abort.abort(new Error("cancelled")), 100);
  equal(await reading.then(() => "read", (e: Error) => e.message), "cancelled");
  await staging.close();
  await pool.settled();
  const stats = pool.sqlite.stats();
  equal(stats.discarded, 1, "the ended worker was not kept");
  equal(stats.reused, 0);
  const next = new SqliteStaging(pool.sqlite);
  try {
    deepEqual(await rows(next, "SELECT 1 AS one"), [[1]]);
    equal(pool.sqlite.stats().reused, 1, "the spare made in its place");
  } finally {
    await next.close();
  }
});
