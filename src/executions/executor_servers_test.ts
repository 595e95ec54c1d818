/**
 * The executor over the server dialects: reads from PostgreSQL and MariaDB, an unreachable
 * datasource, and each abort reason interrupting a running `pg_sleep` on the server.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachWorld, mariaSource, postgresSource } from "../../tests/support/executor_world.ts";
import {
  addDatasource,
  drainStream,
  lastSample,
  pipeline,
  RecordingSink,
  run,
  start,
  statusOf,
  waitForEvent,
} from "./executor_fixtures.ts";
import { openConnector } from "../datasources/mod.ts";
import { connectorConfig } from "../../tests/support/datasources.ts";
import type { AbortReason } from "./types.ts";
import { checkEventOrder } from "./event_order.ts";
import { dql, staged } from "../../tests/support/pipeline_body.ts";
import { eventually } from "../../tests/support/wait.ts";

forEachWorld("DQLs from PostgreSQL and MariaDB, joined in tempdb", async (w) => {
  await postgresSource(w, "shop", {
    setup:
      "CREATE TABLE orders (id int, amount numeric(10,2)); INSERT INTO orders VALUES (1, 9.50), (2, 20.25)",
  });
  await mariaSource(w, "ledger", {
    setup:
      "CREATE TABLE notes (order_id INT, note VARCHAR(20)); INSERT INTO notes VALUES (1, 'first'), (2, 'second')",
  });
  const id = await pipeline(w, [
    staged("orders", "shop", "SELECT id, amount FROM orders WHERE amount > :min"),
    staged("notes", "ledger", "SELECT order_id, note FROM notes"),
    dql("report", {
      source: "tempdb",
      depends_on: ["orders", "notes"],
      sql:
        "SELECT o.id, o.amount, n.note FROM orders o JOIN notes n ON n.order_id = o.id ORDER BY o.id",
    }),
  ], { parameters: { min: { type: "number", default: 0 } } });
  const { byType, record } = await run(w, id, { expectDataReady: true });
  equal(record.status, "SUCCESS", JSON.stringify(record.error));
  const ready = byType.get("data_ready")![0].data;
  // PostgreSQL reports no precision for a result column, so the staged column is
  // DECIMAL(38,10): the value stays exact, written with ten decimals.
  deepEqual(ready.rows, [[1, "9.5000000000", "first"], [2, "20.2500000000", "second"]]);
  equal(ready.schema[1].type, "decimal");
}, { services: ["postgres", "mariadb"] });

forEachWorld(
  "an unreachable datasource fails its node with datasource_connection_failed",
  async (w) => {
    // Port 1 refuses at once: a real connector, a real refused connection.
    addDatasource(
      w,
      "down",
      openConnector(connectorConfig("POSTGRES", "jdbc:postgresql://127.0.0.1:1/none", {
        username: "postgres",
        hikari: { connectionTimeout: 2000 },
      })),
    );
    const id = await pipeline(w, [dql("read", { source: "down", sql: "SELECT 1" })]);
    const { record, byType } = await run(w, id, { expectDataReady: true });
    equal(record.status, "FAILED");
    equal(record.error!.code, "pipeline.node.datasource_connection_failed");
    equal(record.error!.details.error_class, "unreachable");
    deepEqual(byType.get("node_failed")![0].data.error, record.error);
    const missing = await pipeline(w, [dql("read", { source: "nowhere", sql: "SELECT 1" })]);
    const r2 = await run(w, missing);
    equal(r2.record.error!.code, "datasource.not_found");
  },
);

const REASONS: AbortReason[] = ["cancelled", "client_disconnect", "shutdown"];

forEachWorld(
  "cancel() stops a running pg_sleep on the server, for each abort reason",
  async (w) => {
    const slow = await postgresSource(w, "slow");
    for (const reason of REASONS) {
      const tag = `sleep_${reason}_${crypto.randomUUID().slice(0, 8)}`;
      const id = await pipeline(w, [
        staged("quick", "slow", "SELECT 1 AS x", { table: "q" }),
        dql("sleepy", { source: "slow", sql: `SELECT pg_sleep(60) /* ${tag} */` }),
        staged("later", "tempdb", "SELECT 1", { table: "l", depends_on: ["sleepy"] }),
      ]);
      const handle = await start(w, id);
      await waitForEvent(
        handle,
        (f) => f.data.node_id === "sleepy" && f.data.state === "executing",
      );
      await eventually(async () => (await slow.running(tag)) === 1, {
        what: "pg_sleep running on the server",
        ms: 10_000,
      });
      handle.cancel(reason);
      const { byType, record } = await drainStream(handle, { ms: 10_000 });
      equal(record.status, "ABORTED");
      equal(record.abort_reason, reason);
      const aborted = byType.get("execution_aborted")![0].data;
      equal(aborted.reason, reason);
      equal(aborted.status, "ABORTED");
      equal(statusOf(record, "sleepy"), "ABORTED");
      equal(statusOf(record, "later"), "ABORTED");
      ok(
        !byType.get("node_started")!.some((f) => f.data.node_id === "later"),
        "never started",
      );
      equal(lastSample({ byType }, "sleepy").state, "aborted");
      // The server stopped the statement: no backend is still running it.
      await eventually(async () => (await slow.running(tag)) === 0, {
        what: "the statement to stop on the server",
        ms: 5000,
      });
    }
  },
  { services: ["postgres"] },
);

forEachWorld("cancelling a parent stops its running child for the same reason", async (w) => {
  const slow = await postgresSource(w, "slow");
  const tag = `child_sleep_${crypto.randomUUID().slice(0, 8)}`;
  const child = await pipeline(
    w,
    [
      dql("sleepy", { source: "slow", sql: `SELECT pg_sleep(60) /* ${tag} */` }),
    ],
    {},
    { release: true },
  );
  const parent = await pipeline(w, [{ id: "sub", type: "PIPELINE", pipeline: { id: child } }]);
  const sink = new RecordingSink();
  const handle = await start(w, parent, { sink });
  const started = await waitForEvent(
    handle,
    (f) => f.data.node_id === "sub" && f.data.child_execution_id,
  );
  const childId = started.data.child_execution_id;
  await eventually(async () => (await slow.running(tag)) === 1, {
    what: "the child's pg_sleep on the server",
    ms: 10_000,
  });
  handle.cancel("shutdown");
  const { record } = await drainStream(handle, { ms: 10_000 });
  equal(record.status, "ABORTED");
  const childRecord = sink.calls.find((c) => c.kind === "finished" && c.executionId === childId)!
    .value as typeof record;
  equal(childRecord.status, "ABORTED");
  equal(childRecord.abort_reason, "shutdown");
  checkEventOrder(sink.frames(childId));
  await eventually(async () => (await slow.running(tag)) === 0, {
    what: "the child's statement to stop",
    ms: 5000,
  });
}, { services: ["postgres"] });
