/**
 * Probe path and staging engine figures, each against a baseline measured in the same run:
 *  (a) the probe (read-only gate, engine read-only mode, caps) vs the same 10-row read through
 *      the connector alone, p50 per dialect (PostgreSQL when reachable, SQLite);
 *  (b) 200,000 rows × 5 columns staged and read back on SQLite staging vs DuckDB staging:
 *      rows/s ratio (no target: SQLite staging is the alternative engine, not the fast one).
 */
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import {
  type Connector,
  openConnector,
  type WireValue,
} from "../src/datasources/connectors/mod.ts";
import { probeLimits, runProbe } from "../src/datasources/probe.ts";
import { DuckdbStaging, type Staging } from "../src/executions/staging.ts";
import { SqliteStaging } from "../src/executions/staging_sqlite.ts";
import { connectorConfig, pgJdbcUrl } from "../tests/support/datasources.ts";
import { skipUnless } from "../tests/support/services.ts";
import { freshPostgresDatabase } from "../tests/support/stores.ts";

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(10);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ROUNDS = 300;
const SQL = "SELECT id, name FROM t ORDER BY id LIMIT 10";

async function p50(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function probeVsRead(label: string, c: Connector): Promise<void> {
  const plain = await p50(async () => {
    for await (const _ of await c.query({ sql: SQL })) { /* drain */ }
  });
  const probed = await p50(() => runProbe(c, { sql: SQL }, probeLimits()));
  console.log(
    `${label.padEnd(10)} read ${fmt(plain, 3)} ms   probe ${fmt(probed, 3)} ms   added ${
      fmt(probed - plain, 3)
    } ms   ratio ${(probed / plain).toFixed(2)}`,
  );
}

async function stagingRate(staging: Staging, rows: WireValue[][]): Promise<number> {
  const schema = [
    { name: "id", type: "bigint" as const, source_type: "int8" },
    { name: "n", type: "integer" as const, source_type: "int4" },
    { name: "amount", type: "decimal" as const, source_type: "numeric(12,2)" },
    { name: "label", type: "string" as const, source_type: "text" },
    { name: "day", type: "date" as const, source_type: "date" },
  ];
  const t0 = performance.now();
  await staging.load(
    "t",
    schema,
    (async function* () {
      for (let i = 0; i < rows.length; i += 1000) yield rows.slice(i, i + 1000);
    })(),
    () => Promise.resolve(),
  );
  let read = 0;
  for await (const b of await staging.connector.query({ sql: "SELECT * FROM t" })) {
    read += b.length;
  }
  if (read !== rows.length) throw new Error(`read ${read} of ${rows.length}`);
  return rows.length / ((performance.now() - t0) / 1000);
}

export async function probeBench(): Promise<void> {
  console.log(`\nprobe path vs a plain connector read of 10 rows (p50 of ${ROUNDS})`);
  const dir = await Deno.makeTempDir();
  const raw = new DatabaseSync(`${dir}/p.db`);
  raw.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
    INSERT INTO t SELECT i, 'name ' || i FROM n;`);
  raw.close();
  const lite = openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${dir}/p.db`));
  try {
    await probeVsRead("SQLITE", lite);
  } finally {
    await lite.close();
  }
  if (!skipUnless("postgres")) {
    const db = await freshPostgresDatabase();
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE TABLE t (id int PRIMARY KEY, name text);
      INSERT INTO t SELECT g, 'name ' || g FROM generate_series(1, 1000) g`);
    const pg = openConnector(connectorConfig("POSTGRES", pgJdbcUrl(db.url)));
    try {
      await probeVsRead("POSTGRES", pg);
    } finally {
      await pg.close();
      await admin.end();
      await db.drop();
    }
  }

  const n = 200_000;
  const rows: WireValue[][] = Array.from({ length: n }, (_, i) => [
    BigInt(i),
    i % 1000,
    `${i % 10000}.${String(i % 100).padStart(2, "0")}`,
    `label ${i % 500}`,
    "2024-02-29",
  ]);
  const duck = DuckdbStaging.open();
  const lite2 = new SqliteStaging();
  try {
    const d = await stagingRate(duck, rows);
    const s = await stagingRate(lite2, rows);
    console.log(`\nstaging ${n} rows x 5 columns, loaded and read back`);
    console.log(`duckdb staging ${fmt(d)} rows/s`);
    console.log(`sqlite staging ${fmt(s)} rows/s   ratio sqlite/duckdb ${(s / d).toFixed(2)}`);
  } finally {
    await duck.close();
    await lite2.close();
    await Deno.remove(dir, { recursive: true });
  }
}
