import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { DuckDBDecimalValue, DuckDBInstance } from "@duckdb/node-api";
import { connectorConfig, drain, fileConnectorTest } from "../../../tests/support/datasources.ts";
import type { DuckdbConnector } from "./duckdb.ts";
import { decimalText, duckdbConverter, duckdbWireType } from "./duckdb_types.ts";
import { openConnector } from "./mod.ts";
import { decimalColumn } from "./test_fixtures.ts";
import { WriteError } from "./types.ts";
import { eventually } from "../../../tests/support/wait.ts";

/** The database file every test here reads, as this SQL makes it. */
const FILE_SQL = `
    CREATE TYPE mood AS ENUM ('ok', 'sad');
    CREATE TABLE t (
      b BOOLEAN, ti TINYINT, i INTEGER, ui UINTEGER, bi BIGINT, hi HUGEINT, d DECIMAL(12,3),
      f FLOAT, db DOUBLE, s VARCHAR, bl BLOB, dt DATE, tm TIME, ts TIMESTAMP, tz TIMESTAMPTZ,
      j JSON, u UUID, iv INTERVAL, l INTEGER[], st STRUCT(k INTEGER, v VARCHAR), m mood
    );
    COMMENT ON TABLE t IS 'all types';
    COMMENT ON COLUMN t.s IS 'a label';
    INSERT INTO t VALUES (true, -5, -2147483648, 4294967295, 9223372036854775807,
      170141183460469231731687303715884105727, 123456789.125, 1.5, 2.25, 'héllo', '\\x00\\xFF'::BLOB,
      '2024-02-29', '23:59:58.5', '2024-02-29 13:14:15.123456', '2024-02-29 13:14:15+02',
      '{"a": [1, 2]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', INTERVAL 2 HOUR, [1, 2],
      {'k': 1, 'v': 'x'}, 'sad');
    INSERT INTO t (b) VALUES (NULL);
    CREATE VIEW v AS SELECT i FROM t;
  `;

/** Each test runs on a fresh file that FILE_SQL makes. */
const fileTest = fileConnectorTest<DuckdbConnector>("DUCKDB", FILE_SQL);

fileTest("query() maps every type family and keeps source_type", async (c) => {
  const stream = await c.query({ sql: "SELECT * FROM t ORDER BY b NULLS LAST" });
  deepEqual(stream.schema.map((col) => [col.name, col.type, col.source_type]), [
    ["b", "boolean", "BOOLEAN"],
    ["ti", "integer", "TINYINT"],
    ["i", "integer", "INTEGER"],
    ["ui", "bigint", "UINTEGER"],
    ["bi", "bigint", "BIGINT"],
    ["hi", "bigint", "HUGEINT"],
    ["d", "decimal", "DECIMAL(12,3)"],
    ["f", "double", "FLOAT"],
    ["db", "double", "DOUBLE"],
    ["s", "string", "VARCHAR"],
    ["bl", "binary", "BLOB"],
    ["dt", "date", "DATE"],
    ["tm", "time", "TIME"],
    ["ts", "timestamp", "TIMESTAMP"],
    ["tz", "timestamptz", "TIMESTAMP WITH TIME ZONE"],
    ["j", "json", "JSON"],
    ["u", "uuid", "UUID"],
    ["iv", "string", "INTERVAL"],
    ["l", "json", "INTEGER[]"],
    ["st", "json", 'STRUCT("k" INTEGER, "v" VARCHAR)'],
    ["m", "string", "ENUM('ok', 'sad')"],
  ]);
  const { rows } = await drain(stream);
  const [full, empty] = rows;
  deepEqual(full.slice(0, 10), [
    true,
    -5,
    -2147483648,
    4294967295n,
    9223372036854775807n,
    170141183460469231731687303715884105727n,
    "123456789.125",
    1.5,
    2.25,
    "héllo",
  ]);
  deepEqual([...(full[10] as Uint8Array)], [0, 255]);
  deepEqual(full.slice(11), [
    "2024-02-29",
    "23:59:58.5",
    "2024-02-29T13:14:15.123456",
    "2024-02-29T11:14:15Z",
    '{"a": [1, 2]}',
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "02:00:00",
    "[1,2]",
    '{"k":1,"v":"x"}',
    "sad",
  ]);
  ok(empty.every((v) => v === null));
});

fileTest("query() streams chunks as batches, binds by name and cuts at maxRows", async (c) => {
  const hostile = "'); DROP TABLE t; --";
  const stream = await c.query({
    sql: "SELECT range AS n, :tag AS tag FROM range(:count)",
    params: { count: 25_000, tag: hostile },
  }, { batchRows: 1000 });
  const { batches, rows } = await drain(stream);
  equal(batches.length, 25);
  ok(batches.every((b) => b === 1000));
  deepEqual(rows[24_999], [24_999n, hostile]);
  const cut = await c.query({ sql: "SELECT range FROM range(100)" }, {
    maxRows: 10,
    batchRows: 4,
  });
  deepEqual((await drain(cut)).batches, [4, 4, 2]);
  equal(cut.truncated, true);
  equal((await c.columns("t")).length, 21, "the table survived the hostile value");
  deepEqual(c.pool.stats, { idle: 1, leased: 0, connecting: 0, waiting: 0 });
});

fileTest("an abort interrupts a heavy query inside the engine", async (c) => {
  const controller = new AbortController();
  const started = Date.now();
  // Hours of work if nothing stops it.
  const running = c.query({
    sql: "SELECT count(*) FROM range(1000000000000) a WHERE a.range % 7 = 3",
  }, {
    signal: controller.signal,
  });
  running.catch(() => {});
  // Leased means the statement was handed to the engine in the same turn.
  await eventually(() => c.pool.stats.leased === 1, {
    what: "the statement to start",
    ms: 10_000,
  });
  controller.abort();
  await rejects(running, (e: Error) => e.name === "AbortError");
  // The pool holds one connection and DuckDB runs one statement per connection: an answer now
  // means the interrupted statement no longer occupies it.
  deepEqual((await drain(await c.query({ sql: "SELECT 42" }))).rows, [[42]]);
  ok(Date.now() - started < 30_000);
  equal(c.pool.stats.idle, 1);
});

fileTest(
  "test() names the version; tables and columns carry comments, decimals and warnings",
  async (c) => {
    const outcome = await c.test();
    ok(/^v\d/.test(outcome.server_version ?? ""), outcome.server_version ?? "");
    deepEqual((await c.tables({ include: [], cap: 2000 })).items[0], {
      schema: "main",
      name: "t",
      type: "table",
      remarks: "all types",
    });
    const cols = Object.fromEntries((await c.columns("t")).map((col) => [col.name, col]));
    deepEqual(cols.d, decimalColumn("DECIMAL(12,3)"));
    equal(cols.s.remarks, "a label");
    equal(cols.iv.warnings.length, 1);
    deepEqual((await c.columns("v")).map((col) => [col.name, col.type]), [["i", "integer"]]);
  },
);

Deno.test("[duckdb] an in-memory database lives as long as its connector", async () => {
  const c = openConnector(
    connectorConfig("DUCKDB", "jdbc:duckdb:", { hikari: { maximumPoolSize: 2 } }),
  );
  try {
    await c.write([{ sql: "CREATE TABLE x AS SELECT 1 AS one" }]);
    deepEqual((await drain(await c.query({ sql: "SELECT one FROM x" }))).rows, [[1]]);
  } finally {
    await c.close();
  }
});

Deno.test("[duckdb] decimalText writes what DuckDB's decimal value writes", () => {
  const cases: [bigint, number][] = [
    [0n, 0],
    [0n, 2],
    [5n, 1],
    [-5n, 1],
    [-1230n, 2],
    [100n, 2],
    [-100n, 2],
    [1n, 15],
    [-9007199254740991n, 3],
    [9007199254740993n, 3], // past 2^53: the BigInt path
    [-(10n ** 37n) + 1n, 10],
    [123456789012345678n, 0],
    [42n, 18],
  ];
  for (const [scaled, scale] of cases) {
    equal(decimalText(scaled, scale), String(new DuckDBDecimalValue(scaled, 38, scale)));
  }
});

Deno.test("[duckdb] column-wise reads give what the value converters give, chunk after chunk", async () => {
  const instance = await DuckDBInstance.create(":memory:");
  const c = openConnector(connectorConfig("DUCKDB", "jdbc:duckdb:")) as DuckdbConnector;
  try {
    const sql = `SELECT i,
        CASE WHEN i % 4 = 0 THEN NULL ELSE ((i % 100) * -0.37)::DECIMAL(4,2) END AS small,
        (i * 1234567.891)::DECIMAL(18,3) AS mid, (i - 2500)::DECIMAL(9,0) AS whole,
        ((i - 2500) * 2.5)::DECIMAL(21,1) AS d128, ((i - 2500) * -1e9)::DECIMAL(18,0) AS d64,
        ((i - 2500)::HUGEINT * 900719925474099)::DECIMAL(38,1) AS edge,
        (i::HUGEINT * 10000000000000000000 + 7)::DECIMAL(38,10) AS huge,
        (i / 1e6)::DECIMAL(30,18) AS fine,
        CASE WHEN i % 7 = 0 THEN NULL ELSE DATE '1969-12-25' + ((i * 37) % 40000)::INT END AS day,
        DATE '0044-03-15' - i::INT AS old,
        'name ' || i AS name
      FROM range(5000) t(i) ORDER BY i DESC`;
    // The reference: DuckDB's own value objects through the per-value converters.
    const conn = await instance.connect();
    const reader = await conn.runAndReadAll(sql);
    const types = reader.columnTypes();
    const convert = types.map((t) => duckdbConverter(t, duckdbWireType(t).type));
    const expected = reader.getRows().map((row) => row.map((v, i) => convert[i](v)));
    conn.closeSync();
    const got = [];
    for await (const batch of await c.query({ sql }, { batchRows: 777 })) got.push(...batch);
    equal(got.length, 5000);
    deepEqual(got, expected);
    deepEqual(got[4999].slice(0, 4), [0n, null, "0.000", "-2500"]);
    equal(got[0][1], "-36.63");
    equal(got[1][9], null);
  } finally {
    await c.close();
    instance.closeSync();
  }
});

fileTest("chunks() streams the read as engine chunks and gives the connection back", async (c) => {
  const stream = await c.chunks({ sql: "SELECT range AS n FROM range(5000) ORDER BY n" });
  deepEqual(stream.schema.map((s) => [s.name, s.type]), [["n", "bigint"]]);
  let seen = 0;
  let first: unknown;
  for await (const chunk of stream) {
    first ??= [...stream.toRows(chunk)][0][0];
    seen += chunk.rowCount;
  }
  equal(seen, 5000);
  deepEqual(first, [0n]);
  equal(c.pool.stats.leased, 0);

  // Aborted mid-way: iteration ends with the signal's reason and the lease is returned.
  const controller = new AbortController();
  const aborted = await c.chunks({ sql: "SELECT range AS n FROM range(100000)" }, {
    signal: controller.signal,
  });
  await rejects(async () => {
    for await (const _ of aborted) controller.abort(new Error("stop"));
  }, /stop/);
  equal(c.pool.stats.leased, 0);
});

fileTest(
  "a read-only datasource opens its file read-only, beside a writable pool of the same file",
  async (rw, path) => {
    // The writable pool holds the cached instance; the read-only one must not collide with it.
    await rw.write([{ sql: "CREATE TABLE w AS SELECT 1 AS a", params: {} }]);
    const ro = openConnector({
      ...connectorConfig("DUCKDB", `jdbc:duckdb:${path}`),
      readonly: true,
    }) as DuckdbConnector;
    try {
      deepEqual((await drain(await ro.query({ sql: "SELECT count(*)::INT AS n FROM t" }))).rows, [[
        2,
      ]]);
      // The engine refuses, whatever the statement's shape.
      for (
        const sql of ["INSERT INTO t (b) VALUES (true)", "CREATE TABLE x (a INT)", "DROP VIEW v"]
      ) {
        await rejects(ro.write([{ sql, params: {} }]), (e) => {
          ok(e instanceof WriteError && /read-only/i.test(String(e.cause ?? e.message)), String(e));
          return true;
        });
      }
      // The writable pool still writes.
      await rw.write([{ sql: "INSERT INTO w VALUES (2)", params: {} }]);
      deepEqual((await drain(await rw.query({ sql: "SELECT count(*)::INT FROM w" }))).rows, [[2]]);
    } finally {
      await ro.close();
    }
  },
);

fileTest("the sandbox reaches the datasource's own file only", async (c, path) => {
  const dir = path.slice(0, path.lastIndexOf("/"));
  await Deno.writeTextFile(`${dir}/sibling.txt`, "SIBLING-SECRET");
  await rejects(
    async () =>
      await drain(await c.query({ sql: `SELECT content FROM read_text('${dir}/sibling.txt')` })),
    (e) => {
      equal((e as Error).name, "DuckdbRefusal");
      ok(!String((e as Error).message).includes("SIBLING-SECRET"));
      return true;
    },
  );
  // The file itself is the datasource's own: reading it is no escape.
  deepEqual(
    (await drain(await c.query({ sql: `SELECT size > 0 FROM read_blob('${path}')` }))).rows,
    [[true]],
  );
});
