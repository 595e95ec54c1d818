import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { drain, fileConnectorTest } from "../../../tests/support/datasources.ts";
import type { SqliteConnector } from "./sqlite.ts";

/** The database file every test here reads, as this SQL makes it. */
const FILE_SQL = `
    PRAGMA journal_mode = WAL;
    CREATE TABLE t (
      b BOOLEAN, i INTEGER, d DECIMAL(10,2), r REAL, s VARCHAR(10), dt DATE, ts DATETIME, tm TIME,
      j JSON, u UUID, bl BLOB, odd GEOMETRY, untyped
    );
    INSERT INTO t VALUES (1, 9007199254740993, 12.5, 1.25, 'héllo', '2024-02-29',
      '2024-02-29 13:14:15', '23:59:58', '{"a":1}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      x'00ff', 'POINT(1 2)', 'x');
    INSERT INTO t (b) VALUES (NULL);
    CREATE VIEW v AS SELECT i FROM t;
  `;

/** Each test runs on a fresh file that FILE_SQL makes. */
const fileTest = fileConnectorTest<SqliteConnector>("SQLITE", FILE_SQL);

fileTest("query() maps declared types and infers expression columns", async (c) => {
  const stream = await c.query({
    sql: "SELECT *, i + 1 AS e, 'x' AS lit, 2.5 AS f FROM t ORDER BY b DESC",
  });
  deepEqual(stream.schema.map((col) => [col.name, col.type, col.source_type]), [
    ["b", "boolean", "BOOLEAN"],
    ["i", "bigint", "INTEGER"],
    ["d", "decimal", "DECIMAL(10,2)"],
    ["r", "double", "REAL"],
    ["s", "string", "VARCHAR(10)"],
    ["dt", "date", "DATE"],
    ["ts", "timestamp", "DATETIME"],
    ["tm", "time", "TIME"],
    ["j", "json", "JSON"],
    ["u", "uuid", "UUID"],
    ["bl", "binary", "BLOB"],
    ["odd", "string", "GEOMETRY"],
    ["untyped", "string", "TEXT"],
    ["e", "bigint", "INTEGER"],
    ["lit", "string", "TEXT"],
    ["f", "double", "REAL"],
  ]);
  const { rows } = await drain(stream);
  const [full, empty] = rows;
  deepEqual(full.slice(0, 10), [
    true,
    9007199254740993n,
    "12.5",
    1.25,
    "héllo",
    "2024-02-29",
    "2024-02-29T13:14:15",
    "23:59:58",
    '{"a":1}',
    "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
  ]);
  deepEqual([...(full[10] as Uint8Array)], [0, 255]);
  deepEqual(full.slice(11), ["POINT(1 2)", "x", 9007199254740994n, "x", 2.5]);
  equal(empty[0], null);
});

fileTest("query() streams in batches, binds by name and cuts at maxRows", async (c) => {
  const sql =
    "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < :n) SELECT x, :tag AS tag FROM r";
  const hostile = "'); DROP TABLE t; --";
  const all = await drain(
    await c.query({ sql, params: { n: 10_500, tag: hostile } }, { batchRows: 1000 }),
  );
  equal(all.batches.length, 11);
  deepEqual(all.rows[10_499], [10_500n, hostile]);
  const cut = await c.query({ sql, params: { n: 100, tag: null } }, { maxRows: 7, batchRows: 5 });
  deepEqual((await drain(cut)).batches, [5, 2]);
  equal(cut.truncated, true);
  equal((await c.columns("t")).length, 13, "the table survived the hostile value");
  deepEqual(c.pool.stats, { idle: 1, leased: 0, connecting: 0, waiting: 0 });
});

fileTest("an abort ends a stream between batches and frees the connection", async (c) => {
  const controller = new AbortController();
  const stream = await c.query({
    sql: "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r",
  }, { signal: controller.signal, batchRows: 100 });
  let seen = 0;
  await rejects(
    (async () => {
      for await (const batch of stream) {
        seen += batch.length;
        if (seen >= 300) controller.abort();
      }
    })(),
    (e: Error) => e.name === "AbortError",
  );
  equal(seen, 300);
  equal(c.pool.stats.leased, 0);
  deepEqual((await drain(await c.query({ sql: "SELECT 1 AS one" }))).rows, [[1n]]);
});

fileTest("test() names the version; columns carry declared decimals and warnings", async (c) => {
  ok(/^3\./.test((await c.test()).server_version ?? ""));
  const cols = await c.columns("t");
  deepEqual(cols[2], {
    name: "d",
    type: "decimal",
    source_type: "DECIMAL(10,2)",
    nullable: true,
    precision: 10,
    scale: 2,
    warnings: [],
    references: [],
    indexes: [],
  });
  equal(cols[11].warnings.length, 1);
});
