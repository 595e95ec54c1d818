/**
 * Every abort reason interrupting in-flight statements on the real drivers at once: a MariaDB
 * `SLEEP` (stopped by KILL QUERY: gone from the server's processlist), a DuckDB cross join
 * (interrupted), and a SQLite stream (stopped between batches, its driver has no interrupt).
 * After each run every pool has its connection back and answers again. Fail-fast (a failing
 * node) and a parent's abort stop the same statements. PostgreSQL's `pg_sleep` is covered per
 * reason in executor_servers_test.ts; these runs go through the durable sink on both stores.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import postgres from "postgres";
import { openConnector } from "../datasources/connectors/mod.ts";
import type { Pool } from "../datasources/connectors/pool.ts";
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
import { type StoredRun, StoredRuns } from "./stored_run_fixtures.ts";
import type { AbortReason, ExecutionHandle } from "./types.ts";

const servers = skipUnless("postgres", "mariadb");
const REASONS: AbortReason[] = ["cancelled", "client_disconnect", "shutdown"];

function poolOf(w: World, name: string): Pool<unknown> {
  return (w.datasources.get(name)!.connector as unknown as { pool: Pool<unknown> }).pool;
}

/** The three slow reads, tagged so the MariaDB one can be found on the server. */
function slowNodes(tag: string): unknown[] {
  return [
    { id: "maria", type: "DQL", source: "maria", sql: `SELECT SLEEP(60) AS s /* ${tag} */` },
    {
      id: "duck",
      type: "DQL",
      source: "duck",
      sql: "SELECT count(*) AS n FROM range(100000000000) a",
      output: { target: "tempdb", table: "duck" },
    },
    {
      id: "lite",
      type: "DQL",
      source: "lite",
      sql:
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000) SELECT i FROM n",
      output: { target: "tempdb", table: "lite" },
    },
  ];
}

async function mariaRunning(tag: string): Promise<number> {
  const admin = await mariaAdmin();
  try {
    const [rows] = await admin.query(
      `SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()`,
      [`%${tag}%`],
    );
    return (rows as unknown[]).length;
  } finally {
    await admin.end();
  }
}

/** Waits until all three statements are in flight (SLEEP on the server, rows from SQLite). */
async function allRunning(handle: ExecutionHandle, tag: string): Promise<void> {
  await waitForEvent(handle, (f) => f.data.node_id === "duck" && f.data.state === "executing");
  await waitForEvent(handle, (f) => f.data.node_id === "lite" && f.data.rows_written > 0);
  await waitFor("SLEEP running on MariaDB", async () => (await mariaRunning(tag)) === 1);
}

/** The statements stopped, every pool has its connection back and answers a new read. */
async function released(w: World, tag: string): Promise<void> {
  await waitFor("the SLEEP to leave the processlist", async () => (await mariaRunning(tag)) === 0);
  // KILL QUERY stops the statement and leaves its connection usable: it is back in the pool,
  // not discarded and replaced (closing the socket would also end a SLEEP, but lose it).
  await waitFor(
    "maria's connection back in its pool",
    () => Promise.resolve(poolOf(w, "maria").stats.leased === 0),
  );
  deepEqual(poolOf(w, "maria").stats, { idle: 1, leased: 0, connecting: 0, waiting: 0 });
  for (const name of ["maria", "duck", "lite"]) {
    await waitFor(
      `${name}'s connection back in its pool`,
      () => Promise.resolve(poolOf(w, name).stats.leased === 0),
    );
    const rows = [];
    for await (const batch of await w.datasources.get(name)!.connector.query({ sql: "SELECT 1" })) {
      rows.push(...batch);
    }
    equal(rows.length, 1, `${name} answers after the abort`);
  }
}

function assertAborted(run: StoredRun, reason: AbortReason, running: string[]): void {
  equal(run.record.status, "ABORTED", JSON.stringify(run.record.error));
  equal(run.record.abort_reason, reason);
  const aborted = run.byType.get("execution_aborted")![0].data;
  equal(aborted.reason, reason);
  equal(aborted.status, "ABORTED");
  deepEqual(aborted.node_stats, run.record.node_stats);
  equal(run.byType.get("node_failed"), undefined);
  for (const id of running) {
    equal(run.record.node_stats!.find((s) => s.node_id === id)!.status, "ABORTED", id);
    const samples = run.byType.get("node_progress")!.filter((f) => f.data.node_id === id);
    equal(samples.at(-1)!.data.state, "aborted", id);
  }
}

async function addSources(w: World, mariaUrl: string): Promise<void> {
  addDatasource(
    w,
    "maria",
    openConnector(connectorConfig("MYSQL", mariaUrl, {
      username: "root",
      hikari: { minimumIdle: 0, maximumPoolSize: 4 },
    })),
  );
  addDatasource(w, "duck", openConnector(connectorConfig("DUCKDB", "jdbc:duckdb:")));
  const lite = `${w.dir}/lite.sqlite`;
  (await Deno.create(lite)).close();
  addDatasource(w, "lite", openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${lite}`)));
}

forEachStore(
  "each abort reason stops MariaDB SLEEP, a DuckDB join and a SQLite stream; pools released",
  async (db) => {
    if (servers) return;
    const w = await world(db);
    const runs = new StoredRuns(w);
    const maria = await freshMariaDatabase();
    try {
      await addSources(w, maria.url);
      for (const reason of REASONS) {
        const tag = `abort_${reason}_${crypto.randomUUID().slice(0, 8)}`;
        const id = await pipeline(w, [
          ...slowNodes(tag),
          {
            id: "after",
            type: "DQL",
            source: "tempdb",
            depends_on: ["duck", "lite"],
            sql: "SELECT 1",
            output: { target: "tempdb", table: "after" },
          },
        ]);
        const handle = await runs.start(id);
        await allRunning(handle, tag);
        handle.cancel(reason);
        const run = await runs.finish(handle, { ms: 15_000 });
        assertAborted(run, reason, ["maria", "duck", "lite"]);
        equal(run.record.node_stats!.find((s) => s.node_id === "after")!.status, "ABORTED");
        ok(!run.byType.get("node_started")!.some((f) => f.data.node_id === "after"));
        await released(w, tag);
      }
    } finally {
      await runs.close();
      await w.close();
      await maria.drop();
    }
  },
);

forEachStore(
  "fail-fast: a failing node stops the in-flight statements of its siblings on every driver",
  async (db) => {
    if (servers) return;
    const w = await world(db);
    const runs = new StoredRuns(w);
    const maria = await freshMariaDatabase();
    const pg = await freshPostgresDatabase();
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      await addSources(w, maria.url);
      addDatasource(
        w,
        "pg",
        openConnector(connectorConfig("POSTGRES", pgJdbcUrl(pg.url), {
          username: new URL(pg.url).username || "postgres",
        })),
      );
      // The failing node waits on an advisory lock the test holds, so it fails only once the
      // others are known to be running; then its cast fails at run time.
      const key = Math.floor(Math.random() * 1_000_000);
      await admin`SELECT pg_advisory_lock(${key})`;
      const tag = `failfast_${crypto.randomUUID().slice(0, 8)}`;
      const id = await pipeline(w, [
        ...slowNodes(tag),
        {
          id: "gate",
          type: "DQL",
          source: "pg",
          sql: `SELECT (pg_advisory_lock(${key})::text || 'x')::int AS broken`,
          output: { target: "tempdb", table: "gate" },
        },
      ]);
      const handle = await runs.start(id);
      await allRunning(handle, tag);
      await admin`SELECT pg_advisory_unlock(${key})`;
      const run = await runs.finish(handle, { ms: 15_000 });
      equal(run.record.status, "FAILED");
      equal(run.record.failed_node_id, "gate");
      equal(run.record.error!.code, "pipeline.node.statement_failed");
      for (const node of ["maria", "duck", "lite"]) {
        equal(run.record.node_stats!.find((s) => s.node_id === node)!.status, "ABORTED", node);
        const samples = run.byType.get("node_progress")!.filter((f) => f.data.node_id === node);
        equal(samples.at(-1)!.data.state, "aborted", node);
      }
      equal(run.byType.get("node_failed")!.length, 1);
      await released(w, tag);
      await waitFor(
        "pg's connection back in its pool",
        () => Promise.resolve(poolOf(w, "pg").stats.leased === 0),
      );
    } finally {
      await admin.end();
      await runs.close();
      await w.close();
      await maria.drop();
      await pg.drop();
    }
  },
);

forEachStore(
  "a parent's abort stops its child's statements on every driver, for the parent's reason",
  async (db) => {
    if (servers) return;
    const w = await world(db);
    const runs = new StoredRuns(w);
    const maria = await freshMariaDatabase();
    try {
      await addSources(w, maria.url);
      const tag = `parent_${crypto.randomUUID().slice(0, 8)}`;
      const child = await pipeline(w, slowNodes(tag), {}, { release: true });
      const parent = await pipeline(w, [
        { id: "sub", type: "PIPELINE", pipeline: { id: child } },
      ]);
      const handle = await runs.start(parent);
      const started = await waitForEvent(handle, (f) => f.data.child_execution_id !== undefined);
      const childId = started.data.child_execution_id as string;
      // The child's events go to the store; wait there until its statements run.
      await waitFor(
        "the child's SQLite rows",
        async () =>
          (await runs.repo.events(childId)).some((f) =>
            f.data.node_id === "lite" && f.data.rows_written > 0
          ),
      );
      await waitFor("the child's SLEEP on MariaDB", async () => (await mariaRunning(tag)) === 1);
      handle.cancel("client_disconnect");
      const run = await runs.finish(handle, { ms: 15_000 });
      assertAborted(run, "client_disconnect", ["sub"]);
      const inner = await runs.child(childId);
      equal(inner.record.status, "ABORTED");
      equal(inner.record.abort_reason, "client_disconnect");
      equal(inner.frames.at(-1)!.event, "execution_aborted");
      for (const node of ["maria", "duck", "lite"]) {
        equal(inner.record.node_stats!.find((s) => s.node_id === node)!.status, "ABORTED");
      }
      await released(w, tag);
    } finally {
      await runs.close();
      await w.close();
      await maria.drop();
    }
  },
);
