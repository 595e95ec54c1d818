/**
 * What a serve and a run leave in the metadata store: an instance with the demo content, its
 * `demo/top_customers` published as `/top_customers` and called with an API key over HTTP, or
 * executed over REST with its event stream read to the end; the store measured before and after,
 * and the retention sweeps run with a clock moved past the replay window or the record
 * retention. `tests/growth_test.ts` asserts the bounds; `deno task growth` prints the figures
 * (docs/operations.md, "Growth and retention").
 */
import { REPLAY_WINDOW_MS } from "../../src/executions/service.ts";
import { RetentionSweeps, type SweepCounts } from "../../src/executions/retention.ts";
import { createUser, sessionHeaders, userKey } from "./access_fixtures.ts";
import { call, startTestServer, type TestServer } from "./harness.ts";
import type { StoreKind } from "./stores.ts";
import { executeOverHttp } from "./runs.ts";

const DAY = 86_400_000;

export interface StoreSize {
  executions: number;
  events: number;
  /** Bytes the two tables and their indexes hold (SQLite: used page bytes; PostgreSQL: on disk). */
  tableBytes: number;
  /** The same for `audit_log` (an `endpoint.served` row per serve; no sweep ages it out). */
  auditBytes: number;
  /** SQLite: the database file after a WAL checkpoint. */
  fileBytes?: number;
  /**
   * PostgreSQL: the bytes of the two tables' live rows (`pg_column_size`). Unlike the size on
   * disk, it does not depend on VACUUM being able to remove dead rows, which another session's
   * open snapshot on the same server (other tests, in CI) can hold back.
   */
  rowBytes?: number;
}

export interface GrowthWorld {
  s: TestServer;
  store: StoreKind;
  /** `n` calls of the published endpoint, `parallel` at a time; every one must answer 200. */
  serve(n: number, parallel?: number): Promise<void>;
  /** `n` REST executions of the same pipeline, their event streams read to the end. */
  run(n: number): Promise<void>;
  size(): Promise<StoreSize>;
  /**
   * The retention sweeps with the clock `aheadMs` in the future (the configured 90 days).
   * PostgreSQL: a plain VACUUM after them, standing in for autovacuum (or VACUUM FULL when asked,
   * to read the compact size).
   */
  sweep(aheadMs: number, vacuum?: "plain" | "full"): Promise<SweepCounts>;
  close(): Promise<void>;
}

export async function growthWorld(store: StoreKind): Promise<GrowthWorld> {
  const s = await startTestServer({
    store,
    env: {
      SERVICE_DEMO_ENABLED: "true",
      SERVICE_LOG_LEVEL: "warn",
      // One key calls as fast as it can: the per-user budget is not what is measured.
      SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "100000",
      SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000",
    },
  });
  try {
    const admin = await createUser(s.runtime, "growth@example.com", { isAdmin: true });
    const h = await sessionHeaders(s.runtime, admin, "demo");
    const pipelines = await call(s, "GET", "/api/v1/pipelines?prefix=demo", h);
    const top = pipelines.body.data.pipelines.find((p: { name: string }) =>
      p.name === "demo/top_customers"
    );
    const published = await call(s, "POST", "/api/v1/endpoints", h, {
      path_pattern: "/top_customers",
      pipeline_id: top.id,
    });
    if (published.status !== 201) throw new Error(JSON.stringify(published.body));
    const demo = await s.runtime.db.first<{ id: string }>(
      "SELECT id FROM workspaces WHERE name = 'demo'",
    );
    const key = { "SVC-API-Key": await userKey(s.runtime, admin, demo!.id, ["execute"]) };
    const db = s.runtime.db;
    const one = async () => {
      const res = await s.fetch("/api/x/top_customers", { headers: key });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${res.status} ${body}`);
    };
    return {
      s,
      store,
      async serve(n, parallel = 4) {
        let left = n;
        await Promise.all(Array.from({ length: parallel }, async () => {
          while (left-- > 0) await one();
        }));
      },
      async run(n) {
        for (let i = 0; i < n; i++) {
          const res = await executeOverHttp(s, h, top.id, { parameters: {} });
          const text = await res.text();
          if (res.status !== 200 || !text.includes("data_ready")) {
            throw new Error(`${res.status} ${text}`);
          }
        }
      },
      size: () => storeSize(s),
      async sweep(aheadMs, vacuum = "plain") {
        const counts = await new RetentionSweeps(db, {
          recordRetentionDays: s.runtime.config.executions.recordRetentionDays,
          replayWindowMs: REPLAY_WINDOW_MS,
          now: () => Date.now() + aheadMs,
        }).sweep();
        if (store === "postgres") {
          for (const table of ["executions", "execution_events", "audit_log"]) {
            await db.execute(`VACUUM ${vacuum === "full" ? "FULL " : ""}${table}`);
          }
        }
        return counts;
      },
      close: () => s.close(),
    };
  } catch (error) {
    await s.close();
    throw error;
  }
}

/** Past the replay window (one hour after completion), a minute to spare. */
export const PAST_REPLAY_WINDOW = REPLAY_WINDOW_MS + 60_000;
/** Past the default record retention (90 days). */
export const PAST_RETENTION = 91 * DAY;

async function storeSize(s: TestServer): Promise<StoreSize> {
  const db = s.runtime.db;
  const n = async (sql: string) => Number((await db.first<{ n: unknown }>(sql))?.n ?? 0);
  const executions = await n("SELECT COUNT(*) AS n FROM executions");
  const events = await n("SELECT COUNT(*) AS n FROM execution_events");
  if (db.dialect === "postgres") {
    const total = (tables: string[]) =>
      n(`SELECT ${tables.map((t) => `pg_total_relation_size('${t}')`).join(" + ")} AS n`);
    return {
      executions,
      events,
      tableBytes: await total(["executions", "execution_events"]),
      auditBytes: await total(["audit_log"]),
      rowBytes: await n(`SELECT
        (SELECT COALESCE(SUM(pg_column_size(e.*)), 0) FROM executions e) +
        (SELECT COALESCE(SUM(pg_column_size(v.*)), 0) FROM execution_events v) AS n`),
    };
  }
  await db.query("PRAGMA wal_checkpoint(TRUNCATE)");
  const used = (tables: string[]) =>
    n(`SELECT SUM(pgsize - unused) AS n FROM dbstat WHERE name IN (
         SELECT name FROM sqlite_master WHERE tbl_name IN (${tables.map((t) => `'${t}'`)}))`);
  const path = s.runtime.config.store.url.slice("sqlite:".length);
  return {
    executions,
    events,
    tableBytes: await used(["executions", "execution_events"]),
    auditBytes: await used(["audit_log"]),
    fileBytes: (await Deno.stat(path)).size,
  };
}
