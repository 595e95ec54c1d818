/**
 * Child pipelines, fail-fast across parallel branches, the result cap, and progress cadence
 * under an injected clock.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { openConnector } from "../datasources/mod.ts";
import { connectorConfig } from "../../tests/support/datasources.ts";
import { MemoryStore } from "../shared/mod.ts";
import { forEachCrmWorld, forEachWorld } from "../../tests/support/executor_world.ts";
import {
  addDatasource,
  duckdbFile,
  pipeline,
  RecordingSink,
  run,
  SUCCESS_STATES,
} from "./executor_fixtures.ts";
import { ResultStore } from "./result_store.ts";
import { checkEventOrder, type EventFrame } from "./event_order.ts";
import { dql, staged } from "../../tests/support/pipeline_body.ts";

forEachCrmWorld(
  "a PIPELINE node runs the released child with lineage; its rows reach the parent",
  async (w) => {
    const child = await pipeline(
      w,
      [
        dql("reds", {
          source: "crm",
          sql: "SELECT id, name FROM people WHERE team = :team ORDER BY id",
        }),
      ],
      { parameters: { team: { type: "string", required: true } } },
      { release: true },
    );
    const parent = await pipeline(w, [
      {
        id: "sub",
        type: "PIPELINE",
        pipeline: { id: child },
        parameters: { team: { param: "colour" } },
        output: { target: "tempdb", table: "sub" },
      },
      dql("count", {
        source: "tempdb",
        depends_on: ["sub"],
        sql: "SELECT count(*) AS n FROM sub",
      }),
    ], { parameters: { colour: { type: "string", default: "red" } } });
    const sink = new RecordingSink();
    const { byType, record } = await run(w, parent, { sink: sink, expectDataReady: true });
    equal(record.status, "SUCCESS", JSON.stringify(record.error));
    deepEqual(byType.get("data_ready")![0].data.rows, [["2"]]);
    const subDone = byType.get("node_completed")!.find((f) => f.data.node_id === "sub")!.data;
    const childId = subDone.child_execution_id;
    ok(childId);
    equal(subDone.rows_out, 2);
    // The child went through the same sink with lineage, its own ordered stream, no data_ready.
    const childRecord = sink.calls.find((c) => c.kind === "finished" && c.executionId === childId)!
      .value as typeof record;
    equal(childRecord.triggered_via, "PIPELINE");
    equal(childRecord.parent_execution_id, record.execution_id);
    equal(childRecord.parent_node_id, "sub");
    equal(childRecord.root_execution_id, record.execution_id);
    equal(childRecord.pipeline_version, 1);
    equal(childRecord.result_row_count, null);
    const childFrames = checkChild(sink.frames(childId));
    equal(childFrames.get("data_ready"), undefined);
    const childSample = childFrames.get("node_progress")!.at(-1)!.data;
    deepEqual(childSample.destination, { kind: "parent" });
    const subSample = byType.get("node_progress")!.find((f) => f.data.node_id === "sub")!.data;
    equal(subSample.operation, "child");

    // A child that fails fails the node; nesting past the limit is refused.
    const failing = await pipeline(w, [
      { id: "sub", type: "PIPELINE", pipeline: { id: child }, parameters: { team: null } },
    ]);
    const r2 = await run(w, failing);
    equal(r2.record.error!.code, "pipeline.execution.parameter_required");
    const deep = await run(w, parent, { options: { maxDepth: 0 } });
    equal(deep.record.error!.code, "pipeline.execution.depth_exceeded");
  },
);

function checkChild(frames: EventFrame[]): Map<string, EventFrame[]> {
  return checkEventOrder(frames, { expectDataReady: false });
}

forEachCrmWorld(
  "fail-fast: a failing branch aborts a running one, which ends with an aborted sample",
  async (w) => {
    addDatasource(w, "mem", openConnector(connectorConfig("DUCKDB", "jdbc:duckdb:")));
    const id = await pipeline(w, [
      staged("long", "mem", "SELECT count(*) FROM range(100000000000) a", { table: "l" }),
      staged("bad", "crm", "SELECT broken(", { table: "b" }),
      dql("after", { source: "tempdb", depends_on: ["long", "bad"], sql: "SELECT 1" }),
    ]);
    const { byType, record } = await run(w, id, { expectDataReady: true, ms: 15_000 });
    equal(record.status, "FAILED");
    equal(record.failed_node_id, "bad");
    const stats = new Map(record.node_stats!.map((s) => [s.node_id, s.status]));
    deepEqual([stats.get("long"), stats.get("bad"), stats.get("after")], [
      "ABORTED",
      "FAILED",
      "ABORTED",
    ]);
    const longEnd = byType.get("node_progress")!.filter((f) => f.data.node_id === "long").at(-1)!;
    equal(longEnd.data.state, "aborted");
    ok(!byType.get("node_started")!.some((f) => f.data.node_id === "after"));
  },
);

forEachCrmWorld(
  "a result over the cap fails with result.too_large and leaves nothing readable",
  async (w) => {
    const id = await pipeline(w, [
      dql("big", {
        source: "crm",
        sql:
          "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) SELECT i, 'padding padding' AS p FROM n",
      }),
    ]);
    const results = new ResultStore(new MemoryStore(), { maxBytes: 10_000, chunkRows: 100 });
    const { record, byType } = await run(w, id, { options: { results }, expectDataReady: true });
    equal(record.status, "FAILED");
    equal(record.error!.code, "result.too_large");
    deepEqual(byType.get("pipeline_failed")![0].data.error, record.error);
    equal(await results.page(record.execution_id, 0, 10), null);
  },
);

forEachWorld(
  "progress cadence: first entries, at most one sample per interval, one terminal",
  async (w) => {
    await duckdbFile(w, "many", "CREATE TABLE t AS SELECT range AS i FROM range(10000)");
    const id = await pipeline(w, [
      staged("read", "many", "SELECT i FROM t ORDER BY i", { table: "t" }),
    ]);
    // Each clock reading advances 100 ms: samples are due every tenth reading at most.
    let now = Date.parse("2026-01-01T00:00:00Z");
    const clock = () => (now += 100);
    const { byType } = await run(w, id, {
      options: { clock, progressIntervalSeconds: 1 },
      expectDataReady: false,
    });
    const samples = byType.get("node_progress")!.map((f) => f.data);
    const states = samples.map((s) => s.state);
    deepEqual([...new Set(states)], SUCCESS_STATES);
    equal(states.filter((s) => s === "completed").length, 1);
    const firstEntries = new Set<string>();
    let last = -Infinity;
    for (const s of samples) {
      const at = Date.parse(s.observed_at);
      const first = !firstEntries.has(s.state);
      firstEntries.add(s.state);
      if (!first && s.state !== "completed") {
        ok(
          at - last >= 1000,
          `periodic sample ${s.sequence} too soon`,
        );
      }
      last = at;
      // Timings are cumulative and never exceed the elapsed time.
      const total = Object.values(s.timings_ms as Record<string, number>).reduce(
        (a, b) => a + b,
        0,
      );
      ok(total <= s.elapsed_ms);
    }
    ok(samples.length > 6, "periodic samples while rows flowed");
    const end = samples.at(-1)!;
    equal(end.rows_fetched, 10000);
    equal(end.rows_written, 10000);
    // A DuckDB source is staged one engine chunk (2,048 rows) per batch.
    equal(end.batches_written, 5);
    deepEqual(samples.map((s) => s.sequence), samples.map((_, i) => i + 1));
  },
);

forEachCrmWorld(
  "a child that fails is the parent node's child_failed; a stage that cannot be written is staging_failed",
  async (w) => {
    const broken = await pipeline(
      w,
      [
        dql("bad", { source: "crm", sql: "SELECT broken(" }),
      ],
      {},
      { release: true },
    );
    const parent = await pipeline(w, [{ id: "sub", type: "PIPELINE", pipeline: { id: broken } }]);
    const { record, byType } = await run(w, parent);
    deepEqual([record.status, record.failed_node_id, record.error!.code], [
      "FAILED",
      "sub",
      "pipeline.node.child_failed",
    ]);
    equal(record.error!.details.child_code, "pipeline.node.statement_failed");
    const childId = record.error!.details.child_execution_id;
    ok(childId);
    deepEqual(byType.get("node_failed")![0].data.error, record.error);

    // Two columns of one name cannot become a staged table.
    const twice = await pipeline(w, [
      staged("dup", "crm", "SELECT id AS a, name AS a FROM people"),
      dql("out", { source: "tempdb", depends_on: ["dup"], sql: "SELECT 1" }),
    ]);
    const dup = await run(w, twice, { expectDataReady: true });
    deepEqual([dup.record.failed_node_id, dup.record.error!.code], [
      "dup",
      "pipeline.node.staging_failed",
    ]);
  },
);
