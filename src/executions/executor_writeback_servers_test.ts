/**
 * Writes into PostgreSQL and MariaDB through the executor, on both stores: a writeback and a
 * DML with commit evidence (the rows are on the server), a writeback whose transaction fails
 * half-way with rollback evidence (the target is exactly as before), and a statement stopped by
 * the server's own statement timeout, which fails its node as a timeout.
 */
import { deepEqual, equal } from "node:assert/strict";
import type { ServiceName } from "../../tests/support/services.ts";
import { forEachWorld, mariaSource, postgresSource } from "../../tests/support/executor_world.ts";
import { lastSample, pipeline, sqliteFile, waitForEvent, type World } from "./executor_fixtures.ts";
import { assertFailed } from "./stored_run_fixtures.ts";
import { dql } from "../../tests/support/pipeline_body.ts";
import { eventually } from "../../tests/support/wait.ts";

const SERVERS = { services: ["postgres", "mariadb"] satisfies ServiceName[] };

interface Server {
  dialect: "POSTGRES" | "MYSQL";
  /** Runs SQL as an administrator on the same database (to set up and to look). */
  sql(text: string): Promise<Record<string, unknown>[]>;
  /** Makes every statement of the datasource time out after `ms`. */
  statementTimeout(ms: number): Promise<void>;
  /** What a statement starts with to carry the timeout itself (MariaDB). */
  prefix(): string;
}

/** A fresh PostgreSQL database as datasource `name`. */
async function postgresServer(w: World, name: string): Promise<Server> {
  const pg = await postgresSource(w, name);
  const database = new URL(pg.url).pathname.slice(1);
  return {
    dialect: "POSTGRES",
    sql: async (text) => [...await pg.sql.unsafe(text)],
    // Every new session of the datasource gets it.
    statementTimeout: async (ms) => {
      await pg.sql.unsafe(`ALTER DATABASE ${database} SET statement_timeout = ${ms}`);
    },
    prefix: () => "",
  };
}

/** A fresh MariaDB database as datasource `name`. */
async function mariaServer(w: World, name: string): Promise<Server> {
  const maria = await mariaSource(w, name);
  let timeoutMs = 0;
  return {
    dialect: "MYSQL",
    sql: async (text) => (await maria.sql.query(text))[0] as Record<string, unknown>[],
    // MariaDB has no per-database default; the statement carries its own limit instead.
    statementTimeout: (ms) => Promise.resolve(void (timeoutMs = ms)),
    prefix: () => timeoutMs ? `SET STATEMENT max_statement_time=${timeoutMs / 1000} FOR ` : "",
  };
}

/** A SQLite source of account rows; `dup` adds a row whose id repeats. */
function accountsSource(w: World, name: string, dup: boolean): void {
  sqliteFile(
    w,
    name,
    `CREATE TABLE accounts (id INTEGER, owner TEXT, balance INTEGER);
    INSERT INTO accounts VALUES (1, 'Ada', 10), (2, 'Bo', 20)${
      dup ? ", (2, 'Bo again', 30)" : ""
    };`,
  );
}

const ids = (rows: Record<string, unknown>[]) =>
  rows.map((r) => [Number(r.id), String(r.owner), Number(r.balance)]);

for (const open of [postgresServer, mariaServer]) {
  forEachWorld(
    `${open.name}: writeback and DML commit with evidence; a failing writeback rolls back`,
    async (w, runs) => {
      const server = await open(w, "target");
      accountsSource(w, "good", false);
      accountsSource(w, "bad", true);
      await server.sql(
        "CREATE TABLE ledger (id INTEGER PRIMARY KEY, owner VARCHAR(40), balance INTEGER)",
      );
      await server.sql("INSERT INTO ledger VALUES (7, 'Old', 70)");

      // A staged copy written into a table the node creates, then a DML on it.
      const copy = await pipeline(w, [
        dql("copy", {
          source: "good",
          sql: "SELECT id, owner, balance FROM accounts ORDER BY id",
          output: {
            target: "datasource",
            datasource: "target",
            table: "accounts",
            mode: "create",
          },
        }),
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
      const written = lastSample(done, "copy");
      deepEqual(
        [written.state, written.operation, written.committed, written.rows_written],
        ["completed", "writeback", true, 2],
      );
      deepEqual(written.destination, {
        kind: "datasource",
        datasource: "target",
        table: "accounts",
      });
      const bumped = lastSample(done, "bump");
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
        dql("load", {
          source: "bad",
          sql: "SELECT id, owner, balance FROM accounts ORDER BY id",
          output: {
            target: "datasource",
            datasource: "target",
            table: "ledger",
            mode: "replace",
          },
        }),
      ]);
      const failed = await runs.run(replace);
      const failure = assertFailed(failed, "pipeline.node.statement_failed", "load");
      equal(failure.details.dialect, server.dialect);
      const end = lastSample(failed, "load");
      deepEqual([end.state, end.committed, end.rolled_back], ["failed", false, true]);
      deepEqual(ids(await server.sql("SELECT id, owner, balance FROM ledger ORDER BY id")), [
        [7, "Old", 70],
      ]);
    },
    SERVERS,
  );

  forEachWorld(
    `${open.name}: the server's statement timeout fails the node as a timeout`,
    async (w, runs) => {
      const server = await open(w, "slow");
      await server.statementTimeout(200);
      const prefix = server.prefix();
      const sleep = server.dialect === "POSTGRES" ? "SELECT pg_sleep(30)" : "SELECT SLEEP(30)";
      const id = await pipeline(w, [
        dql("wait", { source: "slow", sql: `${prefix}${sleep} AS s` }),
      ]);
      const run = await runs.run(id);
      const failure = assertFailed(run, "pipeline.node.statement_failed", "wait");
      equal(failure.details.error_class, "timeout");
      equal(lastSample(run, "wait").state, "failed");
    },
    SERVERS,
  );
}

for (const open of [postgresServer, mariaServer]) {
  forEachWorld(
    `${open.name}: a cancelled write stops on the server and rolls back, with evidence`,
    async (w, runs) => {
      const server = await open(w, "target");
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
      await eventually(async () => (await server.sql(running)).length > 0, {
        what: "the UPDATE on the server",
        ms: 10_000,
      });
      handle.cancel("cancelled");
      const run = await runs.finish(handle, { ms: 15_000 });
      equal(run.record.status, "ABORTED");
      const end = lastSample(run, "zero");
      deepEqual([end.state, end.committed, end.rolled_back], ["aborted", false, true]);
      await eventually(async () => (await server.sql(running)).length === 0, {
        what: "the UPDATE to stop",
        ms: 10_000,
      });
      deepEqual(ids(await server.sql("SELECT id, owner, balance FROM ledger ORDER BY id")), [
        [7, "Old", 70],
        [8, "Older", 80],
      ]);
    },
    SERVERS,
  );
}
