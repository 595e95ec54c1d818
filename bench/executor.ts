/**
 * Executor figures, each against a baseline measured in the same run:
 *  (a) end-to-end execute of a one-node pipeline returning 10 rows (prepare from the SQLite
 *      metadata store, run, every event, result stored, data_ready) vs the same query on the raw
 *      driver: overhead p50 (target ≤ 5 ms on the embedded default);
 *  (b) 1,000,000 rows × 5 columns staged in tempdb and delivered to the caller vs DuckDB reading
 *      the same data directly: rows/s ratio (target ≥ 0.5).
 */
import { DatabaseSync } from "node:sqlite";
import { DuckDBInstance } from "@duckdb/node-api";
import { openConnector } from "../src/datasources/connectors/mod.ts";
import { ResultStore } from "../src/executions/result_store.ts";
import type { ExecutionSink } from "../src/executions/types.ts";
import { MemoryStore } from "../src/shared/mod.ts";
import { migrate } from "../src/store/mod.ts";
import { connectorConfig } from "../tests/datasources.ts";
import { freshStore } from "../tests/stores.ts";
import { addDatasource, pipeline, request, world } from "../src/executions/executor_fixtures.ts";

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(10);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The executions service's sink does I/O; here it only takes the calls. */
const sink: ExecutionSink = {
  started: () => Promise.resolve(),
  event: () => Promise.resolve(),
  finished: () => Promise.resolve(),
};

export async function executorBench(): Promise<void> {
  const store = await freshStore("sqlite");
  const db = await store.open();
  await migrate(db);
  const w = await world(db);
  try {
    // (a) ten rows from a SQLite datasource.
    const path = `${w.dir}/small.sqlite`;
    const raw = new DatabaseSync(path);
    raw.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, v REAL);
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
      INSERT INTO t SELECT i, 'name ' || i, i * 1.5 FROM n;`);
    addDatasource(w, "small", openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${path}`)));
    const sql = "SELECT id, name, v FROM t WHERE id <= 10 ORDER BY id";
    const id = await pipeline(w, [{ id: "read", type: "DQL", source: "small", sql }]);
    const executor = w.executor();
    const once = async () => {
      const t0 = performance.now();
      const handle = (await executor.prepare(request(w, id))).run(sink);
      for await (const _ of handle.events()) { /* drain like the SSE writer */ }
      const record = await handle.done;
      if (record.status !== "SUCCESS" || record.result_row_count !== 10) {
        throw new Error(`bench run failed: ${JSON.stringify(record.error)}`);
      }
      return performance.now() - t0;
    };
    const rawOnce = () => {
      const t0 = performance.now();
      const rows = raw.prepare(sql).all();
      if (rows.length !== 10) throw new Error("raw count");
      return performance.now() - t0;
    };
    for (let i = 0; i < 50; i++) await once(), rawOnce();
    const e2e: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < 300; i++) {
      e2e.push(await once());
      base.push(rawOnce());
    }
    raw.close();
    const overhead = median(e2e) - median(base);
    console.log("\nexecute: one-node pipeline, 10 rows (SQLite datasource, embedded default)");
    console.log(`raw node:sqlite p50   ${fmt(median(base), 3)} ms`);
    console.log(`end-to-end p50        ${fmt(median(e2e), 3)} ms`);
    console.log(
      `overhead p50: ${overhead.toFixed(2)} ms (target <= 5 ms: ${
        overhead <= 5 ? "met" : "MISSED"
      })`,
    );

    // (b) 1,000,000 rows × 5 columns staged, then delivered to the caller.
    const ROWS = 1_000_000;
    const bigPath = `${w.dir}/big.duckdb`;
    const instance = await DuckDBInstance.create(bigPath);
    const conn = await instance.connect();
    await conn.run(`CREATE TABLE big AS SELECT range AS id, 'name ' || range AS name,
      range * 0.5 AS amount, range % 7 = 0 AS flag, DATE '2020-01-01' + (range % 1000)::INT AS day
      FROM range(${ROWS})`);
    const direct = async () => {
      const t0 = performance.now();
      const result = await conn.stream("SELECT * FROM big");
      let n = 0;
      while (true) {
        const chunk = await result.fetchChunk();
        if (!chunk || chunk.rowCount === 0) break;
        n += chunk.getRows().length;
      }
      if (n !== ROWS) throw new Error("direct count");
      return performance.now() - t0;
    };
    addDatasource(w, "big", openConnector(connectorConfig("DUCKDB", `jdbc:duckdb:${bigPath}`)));
    const bigId = await pipeline(w, [
      {
        id: "stage",
        type: "DQL",
        source: "big",
        sql: "SELECT * FROM big",
        output: { target: "tempdb", table: "big" },
      },
      {
        id: "deliver",
        type: "DQL",
        source: "tempdb",
        depends_on: ["stage"],
        sql: "SELECT * FROM big",
      },
    ]);
    const results = new ResultStore(new MemoryStore(), { maxBytes: 2 ** 31 });
    const bigExecutor = w.executor({ results });
    const staged = async () => {
      const t0 = performance.now();
      const req = request(w, bigId);
      const handle = (await bigExecutor.prepare(req)).run(sink);
      const record = await handle.done;
      if (record.result_row_count !== ROWS) {
        throw new Error(`staged run: ${record.status} ${JSON.stringify(record.error)}`);
      }
      const ms = performance.now() - t0;
      await results.remove(req.executionId);
      return ms;
    };
    await direct();
    const d: number[] = [];
    const s: number[] = [];
    for (let i = 0; i < 3; i++) {
      d.push(await direct());
      s.push(await staged());
    }
    conn.closeSync();
    instance.closeSync();
    const directRate = ROWS / (Math.min(...d) / 1000);
    const stagedRate = ROWS / (Math.min(...s) / 1000);
    console.log(`\n1,000,000 rows x 5 columns: staged in tempdb and delivered, best of 3`);
    console.log(`DuckDB direct read    ${fmt(directRate)} rows/s`);
    console.log(`staged + delivered    ${fmt(stagedRate)} rows/s`);
    const ratio = stagedRate / directRate;
    console.log(`ratio: ${ratio.toFixed(2)} (target >= 0.5: ${ratio >= 0.5 ? "met" : "MISSED"})`);
  } finally {
    await w.close();
    await store.dispose();
  }
}
