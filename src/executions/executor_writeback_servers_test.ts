/**
 * Writes into PostgreSQL and MariaDB through the executor, on both stores: a writeback and a
 * DML with commit evidence (the rows are on the server), a writeback whose transaction fails
 * half-way with rollback evidence (the target is exactly as before), and a statement stopped by
 * the server's own statement timeout, which fails its node as a timeout.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import { type Connector, openConnector } from "../datasources/mod.ts";
import {
  connectorConfig,
  freshMariaDatabase,
  mariaAdmin,
  pgJdbcUrl,
  waitFor,
} from "../../tests/datasources.ts";
import { skipUnless } from "../../tests/services.ts";
import { forEachStore, freshPostgresDatabase } from "../../tests/stores.ts";
import { addDatasource, pipeline, waitForEvent, type World, world } from "./executor_fixtures.ts";
import { assertFailed, type StoredRun, StoredRuns } from "./stored_run_fixtures.ts";

const servers = skipUnless("postgres", "mariadb");

interface Server {
  dialect: "POSTGRES" | "MYSQL";
  connector: Connector;
  /** Runs SQL as an administrator on the same database (to set up and to look). */
  sql(text: string): Promise<Record<string, unknown>[]>;
  /** Makes every new session of the datasource time out after `ms`. */
  statementTimeout(ms: number): Promise<void>;
  drop(): Promise<void>;
}

async function postgresServer(): Promise<Server> {
  const pg = await freshPostgresDatabase();
  const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
  const name = new URL(pg.url).pathname.slice(1);
  return {
    dialect: "POSTGRES",
    connector: openConnector(connectorConfig("POSTGRES", pgJdbcUrl(pg.url), {
      username: new URL(pg.url).username || "postgres",
    })),
    sql: async (text) => [...await admin.unsafe(text)],
    statementTimeout: async (ms) => {
      await admin.unsafe(`ALTER DATABASE ${name} SET statement_timeout = ${ms}`);
    },
    async drop() {
      await admin.end();
      await pg.drop();
    },
  };
}

async function mariaServer(): Promise<Server> {
  const maria = await freshMariaDatabase();
  const admin = await mariaAdmin(maria.name);
  let timeoutMs = 0;
  return {
    dialect: "MYSQL",
    connector: openConnector(connectorConfig("MYSQL", maria.url, { username: "root" })),
    sql: async (text) => (await admin.query(text))[0] as Record<string, unknown>[],
    // MariaDB has no per-database default; the statement carries its own limit instead.
    statementTimeout: (ms) => Promise.resolve(void (timeoutMs = ms)),
    get prefix() {
      return timeoutMs ? `SET STATEMENT max_statement_time=${timeoutMs / 1000} FOR ` : "";
    },
    async drop() {
      await admin.end();
      await maria.drop();
    },
  } as Server & { prefix: string };
}

/** A SQLite source of account rows; `dup` adds a row whose id repeats. */
function accountsSource(w: World, name: string, dup: boolean): void {
  const path = `${w.dir}/${name}.sqlite`;
  const db = new DatabaseSync(path);
  db.exec(`CREATE TABLE accounts (id INTEGER, owner TEXT, balance INTEGER);
    INSERT INTO accounts VALUES (1, 'Ada', 10), (2, 'Bo', 20)${
    dup ? ", (2, 'Bo again', 30)" : ""
  };`);
  db.close();
  addDatasource(w, name, openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${path}`)));
}

function terminalSample(run: StoredRun, nodeId: string) {
  return run.byType.get("node_progress")!.filter((f) => f.data.node_id === nodeId).at(-1)!.data;
}

const ids = (rows: Record<string, unknown>[]) =>
  rows.map((r) => [Number(r.id), String(r.owner), Number(r.balance)]);

for (const open of [postgresServer, mariaServer]) {
  forEachStore(
    `${open.name}: writeback and DML commit with evidence; a failing writeback rolls back`,
    async (db) => {
      if (servers) return;
      const w = await world(db);
      const runs = new StoredRuns(w);
      const server = await open();
      try {
        addDatasource(w, "target", server.connector);
        accountsSource(w, "good", false);
        accountsSource(w, "bad", true);
        await server.sql(
          "CREATE TABLE ledger (id INTEGER PRIMARY KEY, owner VARCHAR(40), balance INTEGER)",
        );
        await server.sql("INSERT INTO ledger VALUES (7, 'Old', 70)");

        // A staged copy written into a table the node creates, then a DML on it.
        const copy = await pipeline(w, [
          {
            id: "copy",
            type: "DQL",
            source: "good",
            sql: "SELECT id, owner, balance FROM accounts ORDER BY id",
            output: {
              target: "datasource",
              datasource: "target",
              table: "accounts",
              mode: "create",
            },
          },
          {
            id: "bump",
            type: "DML",
            source: "target",
            depends_on: ["copy"],
            sql: "UPDATE accounts SET balance = balance + :delta WHERE id = :id",
          },
        ], {
          parameters: {
            delta: { type: "integer", default: 5 },
            id: { type: "integer", default: 2 },
          },
        });
        const done = await runs.run(copy);
        equal(done.record.status, "SUCCESS", JSON.stringify(done.record.error));
        const written = terminalSample(done, "copy");
        deepEqual(
          [written.state, written.operation, written.committed, written.rows_written],
          ["completed", "writeback", true, 2],
        );
        deepEqual(written.destination, {
          kind: "datasource",
          datasource: "target",
          table: "accounts",
        });
        const bumped = terminalSample(done, "bump");
        // A statement node delivers no rows anywhere (DECISIONS.md "omitted output").
        deepEqual(bumped.destination, { kind: "none" });
        deepEqual([bumped.state, bumped.operation, bumped.committed, bumped.rows_written], [
          "completed",
          "statement",
          true,
          1,
        ]);
        deepEqual(ids(await server.sql("SELECT id, owner, balance FROM accounts ORDER BY id")), [
          [1, "Ada", 10],
          [2, "Bo", 25],
        ]);

        // Replace: the DELETE runs, then the duplicate key fails the INSERT; the whole
        // transaction rolls back and the old row is still there.
        const replace = await pipeline(w, [
          {
            id: "load",
            type: "DQL",
            source: "bad",
            sql: "SELECT id, owner, balance FROM accounts ORDER BY id",
            output: {
              target: "datasource",
              datasource: "target",
              table: "ledger",
              mode: "replace",
            },
          },
        ]);
        const failed = await runs.run(replace);
        const failure = assertFailed(failed, "pipeline.node.statement_failed", "load");
        equal(failure.details.dialect, server.dialect);
        const end = terminalSample(failed, "load");
        deepEqual([end.state, end.committed, end.rolled_back], ["failed", false, true]);
        deepEqual(ids(await server.sql("SELECT id, owner, balance FROM ledger ORDER BY id")), [
          [7, "Old", 70],
        ]);
      } finally {
        await runs.close();
        await w.close();
        await server.drop();
      }
    },
  );

  forEachStore(
    `${open.name}: the server's statement timeout fails the node as a timeout`,
    async (db) => {
      if (servers) return;
      const w = await world(db);
      const runs = new StoredRuns(w);
      const server = await open();
      try {
        await server.statementTimeout(200);
        addDatasource(w, "slow", server.connector);
        const prefix = (server as Server & { prefix?: string }).prefix ?? "";
        const sleep = server.dialect === "POSTGRES" ? "SELECT pg_sleep(30)" : "SELECT SLEEP(30)";
        const id = await pipeline(w, [
          { id: "wait", type: "DQL", source: "slow", sql: `${prefix}${sleep} AS s` },
        ]);
        const run = await runs.run(id);
        const failure = assertFailed(run, "pipeline.node.statement_failed", "wait");
        equal(failure.details.error_class, "timeout");
        equal(terminalSample(run, "wait").state, "failed");
      } finally {
        await runs.close();
        await w.close();
        await server.drop();
      }
    },
  );
}

for (const open of [postgresServer, mariaServer]) {
  forEachStore(
    `${open.name}: a cancelled write stops on the server and rolls back, with evidence`,
    async (db) => {
      if (servers) return;
      const w = await world(db);
      const runs = new StoredRuns(w);
      const server = await open();
      try {
        addDatasource(w, "target", server.connector);
        await server.sql(
          "CREATE TABLE ledger (id INTEGER PRIMARY KEY, owner VARCHAR(40), balance INTEGER)",
        );
        await server.sql("INSERT INTO ledger VALUES (7, 'Old', 70), (8, 'Older', 80)");
        // Row 7 is changed first; row 8's condition then sleeps until the cancel stops it.
        const sleep = server.dialect === "POSTGRES" ? "pg_sleep(60) IS NOT NULL" : "SLEEP(60) = 0";
        const id = await pipeline(w, [{
          id: "zero",
          type: "DML",
          source: "target",
          sql: `UPDATE ledger SET balance = 0 WHERE id = 7 OR (id = 8 AND ${sleep})`,
        }]);
        const handle = await runs.start(id);
        await waitForEvent(
          handle,
          (f) => f.data.node_id === "zero" && f.data.state === "executing",
        );
        const running = server.dialect === "POSTGRES"
          ? "SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'UPDATE ledger%'"
          : "SELECT 1 FROM information_schema.PROCESSLIST WHERE INFO LIKE 'UPDATE ledger%'";
        await waitFor(
          "the UPDATE on the server",
          async () => (await server.sql(running)).length > 0,
        );
        handle.cancel("cancelled");
        const run = await runs.finish(handle, { ms: 15_000 });
        equal(run.record.status, "ABORTED");
        const end = terminalSample(run, "zero");
        deepEqual([end.state, end.committed, end.rolled_back], ["aborted", false, true]);
        await waitFor("the UPDATE to stop", async () => (await server.sql(running)).length === 0);
        deepEqual(ids(await server.sql("SELECT id, owner, balance FROM ledger ORDER BY id")), [
          [7, "Old", 70],
          [8, "Older", 80],
        ]);
      } finally {
        await runs.close();
        await w.close();
        await server.drop();
      }
    },
  );
}
