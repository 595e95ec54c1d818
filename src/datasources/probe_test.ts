/**
 * The probe path on the real engines: every dialect refuses writes, DDL, stacked and sneaky
 * statements (lexically, and again in the engine for what a lexer cannot see) and the data is
 * unchanged afterwards; the row cap truncates with a flag; the time cap cancels a slow statement
 * on the server and answers `datasource.probe.timeout`.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { DuckDBInstance } from "@duckdb/node-api";
import postgres from "postgres";
import {
  connectorConfig,
  freshMariaDatabase,
  mariaAdmin,
  pgJdbcUrl,
} from "../../tests/support/datasources.ts";
import { skipUnless } from "../../tests/support/services.ts";
import { freshPostgresDatabase } from "../../tests/support/stores.ts";
import { AppError } from "../errors/mod.ts";
import { readOnlyRefusal } from "./connectors/common.ts";
import { type Connector, type Dialect, openConnector } from "./connectors/mod.ts";
import { probeLimits, probeRows, runProbe } from "./probe.ts";
import { eventually } from "../../tests/support/wait.ts";

/** One real database with table `t` (3 rows), a connector on it and an out-of-band reader. */
interface Engine {
  conn: Connector;
  /** Rows of `t` and whether a table `t2` exists, read outside the probe path. */
  state(): Promise<string>;
  close(): Promise<void>;
}

const SERIES_50 =
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) SELECT x FROM c";

/** Refused before anything runs, on every dialect. */
const COMMON_REFUSALS = [
  "INSERT INTO t VALUES (9, 'z')",
  "UPDATE t SET b = 'changed'",
  "DELETE FROM t",
  "CREATE TABLE t2 (a int)",
  "DROP TABLE t",
  "ALTER TABLE t ADD COLUMN c int",
  "SELECT 1; DELETE FROM t",
  "SELECT 1 /* one */; /* two */ DELETE FROM t",
  "SELECT 1 -- hidden\n; DROP TABLE t",
  "WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x",
  "SELECT * INTO t2 FROM t",
  "COPY t TO '/tmp/probe_copy_out.csv'",
];

const SNEAKY: Record<Dialect, string[]> = {
  POSTGRES: ["COPY (SELECT 1) TO STDOUT", "SELECT 1 /* a /* nested */ */; DELETE FROM t"],
  MYSQL: [
    "SELECT * FROM t INTO OUTFILE '/tmp/probe_outfile.txt'",
    "SELECT 1 /*! ; DELETE FROM t */",
    "SELECT 1 --1; DELETE FROM t",
  ],
  SQLITE: [
    "PRAGMA user_version = 7",
    "PRAGMA journal_mode = DELETE",
    "ATTACH DATABASE '/tmp/probe_attached.db' AS x",
    "VACUUM",
  ],
  DUCKDB: [
    "ATTACH ':memory:' AS x",
    "INSTALL httpfs",
    "COPY t TO '/tmp/probe_duck_copy.csv'",
    "COPY (SELECT 1) TO '/tmp/probe_duck_copy.csv'",
    "SET threads = 1",
  ],
  LAKE: [],
};

/**
 * Statements the lexer does not see (handed to the connector directly, or written as a plain
 * SELECT that writes through a function): the engine's own read-only mode must refuse them.
 */
const ENGINE_ONLY: Record<Dialect, { direct: string[]; select: string[] }> = {
  POSTGRES: {
    direct: ["DELETE FROM t", "CREATE TABLE t2 (a int)"],
    select: ["SELECT wipe()", "SELECT nextval('s')", "SELECT * FROM t FOR SHARE"],
  },
  MYSQL: { direct: ["DELETE FROM t", "CREATE TABLE t2 (a int)"], select: ["SELECT wipe()"] },
  SQLITE: {
    // VACUUM passes the authorizer and query_only stops it, but Deno's node:sqlite `iterate()`
    // drops errors raised while stepping, so its refusal is not observable here (the lexer
    // refuses it above, and `state()` proves nothing changed).
    direct: [
      "DELETE FROM t",
      "CREATE TABLE t2 (a int)",
      "PRAGMA user_version = 7",
      "ATTACH ':memory:' AS x",
    ],
    select: [],
  },
  DUCKDB: {
    direct: [
      "DELETE FROM t",
      "CREATE TABLE t2 (a int)",
      "ATTACH ':memory:' AS x",
      "INSTALL httpfs",
      "SELECT 1; DELETE FROM t",
    ],
    select: [],
  },
  LAKE: { direct: [], select: [] },
};

async function postgresEngine(): Promise<Engine> {
  const db = await freshPostgresDatabase();
  const admin = postgres(db.url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`
    CREATE TABLE t (a integer, b text);
    INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z');
    CREATE SEQUENCE s;
    CREATE FUNCTION wipe() RETURNS integer LANGUAGE plpgsql AS 'BEGIN DELETE FROM t; RETURN 1; END';
  `);
  const conn = openConnector(connectorConfig("POSTGRES", pgJdbcUrl(db.url)));
  return {
    conn,
    async state() {
      const rows = await admin.unsafe("SELECT a, b FROM t ORDER BY a");
      const [t2] = await admin.unsafe("SELECT to_regclass('t2') IS NOT NULL AS e");
      const [seq] = await admin.unsafe("SELECT last_value, is_called FROM s");
      return JSON.stringify([rows, t2.e, seq]);
    },
    async close() {
      await conn.close();
      await admin.end();
      await db.drop();
    },
  };
}

async function mysqlEngine(): Promise<Engine> {
  const db = await freshMariaDatabase();
  const admin = await mariaAdmin(db.name);
  await admin.query(`
    CREATE TABLE t (a int, b varchar(10));
    INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z');
    CREATE FUNCTION wipe() RETURNS INT MODIFIES SQL DATA BEGIN DELETE FROM t; RETURN 1; END;
  `);
  const conn = openConnector(connectorConfig("MYSQL", db.url, { username: "root" }));
  return {
    conn,
    async state() {
      const [rows] = await admin.query("SELECT a, b FROM t ORDER BY a");
      const [t2] = await admin.query(
        "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_name = 't2'",
        [db.name],
      );
      return JSON.stringify([rows, t2]);
    },
    async close() {
      await conn.close();
      await admin.end();
      await db.drop();
    },
  };
}

async function sqliteEngine(): Promise<Engine> {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/probe.db`;
  const admin = new DatabaseSync(file);
  admin.exec(
    "CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')",
  );
  const conn = openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${file}`));
  return {
    conn,
    state() {
      return Promise.resolve(JSON.stringify([
        admin.prepare("SELECT a, b FROM t ORDER BY a").all(),
        admin.prepare("SELECT name FROM sqlite_master ORDER BY name").all(),
        admin.prepare("PRAGMA user_version").get(),
        admin.prepare("PRAGMA journal_mode").get(),
      ]));
    },
    async close() {
      await conn.close();
      admin.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function duckdbEngine(): Promise<Engine> {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/probe.duckdb`;
  const setup = await DuckDBInstance.create(file);
  const admin = await setup.connect();
  await admin.run("CREATE TABLE t (a INTEGER, b VARCHAR)");
  await admin.run("INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')");
  admin.closeSync();
  setup.closeSync();
  // The connector's instance is sandboxed, and one process holds a file in one instance: the
  // state is read through the connector itself.
  const conn = openConnector(connectorConfig("DUCKDB", `jdbc:duckdb:${file}`));
  const read = async (sql: string) => {
    const rows: unknown[][] = [];
    for await (const batch of await conn.query({ sql })) rows.push(...batch);
    return rows;
  };
  return {
    conn,
    async state() {
      return JSON.stringify([
        await read("SELECT a, b FROM t ORDER BY a"),
        await read("SELECT database_name FROM duckdb_databases() ORDER BY 1"),
        await read("SELECT table_name FROM duckdb_tables() ORDER BY 1"),
      ]);
    },
    async close() {
      await conn.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const ENGINES: { dialect: Dialect; open: () => Promise<Engine>; ignore: boolean }[] = [
  { dialect: "POSTGRES", open: postgresEngine, ignore: skipUnless("postgres") },
  { dialect: "MYSQL", open: mysqlEngine, ignore: skipUnless("mariadb") },
  { dialect: "SQLITE", open: sqliteEngine, ignore: false },
  { dialect: "DUCKDB", open: duckdbEngine, ignore: false },
];

async function refusedReason(conn: Connector, sql: string): Promise<unknown> {
  try {
    await runProbe(conn, { sql }, probeLimits());
  } catch (e) {
    if (e instanceof AppError && e.code === "datasource.probe.not_read_only") {
      return e.details.reason;
    }
    throw new Error(`${sql}: expected not_read_only, got ${e}`);
  }
  throw new Error(`${sql}: ran`);
}

for (const { dialect, open, ignore } of ENGINES) {
  Deno.test({
    name:
      `[${dialect}] the probe refuses writes, DDL, stacked and sneaky statements; data unchanged`,
    ignore,
    async fn() {
      const e = await open();
      try {
        const before = await e.state();
        for (const sql of [...COMMON_REFUSALS, ...SNEAKY[dialect]]) {
          ok(await refusedReason(e.conn, sql), sql);
        }
        // The engine layer on its own: handed straight to the connector in read-only mode, or
        // a SELECT that writes through a function.
        for (const sql of ENGINE_ONLY[dialect].direct) {
          const error = await (async () => {
            try {
              const stream = await e.conn.query({ sql }, { readOnly: true });
              for await (const _ of stream) { /* drain */ }
            } catch (error) {
              return error;
            }
          })();
          const refusal = readOnlyRefusal(error);
          ok(refusal, `${sql}: the engine did not refuse (${error})`);
          equal(
            refusal.details.reason === "engine_refused" ||
              refusal.details.reason === "multiple_statements",
            true,
            sql,
          );
        }
        for (const sql of ENGINE_ONLY[dialect].select) {
          equal(await refusedReason(e.conn, sql), "engine_refused", sql);
        }
        equal(await e.state(), before, "nothing changed");
        // The connections went back clean: a read works and sees the same rows.
        const read = await runProbe(
          e.conn,
          { sql: "SELECT a, b FROM t ORDER BY a" },
          probeLimits(),
        );
        deepEqual(read.rows.map((r) => r[1]), ["x", "y", "z"]);
      } finally {
        await e.close();
      }
    },
  });

  Deno.test({
    name: `[${dialect}] the row cap truncates with a flag; values travel as results carry them`,
    ignore,
    async fn() {
      const e = await open();
      try {
        const capped = await runProbe(e.conn, { sql: SERIES_50 }, probeLimits({ maxRows: 10 }));
        equal(capped.row_count, 10);
        equal(capped.truncated, true);
        equal(capped.max_rows, 10);
        deepEqual(capped.rows.map((r) => Number(r[0])), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        const whole = await runProbe(e.conn, { sql: SERIES_50 }, probeLimits({ maxRows: 50 }));
        equal(whole.row_count, 50);
        equal(whole.truncated, false);
        // The tools' rows shape: the probe's own cap, then the character cap.
        const shaped = probeRows(capped, { maxRows: 10, maxChars: 1000 });
        deepEqual([shaped.row_count, shaped.truncated, shaped.next_cursor], [10, true, null]);
        deepEqual(shaped.columns.map((c) => c.name), [capped.columns[0].name]);
        deepEqual(probeRows(whole, { maxRows: 50, maxChars: 1000 }).truncated, false);
        const narrow = probeRows(whole, { maxRows: 50, maxChars: 40 });
        ok(JSON.stringify(narrow.rows).length <= 40 && narrow.row_count < 50 && narrow.truncated);
        const bound = await runProbe(
          e.conn,
          { sql: "SELECT b FROM t WHERE a >= :min ORDER BY a", params: { min: 2 } },
          probeLimits(),
        );
        deepEqual(bound.rows, [["y"], ["z"]]);
        deepEqual(bound.columns.map((c) => [c.name, c.type]), [["b", "string"]]);
        const big = await runProbe(
          e.conn,
          { sql: "SELECT 9007199254740993 AS big" },
          probeLimits(),
        );
        deepEqual(big.rows, [["9007199254740993"]], "a bigint travels as its digits");
      } finally {
        await e.close();
      }
    },
  });
}

const SLOW: Partial<Record<Dialect, string>> = {
  POSTGRES: "SELECT pg_sleep(60)",
  MYSQL: "SELECT SLEEP(60)",
  // Far more work than any machine finishes in the cap: only the interrupt ends it.
  DUCKDB: "SELECT count(*) FROM range(1000000000) a, range(1000000) b WHERE a.range + b.range = -1",
};

for (const { dialect, open, ignore } of ENGINES) {
  const sql = SLOW[dialect];
  if (!sql) continue;
  Deno.test({
    name: `[${dialect}] the time cap cancels a slow statement on the server`,
    ignore,
    async fn() {
      const e = await open();
      try {
        await rejects(runProbe(e.conn, { sql }, probeLimits({ timeoutMs: 300 })), (err) => {
          ok(err instanceof AppError);
          equal(err.code, "datasource.probe.timeout");
          equal(err.status, 504);
          equal(err.details.timeout_ms, 300);
          return true;
        });
        // The statement is gone from the server, and the pool serves the next read.
        await eventually(async () => {
          const r = await runProbe(e.conn, { sql: RUNNING[dialect]! }, probeLimits());
          return Number(r.rows[0][0]) === 0;
        }, { what: "the slow statement to stop", ms: 10_000 });
        const after = await runProbe(e.conn, { sql: "SELECT count(*) FROM t" }, probeLimits());
        equal(Number(after.rows[0][0]), 3);
      } finally {
        await e.close();
      }
    },
  });
}

/**
 * Counts statements like the slow one still running in this test's own database (other tests
 * sleep on the same servers), the counting statement excluded.
 */
const RUNNING: Partial<Record<Dialect, string>> = {
  POSTGRES:
    "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active' AND datname = current_database() AND pid <> pg_backend_pid()",
  MYSQL:
    "SELECT count(*) FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP%' AND db = DATABASE() AND id <> connection_id()",
  DUCKDB: "SELECT 0",
};
