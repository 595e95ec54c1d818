/**
 * Connections always come back (issue 11 item 3): a staged read that the staging engine refuses
 * before its first row (duplicate column names, a statement with no columns) once kept its
 * pooled datasource connection for good, and pool-size such failures left the datasource dead.
 * Per dialect and per staging engine, pool-size + 1 refused reads are followed by a good read
 * that must find a free connection within the pool's connection timeout. Aborted and refused
 * reads (a writeback onto a read-only datasource) give theirs back as well.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { ServiceName } from "../../tests/support/services.ts";
import { forEachWorld, mariaSource, postgresSource } from "../../tests/support/executor_world.ts";
import type { Dialect } from "../datasources/mod.ts";
import {
  addDatasource,
  duckdbFile,
  pipeline,
  sqliteFile,
  waitForEvent,
  type World,
} from "./executor_fixtures.ts";
import { assertFailed, type StoredRuns } from "./stored_run_fixtures.ts";
import { dql } from "../../tests/support/pipeline_body.ts";

const POOL = 2;
/** A leaked lease shows as the good read timing out on its acquire after this. */
const hikari = { maximumPoolSize: POOL, connectionTimeout: 3000 };

/** A datasource `src` of `dialect` holding `t(a)` with rows 1 and 2. */
async function source(w: World, dialect: Dialect): Promise<void> {
  switch (dialect) {
    case "SQLITE":
      sqliteFile(w, "src", "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);", {
        hikari,
      });
      break;
    case "DUCKDB":
      await duckdbFile(w, "src", "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);", {
        hikari,
      });
      break;
    case "POSTGRES":
      await postgresSource(w, "src", {
        setup: "CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2)",
        hikari,
      });
      break;
    default:
      await mariaSource(w, "src", {
        setup: "CREATE TABLE t (a INT); INSERT INTO t VALUES (1), (2)",
        hikari,
      });
  }
}

/** The servers a dialect's datasource needs. */
function servicesFor(dialect: Dialect): ServiceName[] {
  return dialect === "POSTGRES" ? ["postgres"] : dialect === "MYSQL" ? ["mariadb"] : [];
}

/** The datasource still has a free connection: a plain read gives both rows. */
async function readsAgain(w: World, runs: StoredRuns): Promise<void> {
  const id = await pipeline(w, [dql("n", { source: "src", sql: "SELECT a FROM t ORDER BY a" })]);
  deepEqual(await runs.rows(id), [[1], [2]]);
}

/** Reads the staging engine refuses before the first row, per dialect. */
const REFUSED: Record<string, string[]> = {
  SQLITE: ["SELECT 1 AS a, 2 AS a FROM t"],
  DUCKDB: ["SELECT 1 AS a, 2 AS a FROM t"],
  // PostgreSQL also answers a SELECT with no columns at all.
  POSTGRES: ["SELECT 1 AS a, 2 AS a FROM t", "SELECT FROM t"],
  MYSQL: ["SELECT 1 AS a, 2 AS a FROM t"],
};

for (const dialect of ["SQLITE", "DUCKDB", "POSTGRES", "MYSQL"] as const) {
  forEachWorld(
    `${dialect}: pool-size + 1 staged reads refused by staging, then a good read succeeds`,
    async (w, runs) => {
      await source(w, dialect);
      for (const engine of ["duckdb", "sqlite"]) {
        const settings = { settings: { staging_engine: engine } };
        for (const sql of REFUSED[dialect]) {
          for (let i = 0; i <= POOL; i++) {
            const id = await pipeline(w, [
              dql("stage", { source: "src", sql, output: staged("x") }),
            ], settings);
            const error = assertFailed(
              await runs.run(id),
              "pipeline.node.staging_failed",
              "stage",
            );
            equal(error.details.node_id, "stage");
          }
        }
        const good = await pipeline(w, [
          dql("stage", { source: "src", sql: "SELECT a FROM t", output: staged("t") }),
          dql("sum", {
            source: "tempdb",
            depends_on: ["stage"],
            sql: "SELECT CAST(sum(a) AS INTEGER) AS total FROM t",
          }),
        ], settings);
        deepEqual(await runs.rows(good), [[3]], engine);
      }
    },
    { services: servicesFor(dialect) },
  );
}

/** Statements that run until interrupted, per dialect. */
const ENDLESS: Record<string, string> = {
  DUCKDB: "SELECT count(*) AS n FROM range(100000000000) AS r(a), t",
  POSTGRES: "SELECT a FROM t, pg_sleep(60) AS s",
  MYSQL: "SELECT a FROM t WHERE SLEEP(60) = 0",
};

for (const dialect of ["DUCKDB", "POSTGRES", "MYSQL"] as const) {
  forEachWorld(
    `${dialect}: pool-size + 1 staged reads cancelled mid-statement, then a good read succeeds`,
    async (w, runs) => {
      await source(w, dialect);
      for (let i = 0; i <= POOL; i++) {
        const id = await pipeline(w, [
          dql("stage", { source: "src", sql: ENDLESS[dialect], output: staged("x") }),
        ]);
        const handle = await runs.start(id);
        await waitForEvent(
          handle,
          (f) => f.data.node_id === "stage" && f.data.state === "executing",
        );
        handle.cancel("cancelled");
        const run = await runs.finish(handle);
        equal(run.record.status, "ABORTED");
        equal(run.record.abort_reason, "cancelled");
      }
      await readsAgain(w, runs);
    },
    { services: servicesFor(dialect) },
  );
}

forEachWorld(
  "a read whose writeback target refuses, pool-size + 1 times, gives its connection back",
  async (w, runs) => {
    await source(w, "SQLITE");
    // The target went read-only after the pipeline was saved: refused at run time, after
    // the source read was already open.
    addDatasource(w, "locked", w.datasources.get("src")!.connector, true);
    for (let i = 0; i <= POOL; i++) {
      const id = await pipeline(w, [
        dql("copy", {
          source: "src",
          sql: "SELECT a FROM t",
          output: { target: "datasource", datasource: "locked", table: "t", mode: "append" },
        }),
      ]);
      assertFailed(await runs.run(id), "pipeline.node.readonly_datasource", "copy");
    }
    await readsAgain(w, runs);
  },
);

forEachWorld(
  "a source statement failing mid-stream into staging is the source's failure, not staging's",
  async (w, runs) => {
    await source(w, "POSTGRES");
    for (const engine of ["duckdb", "sqlite"]) {
      // Row 3000 divides by zero: two batches are staged before the source fails.
      const id = await pipeline(w, [
        dql("stage", {
          source: "src",
          sql: "SELECT 1 / (g - 3000) AS v FROM generate_series(1, 5000) AS g",
          output: staged("x"),
        }),
      ], { settings: { staging_engine: engine } });
      const error = assertFailed(await runs.run(id), "pipeline.node.statement_failed", "stage");
      equal(error.details.dialect, "POSTGRES");
      equal(error.node?.datasource, "src");
      ok(String(error.details.reason).includes("division by zero"), String(error.details.reason));
    }
    await readsAgain(w, runs);
  },
  { services: ["postgres"] },
);

function staged(table: string) {
  return { target: "tempdb", table };
}
