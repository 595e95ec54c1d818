/**
 * A SQLite read that fails while stepping fails its node with `pipeline.node.statement_failed`
 * and SQLite's message, on a SQLite datasource and on the SQLite staging engine, wherever the
 * failing row falls against the connector's 1000-row batches: never a short success, and every
 * stream (live and stored) passes the §6 ordering checker.
 */
import { equal, ok } from "node:assert/strict";
import { forEachCrmWorld } from "../../tests/support/executor_world.ts";
import { pipeline } from "./executor_fixtures.ts";
import { assertFailed } from "./stored_run_fixtures.ts";
import { dql, staged } from "../../tests/support/pipeline_body.ts";

const SERIES = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 4000)";
const FAILURES = [
  { expr: "json_extract('{bad', '$.a')", text: /malformed JSON/ },
  { expr: "abs(-9223372036854775807 - 1)", text: /integer overflow/ },
];
// The first row, inside the first batch, after two whole batches.
const POSITIONS = [1, 500, 2500];

forEachCrmWorld(
  "a SQLite read failing mid-stream fails its node with SQLite's error",
  async (w, runs) => {
    const plain = assertFailed(
      await runs.run(
        await pipeline(w, [dql("read", { source: "crm", sql: "SELECT nope" })]),
      ),
      "pipeline.node.statement_failed",
      "read",
    );
    for (const { expr, text } of FAILURES) {
      for (const at of POSITIONS) {
        const sql = `${SERIES} SELECT i, CASE WHEN i = ${at} THEN ${expr} ELSE i END AS v FROM c`;
        const onSource = await pipeline(w, [dql("read", { source: "crm", sql })]);
        // The same read on the SQLite staging engine, after a staged step.
        const onStaging = await pipeline(w, [
          staged("stage", "crm", "SELECT id FROM people", { table: "ids" }),
          dql("read", { source: "tempdb", depends_on: ["stage"], sql }),
        ], { settings: { staging_engine: "sqlite" } });
        for (const [where, id] of [["datasource", onSource], ["staging", onStaging]]) {
          const label = `${text.source} at row ${at} on the ${where}`;
          const run = await runs.run(id);
          const failure = assertFailed(run, "pipeline.node.statement_failed", "read");
          ok(text.test(String(failure.details.reason)), `${label}: ${failure.details.reason}`);
          equal(failure.details.error_class, plain.details.error_class, label);
          equal(failure.details.dialect, "SQLITE", label);
          equal(failure.sql, sql, label);
          const completed = (run.byType.get("node_completed") ?? []).map((f) => f.data.node_id);
          ok(!completed.includes("read"), `${label}: the node never completed`);
          equal(run.byType.get("data_ready"), undefined, `${label}: no result was offered`);
        }
      }
    }
  },
);
