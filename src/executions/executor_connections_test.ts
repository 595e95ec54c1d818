/**
 * Connections always come back (issue 11 item 3): a staged read that the staging engine refuses
 * before its first row (duplicate column names, a statement with no columns) once kept its
 * pooled datasource connection for good, and pool-size such failures left the datasource dead.
 * Per dialect and per staging engine, pool-size + 1 refused reads are followed by a good read
 * that must find a free connection within the pool's connection timeout. Aborted and refused
 * reads (a writeback onto a read-only datasource) give theirs back as well.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { DuckDBInstance } from "@duckdb/node-api";
import postgres from "postgres";
import {
  connectorConfig,
  freshMariaDatabase,
  mariaAdmin,
  pgJdbcUrl,
} from "../../tests/datasources.ts";
import { skipUnless } from "../../tests/services.ts";
import { forEachStore, freshPostgresDatabase } from "../../tests/stores.ts";
import { type Dialect, openConnector } from "../datasources/mod.ts";
import { addDatasource, pipeline, waitForEvent, type World, world } from "./executor_fixtures.ts";
import { assertFailed, StoredRuns } from "./stored_run_fixtures.ts";

const servers = skipUnless("postgres", "mariadb");
const POOL = 2;
/** A leaked lease shows as the good read timing out on its acquire after this. */
const POOL_SETTINGS = { maximumPoolSize: POOL, connectionTimeout: 3000 };

/** A datasource `src` of `dialect` holding `t(a)` with rows 1 and 2; returns a cleanup. */
async function source(w: World, dialect: Dialect): Promise<() => Promise<void>> {
  const name = "src";
  switch (dialect) {
    case "SQLITE": {
      const path = `${w.dir}/src.sqlite`;
      const db = new DatabaseSync(path);
      db.exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);");
      db.close();
      addDatasource(
        w,
        name,
        openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${path}`, { hikari: POOL_SETTINGS })),
      );
      return () => Promise.resolve();
    }
    case "DUCKDB": {
      const path = `${w.dir}/src.duckdb`;
      const instance = await DuckDBInstance.create(path);
      const conn = await instance.connect();
      await conn.run("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);");
      conn.closeSync();
      instance.closeSync();
      addDatasource(
        w,
        name,
        openConnector(connectorConfig("DUCKDB", `jdbc:duckdb:${path}`, { hikari: POOL_SETTINGS })),
      );
      return () => Promise.resolve();
    }
    case "POSTGRES": {
      const pg = await freshPostgresDatabase();
      const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
      await admin.unsafe("CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2)");
      await admin.end();
      addDatasource(
        w,
        name,
        openConnector(connectorConfig("POSTGRES", pgJdbcUrl(pg.url), {
          username: new URL(pg.url).username || "postgres",
          hikari: POOL_SETTINGS,
        })),
      );
      return () => pg.drop();
    }
    default: {
      const maria = await freshMariaDatabase();
      const admin = await mariaAdmin(maria.name);
      await admin.query("CREATE TABLE t (a INT); INSERT INTO t VALUES (1), (2)");
      await admin.end();
      addDatasource(
        w,
        name,
        openConnector(connectorConfig("MYSQL", maria.url, {
          username: "root",
          hikari: POOL_SETTINGS,
        })),
      );
      return () => maria.drop();
    }
  }
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
  const server = dialect === "POSTGRES" || dialect === "MYSQL";
  forEachStore(
    `${dialect}: pool-size + 1 staged reads refused by staging, then a good read succeeds`,
    async (db) => {
      if (server && servers) return;
      const w = await world(db);
      const runs = new StoredRuns(w);
      const drop = await source(w, dialect);
      try {
        for (const engine of ["duckdb", "sqlite"]) {
          const settings = { settings: { staging_engine: engine } };
          for (const sql of REFUSED[dialect]) {
            for (let i = 0; i <= POOL; i++) {
              const id = await pipeline(w, [
                { id: "stage", type: "DQL", source: "src", sql, output: staged("x") },
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
            {
              id: "stage",
              type: "DQL",
              source: "src",
              sql: "SELECT a FROM t",
              output: staged("t"),
            },
            {
              id: "sum",
              type: "DQL",
              source: "tempdb",
              depends_on: ["stage"],
              sql: "SELECT CAST(sum(a) AS INTEGER) AS total FROM t",
            },
          ], settings);
          const run = await runs.run(good, {}, { expectDataReady: true });
          equal(run.record.status, "SUCCESS", `${engine}: ${JSON.stringify(run.record.error)}`);
          deepEqual(run.byType.get("data_ready")![0].data.rows, [[3]]);
        }
      } finally {
        await runs.close();
        await w.close();
        await drop();
      }
    },
  );
}

/** Statements that run until interrupted, per dialect. */
const ENDLESS: Record<string, string> = {
  DUCKDB: "SELECT count(*) AS n FROM range(100000000000) AS r(a), t",
  POSTGRES: "SELECT a FROM t, pg_sleep(60) AS s",
  MYSQL: "SELECT a FROM t WHERE SLEEP(60) = 0",
};

for (const dialect of ["DUCKDB", "POSTGRES", "MYSQL"] as const) {
  const server = dialect !== "DUCKDB";
  forEachStore(
    `${dialect}: pool-size + 1 staged reads cancelled mid-statement, then a good read succeeds`,
    async (db) => {
      if (server && servers) return;
      const w = await world(db);
      const runs = new StoredRuns(w);
      const drop = await source(w, dialect);
      try {
        for (let i = 0; i <= POOL; i++) {
          const id = await pipeline(w, [
            { id: "stage", type: "DQL", source: "src", sql: ENDLESS[dialect], output: staged("x") },
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
        const id = await pipeline(w, [
          { id: "n", type: "DQL", source: "src", sql: "SELECT a FROM t ORDER BY a" },
        ]);
        const run = await runs.run(id, {}, { expectDataReady: true });
        deepEqual(run.byType.get("data_ready")![0].data.rows, [[1], [2]]);
      } finally {
        await runs.close();
        await w.close();
        await drop();
      }
    },
  );
}

forEachStore(
  "a read whose writeback target refuses, pool-size + 1 times, gives its connection back",
  async (db) => {
    const w = await world(db);
    const runs = new StoredRuns(w);
    const drop = await source(w, "SQLITE");
    try {
      // The target went read-only after the pipeline was saved: refused at run time, after
      // the source read was already open.
      addDatasource(w, "locked", w.datasources.get("src")!.connector, true);
      for (let i = 0; i <= POOL; i++) {
        const id = await pipeline(w, [{
          id: "copy",
          type: "DQL",
          source: "src",
          sql: "SELECT a FROM t",
          output: { target: "datasource", datasource: "locked", table: "t", mode: "append" },
        }]);
        assertFailed(await runs.run(id), "pipeline.node.readonly_datasource", "copy");
      }
      const id = await pipeline(w, [{
        id: "n",
        type: "DQL",
        source: "src",
        sql: "SELECT a FROM t",
      }]);
      const run = await runs.run(id, {}, { expectDataReady: true });
      deepEqual(run.byType.get("data_ready")![0].data.rows, [[1], [2]]);
    } finally {
      w.datasources.delete("locked");
      await runs.close();
      await w.close();
      await drop();
    }
  },
);

forEachStore(
  "a source statement failing mid-stream into staging is the source's failure, not staging's",
  async (db) => {
    if (servers) return;
    const w = await world(db);
    const runs = new StoredRuns(w);
    const drop = await source(w, "POSTGRES");
    try {
      for (const engine of ["duckdb", "sqlite"]) {
        // Row 3000 divides by zero: two batches are staged before the source fails.
        const id = await pipeline(w, [{
          id: "stage",
          type: "DQL",
          source: "src",
          sql: "SELECT 1 / (g - 3000) AS v FROM generate_series(1, 5000) AS g",
          output: staged("x"),
        }], { settings: { staging_engine: engine } });
        const error = assertFailed(await runs.run(id), "pipeline.node.statement_failed", "stage");
        equal(error.details.dialect, "POSTGRES");
        equal(error.node?.datasource, "src");
        ok(String(error.details.reason).includes("division by zero"), String(error.details.reason));
      }
      const id = await pipeline(w, [{
        id: "n",
        type: "DQL",
        source: "src",
        sql: "SELECT a FROM t",
      }]);
      const run = await runs.run(id, {}, { expectDataReady: true });
      deepEqual(run.byType.get("data_ready")![0].data.rows, [[1], [2]]);
    } finally {
      await runs.close();
      await w.close();
      await drop();
    }
  },
);

function staged(table: string) {
  return { target: "tempdb", table };
}
