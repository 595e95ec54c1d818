/**
 * A DuckDB read staged chunk by chunk (no value converted in JavaScript on the way into tempdb)
 * and delivered: what the caller gets must be what the row path gives.
 */
import { deepEqual, equal } from "node:assert/strict";
import { forEachWorld } from "../../tests/support/executor_world.ts";
import { duckdbFile, lastSample, pipeline, run } from "./executor_fixtures.ts";
import { dql, staged } from "../../tests/support/pipeline_body.ts";

forEachWorld(
  "a staged DuckDB read keeps row order, NULLs, and big integers and decimals as strings",
  async (w) => {
    // More rows than several engine chunks hold, stored in an order no sort would give.
    await duckdbFile(
      w,
      "facts",
      `CREATE TABLE facts AS SELECT i,
        (9007199254740993 + i * 1000)::BIGINT AS big,
        CASE WHEN i % 3 = 0 THEN NULL ELSE 'name ' || i END AS name,
        (i * -1.5)::DECIMAL(21,1) AS amount,
        CASE WHEN i % 5 = 0 THEN NULL ELSE DATE '2020-01-01' + i::INT END AS day
      FROM range(6000) t(i) ORDER BY (i * 7919) % 6000`,
    );
    const id = await pipeline(w, [
      staged("stage", "facts", "SELECT * FROM facts", { table: "facts" }),
      dql("deliver", { source: "tempdb", depends_on: ["stage"], sql: "SELECT * FROM facts" }),
    ]);
    const { byType, record } = await run(w, id, { expectDataReady: true });
    equal(record.status, "SUCCESS", JSON.stringify(record.error));
    equal(record.result_row_count, 6000);
    const stage = lastSample({ byType }, "stage");
    equal(stage.state, "completed");
    equal(stage.rows_fetched, 6000);
    equal(stage.rows_written, 6000);

    const expected = (i: number) => [
      String(i),
      String(9007199254740993n + BigInt(i) * 1000n),
      i % 3 === 0 ? null : `name ${i}`,
      (i * -1.5).toFixed(1),
      i % 5 === 0 ? null : new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10),
    ];
    const order = Array.from({ length: 6000 }, (_, i) => i)
      .sort((a, b) => (a * 7919) % 6000 - (b * 7919) % 6000);
    const ready = byType.get("data_ready")![0].data;
    deepEqual(ready.rows.slice(0, 3), order.slice(0, 3).map(expected));
    deepEqual(ready.schema.map((c: { type: string }) => c.type), [
      "bigint",
      "bigint",
      "string",
      "decimal",
      "date",
    ]);
    const all = (await w.results.page(record.execution_id, 0, 6000))!.rows;
    deepEqual(all, order.map(expected));
  },
);
