/**
 * Warm staging and embedded reads (issue 25, items 5 and 6), over HTTP with a key, the path a
 * caller takes: the demo content published as endpoints, measured on two servers in one run.
 *  - baseline: `service.executor.staging-pool-size` 0 (a new DuckDB instance per staged run, as
 *    before the pool, and a new SQLite worker per SQLite-staged run) and the demo datasources on
 *    one connection each (the old embedded default);
 *  - now: the defaults (the staging pool, a reader per core).
 * Rows: staged runs per second at 10 clients (`demo/revenue_vs_target`: DuckDB and SQLite reads
 * staged and joined in tempdb), the same pipeline for a lone caller (p50), a one-node tempdb
 * `SELECT :v` for a lone caller (p50; on DuckDB and on SQLite staging, both pooled), and
 * `demo/top_customers` (one read of the DuckDB shop) at 8 clients. Ratios now / baseline.
 */
import { sessionHeaders, userKey } from "../tests/support/access_fixtures.ts";
import { call, startTestServer, type TestServer } from "../tests/support/harness.ts";
import { demoUsers } from "./demo_users.ts";
import { measured, releasedPipeline } from "./endpoints.ts";

const SECONDS = Number(Deno.env.get("BENCH_SECONDS") ?? 5);

type Figures = Record<string, { rps: number; p50_ms: number; cpu_ms: number; errors: number }>;

async function publish(
  s: TestServer,
  h: Record<string, string>,
  pipelineId: string,
  path: string,
): Promise<void> {
  const r = await call(s, "POST", "/api/v1/endpoints", h, {
    path_pattern: path,
    pipeline_id: pipelineId,
  });
  if (r.status !== 201) throw new Error(`publish ${path}: ${JSON.stringify(r.body)}`);
}

/** One embedded demo datasource on `size` connections (the old default was 1). */
async function poolOf(s: TestServer, h: Record<string, string>, name: string, size: number) {
  const got = await call(s, "GET", `/api/v1/datasources/${name}`, h);
  const d = got.body.data;
  const r = await call(s, "PUT", `/api/v1/datasources/${name}`, h, {
    name: d.name,
    display_name: d.display_name,
    dialect: d.dialect,
    jdbc_url: d.jdbc_url,
    credential: { kind: "none" },
    readonly: d.readonly,
    properties: { ...d.properties, hikari: { maximumPoolSize: size } },
  });
  if (r.status !== 200) throw new Error(`datasource ${name}: ${JSON.stringify(r.body)}`);
}

async function serverFigures(
  baseline: boolean,
  mix: { pool?: boolean; oneConnection?: boolean } = {},
): Promise<Figures> {
  const noPool = mix.pool === undefined ? baseline : !mix.pool;
  const oneConnection = mix.oneConnection ?? baseline;
  const s = await startTestServer({
    env: {
      SERVICE_LOG_LEVEL: "warn",
      SERVICE_DEMO_ENABLED: "true",
      SERVICE_RATE_LIMIT_REQUESTS_PER_SECOND: "1000000000",
      SERVICE_RATE_LIMIT_REQUESTS_PER_MINUTE: "1000000000",
      SERVICE_EXECUTOR_MAX_CONCURRENT_EXECUTIONS_PER_USER: "1000",
      ...(noPool ? { SERVICE_EXECUTOR_STAGING_POOL_SIZE: "0" } : {}),
    },
    // As in production: the tests' answer check parses each body again.
    runtime: { checkResponses: false },
  });
  try {
    const rt = s.runtime;
    const { admin, user, demo } = await demoUsers(rt);
    const h = await sessionHeaders(rt, admin, "demo");
    if (oneConnection) {
      for (const name of ["demo_shop", "demo_crm"]) await poolOf(s, h, name, 1);
    }
    const byName = async (name: string) => {
      const { items } = await rt.pipelines.list(demo.id, { q: name }, { offset: 0, limit: 10 });
      return items.find((p) => p.name === name)!.id;
    };
    await publish(s, h, await byName("demo/revenue_vs_target"), "/bench/revenue");
    await publish(s, h, await byName("demo/top_customers"), "/bench/top");
    for (const engine of ["duckdb", "sqlite"]) {
      const id = await releasedPipeline(s, h, {
        name: `bench/select_v_${engine}`,
        parameters: { v: { type: "integer", required: true } },
        settings: { staging_engine: engine },
        nodes: [{ id: "v", type: "DQL", source: "tempdb", sql: "SELECT :v AS v" }],
      });
      await publish(s, h, id, `/bench/v_${engine}/{v}`);
    }
    const headers = { "SVC-API-Key": await userKey(rt, user, demo.id, ["read", "execute"]) };
    const url = (path: string) => `${s.url}/api/x${path}`;
    for (const path of ["/bench/revenue", "/bench/top", "/bench/v_duckdb/7", "/bench/v_sqlite/7"]) {
      const probe = await fetch(url(path), { headers });
      if (probe.status !== 200) throw new Error(`${path}: ${probe.status} ${await probe.text()}`);
      await probe.arrayBuffer();
    }
    await measured(url("/bench/revenue"), 2, 10, headers); // warm-up
    if (mix.pool !== undefined) {
      return {
        "revenue_vs_target, 10 clients": await measured(
          url("/bench/revenue"),
          SECONDS,
          10,
          headers,
        ),
      };
    }
    const figures: Figures = {
      "revenue_vs_target, 10 clients": await measured(url("/bench/revenue"), SECONDS, 10, headers),
      "revenue_vs_target, lone caller": await measured(url("/bench/revenue"), SECONDS, 1, headers),
      "tempdb SELECT :v, lone caller": await measured(
        url("/bench/v_duckdb/7"),
        SECONDS,
        1,
        headers,
      ),
      "SQLite staging SELECT :v, lone": await measured(
        url("/bench/v_sqlite/7"),
        SECONDS,
        1,
        headers,
      ),
      "top_customers, 8 clients": await measured(url("/bench/top"), SECONDS, 8, headers),
    };
    if (!baseline) {
      console.log(`  staging pool after the run: ${JSON.stringify(rt.stagingPool.stats())}`);
    }
    return figures;
  } finally {
    await s.close();
  }
}

export async function stagingBench(): Promise<void> {
  console.log(
    `\nWarm staging and embedded reads: demo endpoints over HTTP with a key, ${SECONDS} s each`,
  );
  const before = await serverFigures(true);
  const after = await serverFigures(false);
  const cell = (r: Figures[string]) =>
    `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50_ms.toFixed(2).padStart(7)} ms  cpu ${
      r.cpu_ms.toFixed(2).padStart(6)
    } ms/req${r.errors ? `  errors ${r.errors}` : ""}`;
  for (const name of Object.keys(before)) {
    const [b, a] = [before[name], after[name]];
    console.log(`  ${name}`);
    console.log(`    baseline (no pool, 1 connection)  ${cell(b)}`);
    console.log(`    now (pool, reader per core)       ${cell(a)}`);
    console.log(
      `    ratio now/baseline: req/s ${(a.rps / b.rps).toFixed(2)}x, p50 ${
        (a.p50_ms / b.p50_ms).toFixed(2)
      }x`,
    );
  }
  console.log(
    "  targets: staged runs/s at 10 clients >= 2x; revenue_vs_target lone p50 <= 12 ms; " +
      "tempdb SELECT :v lone p50 <= 3 ms; top_customers at 8 clients >= 1.7x req/s",
  );
}

if (import.meta.main) {
  // `deno run -A bench/staging.ts --split`: staged runs at 10 clients with each change alone.
  if (Deno.args.includes("--split")) {
    for (
      const mix of [{ pool: false, oneConnection: true }, { pool: true, oneConnection: true }, {
        pool: false,
        oneConnection: false,
      }, { pool: true, oneConnection: false }]
    ) {
      const r = (await serverFigures(false, mix))["revenue_vs_target, 10 clients"];
      console.log(
        JSON.stringify(mix),
        r.rps.toFixed(1),
        "req/s",
        r.cpu_ms.toFixed(1),
        "ms cpu/req",
      );
    }
    Deno.exit(0);
  }
  await stagingBench();
  Deno.exit(0);
}
