/**
 * The executor over the server dialects: reads from PostgreSQL and MariaDB, an unreachable
 * datasource, and each abort reason interrupting a running `pg_sleep` on the server.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { openConnector } from "../datasources/mod.ts";
import {
  connectorConfig,
  freshMariaDatabase,
  pgJdbcUrl,
  waitFor,
} from "../../tests/datasources.ts";
import { skipUnless } from "../../tests/services.ts";
import { forEachStore, freshPostgresDatabase } from "../../tests/stores.ts";
import {
  addDatasource,
  drainStream,
  pipeline,
  RecordingSink,
  request,
  waitForEvent,
  world,
} from "./executor_fixtures.ts";
import type { AbortReason } from "./types.ts";
import { checkEventOrder } from "./event_order.ts";

const servers = skipUnless("postgres", "mariadb");

forEachStore("DQLs from PostgreSQL and MariaDB, joined in tempdb", async (db) => {
  if (servers) return;
  const w = await world(db);
  const pg = await freshPostgresDatabase();
  const maria = await freshMariaDatabase();
  try {
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    await admin.unsafe(
      "CREATE TABLE orders (id int, amount numeric(10,2)); INSERT INTO orders VALUES (1, 9.50), (2, 20.25)",
    );
    await admin.end();
    const pgUrl = new URL(pg.url);
    addDatasource(
      w,
      "shop",
      openConnector(connectorConfig("POSTGRES", pgJdbcUrl(pg.url), {
        username: pgUrl.username || "postgres",
      })),
    );
    addDatasource(
      w,
      "ledger",
      openConnector(connectorConfig("MYSQL", maria.url, { username: "root" })),
    );
    const ledger = w.datasources.get("ledger")!.connector;
    await ledger.write([
      { sql: "CREATE TABLE notes (order_id INT, note VARCHAR(20))" },
      { sql: "INSERT INTO notes VALUES (1, 'first'), (2, 'second')" },
    ]);
    const id = await pipeline(w, [
      {
        id: "orders",
        type: "DQL",
        source: "shop",
        sql: "SELECT id, amount FROM orders WHERE amount > :min",
        output: { target: "tempdb", table: "orders" },
      },
      {
        id: "notes",
        type: "DQL",
        source: "ledger",
        sql: "SELECT order_id, note FROM notes",
        output: { target: "tempdb", table: "notes" },
      },
      {
        id: "report",
        type: "DQL",
        source: "tempdb",
        depends_on: ["orders", "notes"],
        sql:
          "SELECT o.id, o.amount, n.note FROM orders o JOIN notes n ON n.order_id = o.id ORDER BY o.id",
      },
    ], { parameters: { min: { type: "number", default: 0 } } });
    const { byType, record } = await drainStream(
      (await w.executor().prepare(request(w, id))).run(new RecordingSink()),
      { expectDataReady: true },
    );
    equal(record.status, "SUCCESS", JSON.stringify(record.error));
    const ready = byType.get("data_ready")![0].data;
    // PostgreSQL reports no precision for a result column, so the staged column is
    // DECIMAL(38,10): the value stays exact, written with ten decimals.
    deepEqual(ready.rows, [[1, "9.5000000000", "first"], [2, "20.2500000000", "second"]]);
    equal(ready.schema[1].type, "decimal");
  } finally {
    await w.close();
    await pg.drop();
    await maria.drop();
  }
});

forEachStore(
  "an unreachable datasource fails its node with datasource_connection_failed",
  async (db) => {
    const w = await world(db);
    try {
      // Port 1 refuses at once: a real connector, a real refused connection.
      addDatasource(
        w,
        "down",
        openConnector(connectorConfig("POSTGRES", "jdbc:postgresql://127.0.0.1:1/none", {
          username: "postgres",
          hikari: { connectionTimeout: 2000 },
        })),
      );
      const id = await pipeline(w, [{ id: "read", type: "DQL", source: "down", sql: "SELECT 1" }]);
      const { record, byType } = await drainStream(
        (await w.executor().prepare(request(w, id))).run(new RecordingSink()),
        { expectDataReady: true },
      );
      equal(record.status, "FAILED");
      equal(record.error!.code, "pipeline.node.datasource_connection_failed");
      equal(record.error!.details.error_class, "unreachable");
      deepEqual(byType.get("node_failed")![0].data.error, record.error);
      const missing = await pipeline(w, [{
        id: "read",
        type: "DQL",
        source: "nowhere",
        sql: "SELECT 1",
      }]);
      const r2 = await drainStream(
        (await w.executor().prepare(request(w, missing))).run(new RecordingSink()),
      );
      equal(r2.record.error!.code, "datasource.not_found");
    } finally {
      await w.close();
    }
  },
);

const REASONS: AbortReason[] = ["cancelled", "client_disconnect", "shutdown"];

forEachStore(
  "cancel() stops a running pg_sleep on the server, for each abort reason",
  async (db) => {
    if (skipUnless("postgres")) return;
    const w = await world(db);
    const pg = await freshPostgresDatabase();
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      addDatasource(
        w,
        "slow",
        openConnector(connectorConfig("POSTGRES", pgJdbcUrl(pg.url), {
          username: new URL(pg.url).username || "postgres",
        })),
      );
      for (const reason of REASONS) {
        const tag = `sleep_${reason}_${crypto.randomUUID().slice(0, 8)}`;
        const id = await pipeline(w, [
          {
            id: "quick",
            type: "DQL",
            source: "slow",
            sql: "SELECT 1 AS x",
            output: { target: "tempdb", table: "q" },
          },
          { id: "sleepy", type: "DQL", source: "slow", sql: `SELECT pg_sleep(60) /* ${tag} */` },
          {
            id: "later",
            type: "DQL",
            source: "tempdb",
            depends_on: ["sleepy"],
            sql: "SELECT 1",
            output: { target: "tempdb", table: "l" },
          },
        ]);
        const handle = (await w.executor().prepare(request(w, id))).run(new RecordingSink());
        await waitForEvent(
          handle,
          (f) => f.data.node_id === "sleepy" && f.data.state === "executing",
        );
        await waitFor("pg_sleep running on the server", async () =>
          (await admin.unsafe(
            `SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%${tag}%' AND pid <> pg_backend_pid()`,
          )).length === 1);
        handle.cancel(reason);
        const { byType, record } = await drainStream(handle, { ms: 10_000 });
        equal(record.status, "ABORTED");
        equal(record.abort_reason, reason);
        const aborted = byType.get("execution_aborted")![0].data;
        equal(aborted.reason, reason);
        equal(aborted.status, "ABORTED");
        const stats = new Map(record.node_stats!.map((s) => [s.node_id, s.status]));
        equal(stats.get("sleepy"), "ABORTED");
        equal(stats.get("later"), "ABORTED");
        ok(
          !byType.get("node_started")!.some((f) => f.data.node_id === "later"),
          "never started",
        );
        equal(
          byType.get("node_progress")!.filter((f) => f.data.node_id === "sleepy").at(-1)!.data
            .state,
          "aborted",
        );
        // The server stopped the statement: no backend is still running it.
        await waitFor("the statement to stop on the server", async () =>
          (await admin.unsafe(
            `SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%${tag}%' AND pid <> pg_backend_pid()`,
          )).length === 0, 5000);
      }
    } finally {
      await admin.end();
      await w.close();
      await pg.drop();
    }
  },
);

forEachStore("cancelling a parent stops its running child for the same reason", async (db) => {
  if (skipUnless("postgres")) return;
  const w = await world(db);
  const pg = await freshPostgresDatabase();
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    addDatasource(
      w,
      "slow",
      openConnector(connectorConfig("POSTGRES", pgJdbcUrl(pg.url), {
        username: new URL(pg.url).username || "postgres",
      })),
    );
    const tag = `child_sleep_${crypto.randomUUID().slice(0, 8)}`;
    const child = await pipeline(
      w,
      [
        { id: "sleepy", type: "DQL", source: "slow", sql: `SELECT pg_sleep(60) /* ${tag} */` },
      ],
      {},
      { release: true },
    );
    const parent = await pipeline(w, [{ id: "sub", type: "PIPELINE", pipeline: { id: child } }]);
    const sink = new RecordingSink();
    const handle = (await w.executor().prepare(request(w, parent))).run(sink);
    const started = await waitForEvent(
      handle,
      (f) => f.data.node_id === "sub" && f.data.child_execution_id,
    );
    const childId = started.data.child_execution_id;
    await waitFor("the child's pg_sleep on the server", async () =>
      (await admin.unsafe(
        `SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%${tag}%' AND pid <> pg_backend_pid()`,
      )).length === 1);
    handle.cancel("shutdown");
    const { record } = await drainStream(handle, { ms: 10_000 });
    equal(record.status, "ABORTED");
    const childRecord = sink.calls.find((c) => c.kind === "finished" && c.executionId === childId)!
      .value as typeof record;
    equal(childRecord.status, "ABORTED");
    equal(childRecord.abort_reason, "shutdown");
    checkEventOrder(sink.frames(childId));
    await waitFor("the child's statement to stop", async () =>
      (await admin.unsafe(
        `SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%${tag}%' AND pid <> pg_backend_pid()`,
      )).length === 0, 5000);
  } finally {
    await admin.end();
    await w.close();
    await pg.drop();
  }
});
