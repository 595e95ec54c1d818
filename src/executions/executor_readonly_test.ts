/**
 * Read-only datasources on the embedded engines (issue 11 item 2; the server dialects are in
 * tests/hostile_sql_servers_test.ts): every DQL statement on a SQLite or DuckDB datasource
 * flagged `readonly` runs under the engine's own read-only rule, delivered or staged, so a write
 * hidden in a read is `pipeline.node.readonly_datasource` and the file is untouched afterwards.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { forEachWorld } from "../../tests/support/executor_world.ts";
import { duckdbFile, pipeline, sqliteFile, type World } from "./executor_fixtures.ts";
import { assertFailed, type StoredRuns } from "./stored_run_fixtures.ts";
import { dql } from "../../tests/support/pipeline_body.ts";

const WRITES = [
  "DELETE FROM t RETURNING a",
  "UPDATE t SET a = 0 RETURNING a",
  "INSERT INTO t VALUES (9) RETURNING a",
  "DELETE FROM t",
  "CREATE TABLE made (a INTEGER)",
];

const T = "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1), (2);";

async function refusesEveryWrite(
  w: World,
  runs: StoredRuns,
  rows: () => Promise<unknown[]>,
): Promise<void> {
  for (const sql of WRITES) {
    const read = dql("read", { source: "locked", sql });
    for (const output of [undefined, { target: "tempdb", table: "x" }]) {
      const id = await pipeline(w, [output ? { ...read, output } : read]);
      const error = assertFailed(await runs.run(id), "pipeline.node.readonly_datasource", "read");
      equal(error.details.datasource, "locked", sql);
      deepEqual(await rows(), [1, 2], sql);
    }
  }
}

forEachWorld(
  "SQLite readonly datasource: writes hidden in DQL nodes are refused",
  async (w, runs) => {
    const path = sqliteFile(w, "locked", T, { readonly: true });
    await refusesEveryWrite(w, runs, () => {
      const check = new DatabaseSync(path, { readOnly: true });
      try {
        const tables = check.prepare("SELECT name FROM sqlite_master WHERE name = 'made'").all();
        equal(tables.length, 0, "no table was created");
        return Promise.resolve(check.prepare("SELECT a FROM t ORDER BY a").all().map((r) => r.a));
      } finally {
        check.close();
      }
    });
  },
);

forEachWorld(
  "DuckDB readonly datasource: writes hidden in DQL nodes are refused",
  async (w, runs) => {
    await duckdbFile(w, "locked", T, { readonly: true });
    const connector = w.datasources.get("locked")!.connector;
    // Read back through the datasource's own (cached) instance: a second one cannot open the file.
    await refusesEveryWrite(w, runs, async () => {
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
  },
);
