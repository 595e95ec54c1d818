/**
 * Issue 22, finding 1: the bounds on values every connector hands to JavaScript. A value over
 * `maxCellBytes` fails the read with `ValueTooLarge` (inside DuckDB and SQLite before it becomes
 * a JS value); batches are cut at `BATCH_BYTES` whatever a row holds; `maxBytes` stops a read
 * like `maxRows`.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import {
  connectorConfig,
  drain,
  mariaConnectorTest,
  pgConnectorTest,
  withFileConnector,
} from "../../../tests/support/datasources.ts";
import { openConnector } from "./mod.ts";
import type { Connector } from "./types.ts";
import { BATCH_BYTES, BatchTooLarge, ValueTooLarge } from "./value_bounds.ts";

const KB = 1024;

async function refusedAsTooLarge(c: Connector, sql: string, column: string | null) {
  await rejects(async () => await drain(await c.query({ sql }, { maxCellBytes: KB })), (error) => {
    ok(error instanceof ValueTooLarge, String(error));
    equal(error.column, column);
    equal(error.limit, KB);
    return true;
  });
}

for (const dialect of ["DUCKDB", "SQLITE"] as const) {
  const long = dialect === "DUCKDB" ? "repeat('x', 2000)" : "printf('%.*c', 2000, 'x')";
  Deno.test(`issue 22 finding 1: [${dialect}] a value over maxCellBytes fails the read`, async () => {
    await withFileConnector(dialect, "CREATE TABLE t (n INTEGER)", async (c) => {
      // DuckDB names the column it measured; SQLite's engine refuses the value itself.
      await refusedAsTooLarge(c, `SELECT 1 AS n, ${long} AS s`, dialect === "DUCKDB" ? "s" : null);
      // At the bound is fine.
      const { rows } = await drain(
        await c.query({ sql: `SELECT ${long} AS s` }, { maxCellBytes: 2000 }),
      );
      equal((rows[0][0] as string).length, 2000);
      // The connection stays usable.
      equal(Number((await drain(await c.query({ sql: "SELECT 7 AS n" }))).rows[0][0]), 7);
    });
  });

  Deno.test(`issue 22 finding 1: [${dialect}] batches are cut at BATCH_BYTES, every row arrives`, async () => {
    // 40 rows of 1 MiB: more than one batch's worth, whatever the batch row count.
    const rows = 40;
    const sql = dialect === "DUCKDB"
      ? `SELECT i, repeat('y', ${1024 * KB}) AS y FROM range(${rows}) t(i) ORDER BY i`
      : `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows - 1})
         SELECT i, printf('%.*c', ${1024 * KB}, 'y') AS y FROM n`;
    await withFileConnector(dialect, "CREATE TABLE t (n INTEGER)", async (c) => {
      const { batches, rows: read } = await drain(await c.query({ sql }, { batchRows: 1000 }));
      equal(read.length, rows);
      deepEqual(read.map((r) => Number(r[0])), Array.from({ length: rows }, (_, i) => i));
      ok(batches.length > 1, `one batch of ${rows} MiB: ${batches}`);
      for (const n of batches) ok(n * 1024 * KB <= BATCH_BYTES + 1024 * KB, String(batches));
    });
  });

  Deno.test(`issue 22 finding 1: [${dialect}] maxBytes stops a read as maxRows does`, async () => {
    await withFileConnector(dialect, "CREATE TABLE t (n INTEGER)", async (c) => {
      const sql = dialect === "DUCKDB"
        ? `SELECT i, repeat('y', ${100 * KB}) AS y FROM range(100) t(i) ORDER BY i`
        : `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99)
           SELECT i, printf('%.*c', ${100 * KB}, 'y') AS y FROM n`;
      const stream = await c.query({ sql }, { maxBytes: 350 * KB });
      const { rows } = await drain(stream);
      equal(rows.length, 3);
      equal(stream.truncated, true);
      // A first row wider than the bound is still answered.
      const one = await c.query({ sql }, { maxBytes: KB });
      equal((await drain(one)).rows.length, 1);
      equal(one.truncated, true);
    });
  });
}

pgConnectorTest("issue 22 finding 1: a value over maxCellBytes fails the read", async ({ c }) => {
  await refusedAsTooLarge(c, "SELECT 1 AS n, repeat('x', 2000) AS s", "s");
  deepEqual((await drain(await c.query({ sql: "SELECT 7 AS n" }))).rows, [[7]]);
});

mariaConnectorTest(
  "issue 22 finding 1: a value over maxCellBytes fails the read",
  async ({ c }) => {
    await refusedAsTooLarge(c, "SELECT 1 AS n, REPEAT('x', 2000) AS s", "s");
    deepEqual((await drain(await c.query({ sql: "SELECT 7 AS n" }))).rows, [[7]]);
    // Wide rows queue by bytes as well as rows: batches of BATCH_BYTES, every row arrives.
    const mib = 1024 * KB;
    const { batches, rows } = await drain(
      await c.query({ sql: `SELECT seq, REPEAT('y', ${mib}) AS y FROM seq_1_to_100` }, {
        batchRows: 1000,
      }),
    );
    deepEqual(rows.map((r) => Number(r[0])), Array.from({ length: 100 }, (_, i) => i + 1));
    ok(batches.length > 1, String(batches));
    for (const n of batches) ok(n * mib <= BATCH_BYTES, String(batches));
  },
);

Deno.test("issue 22 finding 1: a DuckDB datasource's instance runs under the memory limit set", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/limited.duckdb`;
    await withFileConnector("DUCKDB", "CREATE TABLE t (n INTEGER)", async (_c, file) => {
      await Deno.copyFile(file, path);
    });
    const c = openConnector(connectorConfig("DUCKDB", `jdbc:duckdb:${path}`), {
      limits: { maxCellBytes: KB, duckdbMemoryMb: 256 },
    });
    try {
      const { rows } = await drain(
        await c.query({ sql: "SELECT current_setting('memory_limit') AS m" }),
      );
      equal(rows[0][0], "256.0 MiB");
    } finally {
      await c.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

pgConnectorTest(
  "issue 22 finding 1: wide rows are read in batches of BATCH_BYTES after the first, every row arrives",
  async ({ c }) => {
    const mib = 1024 * KB;
    const { batches, rows } = await drain(
      await c.query({
        sql: `SELECT g, repeat('y', ${mib}) AS y FROM generate_series(1, 100) g ORDER BY g`,
      }, { batchRows: 50, maxCellBytes: 8 * mib }),
    );
    equal(rows.length, 100);
    deepEqual(rows.map((r) => r[0]), Array.from({ length: 100 }, (_, i) => i + 1));
    // The first batch is the asked 50 rows; the rest fit BATCH_BYTES at 1 MiB a row.
    equal(batches[0], 50);
    for (const n of batches.slice(1)) ok(n * mib <= BATCH_BYTES, String(batches));
  },
);

pgConnectorTest(
  "issue 22 finding 1: a batch the driver cannot stop past MAX_BATCH_BYTES fails the read",
  async ({ c }) => {
    // 700 rows of 1 MiB read whole (LIMIT within the batch): past 512 MiB, refused as built.
    await rejects(
      async () =>
        await drain(
          await c.query({
            sql: "SELECT repeat('y', 1048576) AS y FROM generate_series(1, 700) g LIMIT 700",
          }, { maxCellBytes: 8 * 1024 * KB }),
        ),
      (error) => error instanceof BatchTooLarge,
    );
    equal(Number((await drain(await c.query({ sql: "SELECT 7 AS n" }))).rows[0][0]), 7);
  },
);
