/**
 * Read-only datasources on the embedded engines (issue 11 item 2; the server dialects are in
 * tests/hostile_sql_servers_test.ts): every DQL statement on a SQLite or DuckDB datasource
 * flagged `readonly` runs under the engine's own read-only rule, delivered or staged, so a write
 * hidden in a read is `pipeline.node.readonly_datasource` and the file is untouched afterwards.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { DuckDBInstance } from "@duckdb/node-api";
import { connectorConfig } from "../../tests/datasources.ts";
import { forEachStore } from "../../tests/stores.ts";
import { openConnector } from "../datasources/mod.ts";
import { addDatasource, pipeline, type World, world } from "./executor_fixtures.ts";
import { assertFailed, StoredRuns } from "./stored_run_fixtures.ts";

const WRITES = [
  "DELETE FROM t RETURNING a",
  "UPDATE t SET a = 0 RETURNING a",
  "INSERT INTO t VALUES (9) RETURNING a",
  "DELETE FROM t",
  "CREATE TABLE made (a INTEGER)",
];

async function refusesEveryWrite(w: World, rows: () => Promise<unknown[]>): Promise<void> {
  const runs = new StoredRuns(w);
  try {
    for (const sql of WRITES) {
      const read = { id: "read", type: "DQL", source: "locked", sql };
      for (const output of [undefined, { target: "tempdb", table: "x" }]) {
        const id = await pipeline(w, [output ? { ...read, output } : read]);
        const error = assertFailed(
          await runs.run(id),
          "pipeline.node.readonly_datasource",
          "read",
        );
        equal(error.details.datasource, "locked", sql);
        deepEqual(await rows(), [1, 2], sql);
      }
    }
  } finally {
    await runs.close();
  }
}

forEachStore("SQLite readonly datasource: writes hidden in DQL nodes are refused", async (db) => {
  const w = await world(db);
  const path = `${w.dir}/locked.sqlite`;
  try {
    const file = new DatabaseSync(path);
    file.exec("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);");
    file.close();
    addDatasource(
      w,
      "locked",
      openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${path}`)),
      true,
    );
    await refusesEveryWrite(w, () => {
      const check = new DatabaseSync(path, { readOnly: true });
      try {
        const tables = check.prepare("SELECT name FROM sqlite_master WHERE name = 'made'").all();
        equal(tables.length, 0, "no table was created");
        return Promise.resolve(check.prepare("SELECT a FROM t ORDER BY a").all().map((r) => r.a));
      } finally {
        check.close();
      }
    });
  } finally {
    await w.close();
  }
});

forEachStore("DuckDB readonly datasource: writes hidden in DQL nodes are refused", async (db) => {
  const w = await world(db);
  const path = `${w.dir}/locked.duckdb`;
  try {
    const instance = await DuckDBInstance.create(path);
    const conn = await instance.connect();
    await conn.run("CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);");
    conn.closeSync();
    instance.closeSync();
    const connector = openConnector(connectorConfig("DUCKDB", `jdbc:duckdb:${path}`));
    addDatasource(w, "locked", connector, true);
    // Read back through the datasource's own (cached) instance: a second one cannot open the file.
    await refusesEveryWrite(w, async () => {
      const tables = [];
      for await (
        const b of await connector.query({
          sql: "SELECT table_name FROM information_schema.tables WHERE table_name = 'made'",
        })
      ) tables.push(...b);
      equal(tables.length, 0, "no table was created");
      const rows = [];
      for await (const b of await connector.query({ sql: "SELECT a FROM t ORDER BY a" })) {
        rows.push(...b.map((r) => r[0]));
      }
      return rows;
    });
  } finally {
    await w.close();
  }
});
