/**
 * Execute over a LAKE source end to end, on both stores: parquet files registered as a lake
 * table through the API, read by the real executor into the run's staging database, joined
 * there with a SQLite datasource, streamed (checked by the §6 ordering checker), stored, paged
 * and replayed. A write-shaped node that reached the lake anyway fails as a read-only write.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { checkEventOrder } from "../src/executions/event_order.ts";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { frames } from "./support/executions_fixtures.ts";
import { registerWithLakeOrders, writeParquet } from "./support/lake.ts";
import { call, startTestServer } from "./support/harness.ts";
import { skipUnless } from "./support/services.ts";
import { STORE_KINDS } from "./support/stores.ts";
import { dql, pipelineDrafts, staged } from "./support/pipeline_body.ts";
import { executeOverHttp, readyOverHttp } from "./support/runs.ts";

for (const store of STORE_KINDS) {
  Deno.test({
    name: `[${store}] a parquet lake table joined with SQLite in staging, through execute`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "svc_exec_lake_" });
      const s = await startTestServer({ store });
      try {
        await Deno.mkdir(`${dir}/lake/sales/orders`, { recursive: true });
        // Two files behind one glob: the table is their union.
        await writeParquet(
          `${dir}/lake/sales/orders/part-0.parquet`,
          "SELECT * FROM (VALUES (1, 10, 9.50::DECIMAL(10,2)), (2, 11, 20.00)) t(id, customer_id, amount)",
        );
        await writeParquet(
          `${dir}/lake/sales/orders/part-1.parquet`,
          "SELECT * FROM (VALUES (3, 10, 1.25::DECIMAL(10,2)), (4, 12, 0.75)) t(id, customer_id, amount)",
        );
        const crm = new DatabaseSync(`${dir}/crm.db`);
        crm.exec(`CREATE TABLE customers (id INTEGER, name TEXT);
          INSERT INTO customers VALUES (10, 'Ada'), (11, 'Grace'), (12, 'Linus');`);
        crm.close();

        const fx = await seedRoles(s.runtime);
        const admin = await sessionHeaders(s.runtime, fx.users.super_admin, "acme");
        await registerWithLakeOrders(s, admin, [
          {
            name: "lake",
            dialect: "LAKE",
            jdbc_url: `jdbc:lake:file://${dir}/lake`,
            credential: { kind: "none" },
          },
          { name: "crm", dialect: "SQLITE", jdbc_url: `jdbc:sqlite:${dir}/crm.db` },
        ], `file://${dir}/lake/sales/orders/*.parquet`);

        const create = pipelineDrafts(s.runtime.db, fx.users.author, fx.workspace.id);
        const joined = await create("sales/lake_by_customer", [
          staged(
            "orders",
            "lake",
            "SELECT customer_id, amount FROM sales.orders WHERE amount >= :min",
          ),
          staged("customers", "crm", "SELECT id, name FROM customers"),
          dql("report", {
            source: "tempdb",
            depends_on: ["orders", "customers"],
            sql:
              "SELECT c.name, sum(o.amount) AS total, count(*) AS n FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name ORDER BY c.name",
          }),
        ], { parameters: { min: { type: "number", default: 1 } } });
        const writes = await create("sales/lake_write", [
          { id: "purge", type: "DML", source: "lake", sql: "DELETE FROM sales.orders" },
        ]);

        const h = await sessionHeaders(s.runtime, fx.users.author, "acme");
        const execute = (id: string) => executeOverHttp(s, h, id);

        const { executionId, frames: streamed, byType, ready } = await readyOverHttp(s, h, joined);
        // 0.75 is below :min (bound, not written into the SQL); decimals travel as strings.
        deepEqual(ready.rows, [["Ada", "10.75", "2"], ["Grace", "20.00", "1"]]);
        deepEqual(ready.schema.map((c: { type: string }) => c.type), [
          "string",
          "decimal",
          "bigint",
        ]);
        const progress = byType.get("node_progress")!.filter((f) =>
          f.data.node_id === "orders" && f.data.state === "completed"
        )[0].data;
        equal(progress.operation, "stage");
        deepEqual(progress.destination, { kind: "tempdb", table: "orders" });
        equal(progress.rows_written, 3);

        const rec = (await call(s, "GET", `/api/v1/executions/${executionId}`, h)).body.data;
        equal(rec.status, "SUCCESS");
        equal(rec.result_row_count, 2);
        deepEqual(
          rec.node_stats.map((n: { node_id: string; rows_out: number }) => [n.node_id, n.rows_out]),
          [["orders", 3], ["customers", 3], ["report", 2]],
        );
        const page = await call(s, "GET", `/api/v1/executions/${executionId}/result`, h);
        deepEqual(page.body.data.rows, ready.rows);
        const replay = await call(s, "GET", `/api/v1/executions/${executionId}/events`, h);
        deepEqual(replay.body.data.events, streamed);

        // The lake is read in place: a DML node on it fails, one record streamed and stored.
        const refused = await execute(writes);
        const refusedId = refused.headers.get("SVC-Execution-Id")!;
        const failedFrames = checkEventOrder(await frames(refused).rest(), {
          expectDataReady: false,
        });
        const failure = failedFrames.get("pipeline_failed")![0].data.error;
        equal(failure.code, "pipeline.node.readonly_datasource");
        deepEqual(failure.details, { node_id: "purge", datasource: "lake" });
        deepEqual(failedFrames.get("node_failed")![0].data.error, failure);
        const stored = (await call(s, "GET", `/api/v1/executions/${refusedId}`, h)).body.data;
        deepEqual(stored.error, failure);
        equal(stored.failed_node_id, "purge");
      } finally {
        await s.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
