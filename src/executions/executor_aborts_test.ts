/**
 * Every abort reason interrupting in-flight statements on the real drivers at once: a
 * PostgreSQL `pg_sleep` (cancel request: gone from pg_stat_activity), a MariaDB `SLEEP` (KILL
 * QUERY: gone from the processlist), a DuckDB cross join (interrupted), and a SQLite stream
 * (stopped between batches: its driver has no interrupt). After each run every pool has its
 * connection back and answers again. Fail-fast (a failing node) and a parent's abort stop the
 * same statements. The runs go through the durable sink, on both stores.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { openConnector, type Pool } from "../datasources/mod.ts";
import { connectorConfig } from "../../tests/support/datasources.ts";
import {
  forEachWorld,
  type MariaSource,
  mariaSource,
  type PostgresSource,
  postgresSource,
} from "../../tests/support/executor_world.ts";
import {
  addDatasource,
  lastSample,
  pipeline,
  statusOf,
  waitForEvent,
  type World,
} from "./executor_fixtures.ts";
import type { StoredRun, StoredRuns } from "./stored_run_fixtures.ts";
import type { AbortReason, ExecutionHandle } from "./types.ts";
import { dql, staged } from "../../tests/support/pipeline_body.ts";
import { eventually } from "../../tests/support/wait.ts";

const REASONS: AbortReason[] = ["cancelled", "client_disconnect", "shutdown"];

function poolOf(w: World, name: string): Pool<unknown> {
  return (w.datasources.get(name)!.connector as unknown as { pool: Pool<unknown> }).pool;
}

/** The four slow reads, tagged so the server ones can be found on their servers. */
function slowNodes(tag: string): unknown[] {
  return [
    staged("pg", "pg", `SELECT pg_sleep(60) AS s /* ${tag} */`),
    dql("maria", { source: "maria", sql: `SELECT SLEEP(60) AS s /* ${tag} */` }),
    staged("duck", "duck", "SELECT count(*) AS n FROM range(100000000000) a"),
    staged(
      "lite",
      "lite",
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000) SELECT i FROM n",
    ),
  ];
}

/** Waits until all four statements are in flight (sleeps on the servers, rows from SQLite). */
async function allRunning(s: Servers, handle: ExecutionHandle, tag: string): Promise<void> {
  await waitForEvent(handle, (f) => f.data.node_id === "duck" && f.data.state === "executing");
  await waitForEvent(handle, (f) => f.data.node_id === "lite" && f.data.rows_written > 0);
  await sleepsRunning(s, tag, 1);
}

/** Waits until each server runs `tag`'s sleep `count` times: 1, in flight; 0, stopped. */
async function sleepsRunning(s: Servers, tag: string, count: 0 | 1): Promise<void> {
  for (const [server, source] of [["MariaDB", s.maria], ["PostgreSQL", s.pg]] as const) {
    await eventually(async () => (await source.running(tag)) === count, {
      what: count ? `the sleep running on ${server}` : `the sleep gone from ${server}`,
      ms: 10_000,
    });
  }
}

/** The statements stopped, every pool has its connection back and answers a new read. */
async function released(w: World, s: Servers, tag: string): Promise<void> {
  await sleepsRunning(s, tag, 0);
  // KILL QUERY stops the statement and leaves its connection usable: it is back in the pool,
  // not discarded and replaced (closing the socket would also end a SLEEP, but lose it).
  await eventually(() => Promise.resolve(poolOf(w, "maria").stats.leased === 0), {
    what: "maria's connection back in its pool",
    ms: 10_000,
  });
  deepEqual(poolOf(w, "maria").stats, { idle: 1, leased: 0, connecting: 0, waiting: 0 });
  for (const name of ["pg", "maria", "duck", "lite"]) {
    await eventually(() => Promise.resolve(poolOf(w, name).stats.leased === 0), {
      what: `${name}'s connection back in its pool`,
      ms: 10_000,
    });
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
    equal(statusOf(run.record, id), "ABORTED", id);
    equal(lastSample(run, id).state, "aborted", id);
  }
}

interface Servers {
  pg: PostgresSource;
  maria: MariaSource;
}

/** The four slow sources: fresh server databases, an in-memory DuckDB and an empty SQLite file. */
async function addSources(w: World): Promise<Servers> {
  const pg = await postgresSource(w, "pg");
  const maria = await mariaSource(w, "maria", { hikari: { minimumIdle: 0, maximumPoolSize: 4 } });
  addDatasource(w, "duck", openConnector(connectorConfig("DUCKDB", "jdbc:duckdb:")));
  const lite = `${w.dir}/lite.sqlite`;
  (await Deno.create(lite)).close();
  addDatasource(w, "lite", openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${lite}`)));
  return { pg, maria };
}

const SLOW = ["pg", "maria", "duck", "lite"];

/** A test on a world with the four slow sources (so on PostgreSQL and MariaDB servers only). */
function slowSourcesTest(
  name: string,
  fn: (w: World, runs: StoredRuns, s: Servers) => Promise<void>,
): void {
  forEachWorld(name, async (w, runs) => fn(w, runs, await addSources(w)), {
    services: ["postgres", "mariadb"],
  });
}

slowSourcesTest(
  "each abort reason stops pg_sleep, MariaDB SLEEP, a DuckDB join and a SQLite stream; pools released",
  async (w, runs, s) => {
    for (const reason of REASONS) {
      const tag = `abort_${reason}_${crypto.randomUUID().slice(0, 8)}`;
      const id = await pipeline(w, [
        ...slowNodes(tag),
        staged("after", "tempdb", "SELECT 1", { depends_on: ["duck", "lite"] }),
      ]);
      const handle = await runs.start(id);
      await allRunning(s, handle, tag);
      handle.cancel(reason);
      const run = await runs.finish(handle, { ms: 15_000 });
      assertAborted(run, reason, SLOW);
      equal(statusOf(run.record, "after"), "ABORTED");
      ok(!run.byType.get("node_started")!.some((f) => f.data.node_id === "after"));
      await released(w, s, tag);
    }
  },
);

slowSourcesTest(
  "fail-fast: a failing node stops the in-flight statements of its siblings on every driver",
  async (w, runs, s) => {
    // The failing node waits on an advisory lock the test holds, so it fails only once the
    // others are known to be running; then its cast fails at run time.
    const key = Math.floor(Math.random() * 1_000_000);
    await s.pg.sql`SELECT pg_advisory_lock(${key})`;
    const tag = `failfast_${crypto.randomUUID().slice(0, 8)}`;
    const id = await pipeline(w, [
      ...slowNodes(tag),
      staged("gate", "pg", `SELECT (pg_advisory_lock(${key})::text || 'x')::int AS broken`),
    ], { settings: { max_parallel_nodes: 5 } });
    const handle = await runs.start(id);
    await allRunning(s, handle, tag);
    await s.pg.sql`SELECT pg_advisory_unlock(${key})`;
    const run = await runs.finish(handle, { ms: 15_000 });
    equal(run.record.status, "FAILED");
    equal(run.record.failed_node_id, "gate");
    equal(run.record.error!.code, "pipeline.node.statement_failed");
    for (const node of SLOW) {
      equal(statusOf(run.record, node), "ABORTED", node);
      equal(lastSample(run, node).state, "aborted", node);
    }
    equal(run.byType.get("node_failed")!.length, 1);
    await released(w, s, tag);
  },
);

slowSourcesTest(
  "a parent's abort stops its child's statements on every driver, for the parent's reason",
  async (w, runs, s) => {
    const tag = `parent_${crypto.randomUUID().slice(0, 8)}`;
    const child = await pipeline(w, slowNodes(tag), {}, { release: true });
    const parent = await pipeline(w, [
      { id: "sub", type: "PIPELINE", pipeline: { id: child } },
    ]);
    const handle = await runs.start(parent);
    const started = await waitForEvent(handle, (f) => f.data.child_execution_id !== undefined);
    const childId = started.data.child_execution_id as string;
    // The child's events go to the store; wait there until its statements run.
    await eventually(
      async () =>
        (await runs.repo.events(childId)).some((f) =>
          f.data.node_id === "lite" && f.data.rows_written > 0
        ),
      { what: "the child's SQLite rows", ms: 10_000 },
    );
    await eventually(async () => (await s.maria.running(tag)) === 1, {
      what: "the child's SLEEP on MariaDB",
      ms: 10_000,
    });
    await eventually(async () => (await s.pg.running(tag)) === 1, {
      what: "the child's pg_sleep",
      ms: 10_000,
    });
    handle.cancel("client_disconnect");
    const run = await runs.finish(handle, { ms: 15_000 });
    assertAborted(run, "client_disconnect", ["sub"]);
    const inner = await runs.child(childId);
    equal(inner.record.status, "ABORTED");
    equal(inner.record.abort_reason, "client_disconnect");
    equal(inner.frames.at(-1)!.event, "execution_aborted");
    for (const node of SLOW) {
      equal(statusOf(inner.record, node), "ABORTED");
    }
    await released(w, s, tag);
  },
);
