/**
 * Hostile SQL on the server dialects' read-only datasources (issue 11 item 2): a DQL node on a
 * PostgreSQL or MariaDB datasource flagged `readonly` runs inside the engine's own read-only
 * transaction, so a write hidden in a read — a data-modifying CTE, a bare DELETE, UPDATE, INSERT
 * or CREATE TABLE, staged or delivered — is refused by the engine with
 * `pipeline.node.readonly_datasource`, one record streamed and stored. Each refusal is then
 * checked from outside, through a separate direct connection: the table holds what it held and
 * no table was created. MariaDB errors are never JavaScript messages.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { pipeline, type World } from "../src/executions/executor_fixtures.ts";
import { assertFailed, type StoredRuns } from "../src/executions/stored_run_fixtures.ts";
import type { ServiceName } from "./support/services.ts";
import { forEachWorld, mariaSource, postgresSource } from "./support/executor_world.ts";
import { dql, staged } from "./support/pipeline_body.ts";

const SERVERS = { services: ["postgres", "mariadb"] satisfies ServiceName[] };
/** Two connections: a refusal that kept its connection would starve the later reads. */
const hikari = { maximumPoolSize: 2, connectionTimeout: 5000 };

/** The write-shaped reads every dialect is tried with, each delivered and staged. */
function escapes(dialect: "POSTGRES" | "MYSQL"): string[] {
  const common = [
    "DELETE FROM t",
    "UPDATE t SET a = 0",
    "INSERT INTO t VALUES (9)",
    "CREATE TABLE made (a INT)",
  ];
  return dialect === "POSTGRES"
    ? [
      "WITH d AS (DELETE FROM t RETURNING a) SELECT count(*) AS n FROM d",
      "WITH u AS (UPDATE t SET a = a + 100 RETURNING a) SELECT a FROM u",
      "SELECT a INTO made FROM t",
      ...common,
    ]
    : ["DELETE FROM t RETURNING a", ...common];
}

/** Runs every escape on `source` (readonly), delivered and staged, and asserts each refusal. */
async function tryEscapes(
  w: World,
  runs: StoredRuns,
  dialect: "POSTGRES" | "MYSQL",
  unchanged: () => Promise<void>,
): Promise<void> {
  for (const sql of escapes(dialect)) {
    const read = dql("read", { source: "locked", sql });
    const stagedNodes = [
      { ...read, output: { target: "tempdb", table: "stolen" } },
      dql("after", { source: "tempdb", depends_on: ["read"], sql: "SELECT 1" }),
    ];
    for (const nodes of [[read], stagedNodes]) {
      const run = await runs.run(await pipeline(w, nodes));
      const error = assertFailed(run, "pipeline.node.readonly_datasource", "read");
      equal(error.details.datasource, "locked", sql);
      equal(error.details.reason, "engine_refused", sql);
      ok(!/is not a function|undefined/.test(JSON.stringify(error.details)), sql);
      await unchanged();
    }
  }
  // Plain reads still work on the same pool after every refusal, delivered and staged.
  const read = await pipeline(w, [
    staged("stage", "locked", "SELECT a FROM t", { table: "t" }),
    dql("sum", {
      source: "tempdb",
      depends_on: ["stage"],
      sql: "SELECT CAST(sum(a) AS INTEGER) AS total FROM t",
    }),
  ]);
  deepEqual(await runs.rows(read), [[3]]);
}

forEachWorld(
  "PostgreSQL readonly datasource: every write hidden in a DQL node is refused by the engine",
  async (w, runs) => {
    const { sql: direct } = await postgresSource(w, "locked", {
      setup: "CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2)",
      hikari,
      readonly: true,
    });
    await tryEscapes(w, runs, "POSTGRES", async () => {
      deepEqual(
        (await direct.unsafe("SELECT a FROM t ORDER BY a")).map((r) => r.a),
        [1, 2],
      );
      const made = await direct.unsafe("SELECT to_regclass('public.made') AS r");
      equal(made[0].r, null, "no table was created");
    });
  },
  SERVERS,
);

forEachWorld(
  "MariaDB readonly datasource: every write hidden in a DQL node is refused by the engine",
  async (w, runs) => {
    const { sql: direct, database } = await mariaSource(w, "locked", {
      setup: "CREATE TABLE t (a INT); INSERT INTO t VALUES (1), (2)",
      hikari,
      readonly: true,
    });
    await tryEscapes(w, runs, "MYSQL", async () => {
      const [rows] = await direct.query("SELECT a FROM t ORDER BY a");
      deepEqual((rows as { a: number }[]).map((r) => r.a), [1, 2]);
      const [made] = await direct.query(
        "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_name = 'made'",
        [database],
      );
      equal(Number((made as { n: number }[])[0].n), 0, "no table was created");
    });
  },
  SERVERS,
);

forEachWorld(
  "MariaDB: a DQL statement that returns no result set fails with a server-worded reason",
  async (w, runs) => {
    const maria = await mariaSource(w, "open", {
      hikari: { maximumPoolSize: 1, connectionTimeout: 5000 },
    });
    // Each of these once answered "row.map is not a function": an OK packet taken for a row.
    for (const sql of ["DO 1", "SET @x = 1", "CREATE TABLE made (a INT)", "COMMIT"]) {
      const id = await pipeline(w, [dql("read", { source: "open", sql })]);
      const error = assertFailed(await runs.run(id), "pipeline.node.statement_failed", "read");
      equal(error.details.dialect, "MYSQL");
      ok(String(error.details.reason).includes("no result set"), String(error.details.reason));
      ok(!/is not a function/.test(JSON.stringify(error)), sql);
    }
    // A procedure's status packet after its rows is no row either.
    await maria.sql.query("CREATE PROCEDURE two() SELECT 1 AS x UNION ALL SELECT 2");
    const call = await pipeline(w, [dql("read", { source: "open", sql: "CALL two()" })]);
    deepEqual(await runs.rows(call), [[1], [2]]);
    // The one connection came back each time.
    const id = await pipeline(w, [dql("read", { source: "open", sql: "SELECT 1 AS x" })]);
    deepEqual(await runs.rows(id), [[1]]);
  },
  SERVERS,
);
