/**
 * A DuckDB read staged chunk by chunk (no value converted in JavaScript on the way into tempdb)
 * and delivered: what the caller gets must be what the row path gives.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DuckDBInstance } from "@duckdb/node-api";
import { forEachStore } from "../../tests/stores.ts";
import { connectorConfig } from "../../tests/datasources.ts";
import { openConnector } from "../datasources/mod.ts";
import {
  addDatasource,
  drainStream,
  pipeline,
  RecordingSink,
  request,
  world,
} from "./executor_fixtures.ts";

forEachStore(
  "a staged DuckDB read keeps row order, NULLs, and big integers and decimals as strings",
  async (db) => {
    const w = await world(db);
    try {
      const path = `${w.dir}/facts.duckdb`;
      const instance = await DuckDBInstance.create(path);
      const conn = await instance.connect();
      // More rows than several engine chunks hold, stored in an order no sort would give.
      await conn.run(`CREATE TABLE facts AS SELECT i,
          (9007199254740993 + i * 1000)::BIGINT AS big,
          CASE WHEN i % 3 = 0 THEN NULL ELSE 'name ' || i END AS name,
          (i * -1.5)::DECIMAL(21,1) AS amount,
          CASE WHEN i % 5 = 0 THEN NULL ELSE DATE '2020-01-01' + i::INT END AS day
        FROM range(6000) t(i) ORDER BY (i * 7919) % 6000`);
      conn.closeSync();
      instance.closeSync();
      addDatasource(w, "facts", openConnector(connectorConfig("DUCKDB", `jdbc:duckdb:${path}`)));
      const id = await pipeline(w, [
        {
          id: "stage",
          type: "DQL",
          source: "facts",
          sql: "SELECT * FROM facts",
          output: { target: "tempdb", table: "facts" },
        },
        {
          id: "deliver",
          type: "DQL",
          source: "tempdb",
          depends_on: ["stage"],
          sql: "SELECT * FROM facts",
        },
      ]);
      const req = request(w, id);
      const handle = (await w.executor().prepare(req)).run(new RecordingSink());
      const { byType, record } = await drainStream(handle, { expectDataReady: true });
      equal(record.status, "SUCCESS", JSON.stringify(record.error));
      equal(record.result_row_count, 6000);
      const staged = byType.get("node_progress")!.find((f) =>
        f.data.node_id === "stage" && f.data.state === "completed"
      )!.data;
      equal(staged.rows_fetched, 6000);
      equal(staged.rows_written, 6000);

      const expected = (i: number) => [
        String(i),
        String(9007199254740993n + BigInt(i) * 1000n),
        i % 3 === 0 ? null : `name ${i}`,
        (i * -1.5).toFixed(1),
        i % 5 === 0 ? null : new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10),
      ];
      const order = Array.from({ length: 6000 }, (_, i) =>
        i)
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
      const all = (await w.results.page(req.executionId, 0, 6000))!.rows;
      deepEqual(all, order.map(expected));
    } finally {
      await w.close();
    }
  },
);
