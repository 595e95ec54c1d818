import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { DuckdbStaging, scaledDecimal, type Staging } from "./staging.ts";
import { SqliteStaging } from "./staging_sqlite.ts";
import type { ColumnSchema, WireValue } from "../datasources/mod.ts";

Deno.test("scaledDecimal scales exactly and rounds half away from zero", () => {
  equal(scaledDecimal("9.5", 2), 950n);
  equal(scaledDecimal("-0.125", 2), -13n);
  equal(scaledDecimal("12345678901234567890.1234567891", 10), 123456789012345678901234567891n);
  equal(scaledDecimal(".5", 0), 1n);
  throws(() => scaledDecimal("1e5", 2));
});

const ENGINES: [string, () => Staging][] = [
  ["duckdb", () => DuckdbStaging.open()],
  ["sqlite", () => new SqliteStaging()],
];

for (const [engine, open] of ENGINES) {
  Deno.test(`[${engine}] staging loads every wire type and reads it back unchanged`, async () => {
    const staging = open();
    try {
      const schema: ColumnSchema[] = [
        { name: "b", type: "boolean", source_type: "bool" },
        { name: "i", type: "integer", source_type: "int4" },
        { name: "big", type: "bigint", source_type: "int8" },
        { name: "d", type: "decimal", source_type: "numeric(12,3)" },
        { name: "f", type: "double", source_type: "float8" },
        { name: "s", type: "string", source_type: "text" },
        { name: "day", type: "date", source_type: "date" },
        { name: "ts", type: "timestamp", source_type: "timestamp" },
        { name: "tz", type: "timestamptz", source_type: "timestamptz" },
        { name: "bin", type: "binary", source_type: "bytea" },
        { name: "u", type: "uuid", source_type: "uuid" },
      ];
      const row: WireValue[] = [
        true,
        7,
        9007199254740993n,
        "123456789.125",
        1.5,
        'x,"y"',
        "2024-02-29",
        "2024-02-29T10:11:12.5",
        "2024-02-29T10:11:12Z",
        new Uint8Array([1, 2, 255]),
        "0b6c1c0e-6a7e-4d2a-9a55-7c7f6a1b2c3d",
      ];
      const nulls: WireValue[] = schema.map(() => null);
      // More rows than one data chunk holds, so the batch is split.
      const many = Array.from({ length: 5000 }, () => row);
      const batches = async function* () {
        yield [row, nulls];
        yield many;
      };
      let seen = 0;
      const rows = await staging.load("t", schema, batches(), (n) => {
        seen += n;
        return Promise.resolve();
      });
      equal(rows, 5002);
      equal(seen, 5002);
      const out: WireValue[][] = [];
      for await (const b of await staging.connector.query({ sql: "SELECT * FROM t LIMIT 2" })) {
        out.push(...b);
      }
      deepEqual(out[0].slice(0, 9), row.slice(0, 9));
      deepEqual(out[0][9], new Uint8Array([1, 2, 255]));
      equal(out[0][10], row[10]);
      deepEqual(out[1], nulls);
      deepEqual(
        (await staging.connector.query({ sql: "SELECT * FROM t LIMIT 1" })).schema.map((c) =>
          c.type
        ),
        schema.map((c) => c.type),
        "each column reads back as its staged wire type",
      );
      // A decimal is held at its column's scale, whatever digits the source sent.
      const decimals: ColumnSchema[] = [{
        name: "d",
        type: "decimal",
        source_type: "numeric(6,2)",
      }];
      await staging.load(
        "d",
        decimals,
        (async function* () {
          yield [["1.5"], ["-0.125"], ["7"]];
        })(),
        () => Promise.resolve(),
      );
      const read: WireValue[][] = [];
      for await (const b of await staging.connector.query({ sql: "SELECT d FROM d" })) {
        read.push(...b);
      }
      deepEqual(read, [["1.50"], ["-0.13"], ["7.00"]]);
    } finally {
      await staging.close();
    }
  });
}

/** Reads a staged table back: its column types and its rows in stored order. */
async function readBack(staging: Staging, table: string) {
  const types: unknown[][] = [];
  for await (
    const b of await staging.connector.query({
      sql: `SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = '${table}'
            ORDER BY column_index`,
    })
  ) types.push(...b);
  const rows: WireValue[][] = [];
  for await (const b of await staging.connector.query({ sql: `SELECT * FROM "${table}"` })) {
    rows.push(...b);
  }
  return { types, rows };
}

Deno.test("copy stages a DuckDB read chunk by chunk exactly as the row path stages it", async () => {
  const source = DuckdbStaging.open();
  const staging = DuckdbStaging.open();
  try {
    // A source with every natively copied type, NULLs, integers past 2^53 and more rows than
    // several chunks hold, in an order the engine would not produce by itself.
    const sql = `SELECT (10000 - i)::BIGINT * 1000000000007 AS big, i::INTEGER AS i,
        (i % 200)::UTINYINT AS tiny, (i::UBIGINT * 2000000000000000) AS ubig,
        (i::HUGEINT * 1000000000000000000000) AS huge,
        CASE WHEN i % 5 = 0 THEN NULL ELSE 'name ' || i END AS name,
        (i * -0.5)::DECIMAL(21,1) AS amount, (i / 3)::DECIMAL(38,10) AS wide,
        i / 7 AS dbl, (i / 8)::FLOAT AS flt, i % 2 = 0 AS flag,
        DATE '2020-01-01' + (i % 1000)::INT AS day,
        TIMESTAMP '2024-02-29 10:11:12.5' + to_seconds(i) AS ts,
        TIMESTAMPTZ '2024-02-29 10:11:12Z' + to_seconds(i) AS tz,
        CASE WHEN i % 3 = 0 THEN NULL ELSE '\\x01\\xff'::BLOB END AS bin,
        '0b6c1c0e-6a7e-4d2a-9a55-7c7f6a1b2c3d'::UUID AS u
      FROM range(1, 7001) t(i)
      ORDER BY i % 3, i DESC`;
    const viaRows = await source.connector.query({ sql });
    await staging.load("by_rows", viaRows.schema, viaRows, () => Promise.resolve());
    let batches = 0;
    const copied = await staging.copy(
      "by_chunks",
      await source.connector.chunks!({ sql }),
      () => Promise.resolve(void batches++),
    );
    equal(copied, 7000);
    ok(batches > 3, "one callback per chunk");
    const a = await readBack(staging, "by_rows");
    const b = await readBack(staging, "by_chunks");
    deepEqual(b.types, a.types);
    equal(b.rows.length, 7000);
    deepEqual(b.rows, a.rows);
    // Spot checks against the source itself: order, big integers and NULLs survive.
    deepEqual(b.rows[0].slice(0, 2), [3001n * 1000000000007n, 6999]);
    equal(b.rows[0][4], 6999n * 10n ** 21n);
    equal(b.rows.find((r) => r[1] === 5)![5], null);
    equal(b.rows.find((r) => r[1] === 5)![6], "-2.5");
  } finally {
    await staging.close();
    await source.close();
  }
});

Deno.test("copy of a column no cast reproduces (nested, JSON, interval) takes the row path", async () => {
  const source = DuckdbStaging.open();
  const staging = DuckdbStaging.open();
  try {
    const sql = `SELECT i, [i, i + 1] AS list, {'a': i} AS rec, INTERVAL (i) DAY AS span
      FROM range(3) t(i) ORDER BY i DESC`;
    const viaRows = await source.connector.query({ sql });
    await staging.load("by_rows", viaRows.schema, viaRows, () => Promise.resolve());
    equal(
      await staging.copy(
        "by_chunks",
        await source.connector.chunks!({ sql }),
        () => Promise.resolve(),
      ),
      3,
    );
    const a = await readBack(staging, "by_rows");
    const b = await readBack(staging, "by_chunks");
    deepEqual(b, a);
    deepEqual(b.rows[0].slice(0, 2), [2n, '["2","3"]']);
  } finally {
    await staging.close();
    await source.close();
  }
});

Deno.test("issue 22 finding 1: a staging DuckDB runs under service.executor.duckdb-memory-limit-mb", async () => {
  const staging = DuckdbStaging.open(300);
  try {
    const stream = await staging.connector.query({
      sql: "SELECT current_setting('memory_limit') AS m",
    });
    const rows: WireValue[][] = [];
    for await (const batch of stream) rows.push(...batch);
    deepEqual(rows, [["300.0 MiB"]]);
  } finally {
    await staging.close();
  }
});
