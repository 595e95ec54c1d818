/**
 * SQLite reads deliver every row or fail with SQLite's error (sqlite_rows.ts): node:sqlite's
 * `iterate()` ends quietly on a stepping error, so each failure here would read as a short
 * success without the end-of-read marker. Real files, real SQLite.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { connectorConfig, withFileConnector } from "../../../tests/support/datasources.ts";
import { AppError } from "../../errors/mod.ts";
import { probeLimits, runProbe } from "../probe.ts";
import { classifyError } from "./common.ts";
import { openConnector } from "./mod.ts";
import type { SqliteConnector } from "./sqlite.ts";
import type { QueryOptions, WireValue } from "./types.ts";

/** The database file every test here reads, as this SQL makes it. */
const FILE_SQL = `
    CREATE TABLE t (id INTEGER PRIMARY KEY, grp TEXT, n INTEGER, doc TEXT);
    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300)
    INSERT INTO t SELECT i, 'g' || (i % 7), (i * 37) % 101, '{"a":' || i || '}' FROM c;
    UPDATE t SET doc = '{bad' WHERE id = 250;
  `;

function withFile(fn: (c: SqliteConnector, path: string) => Promise<void>) {
  return withFileConnector("SQLITE", FILE_SQL, fn);
}

/** Reads the whole stream: the rows that arrived, then either the end or the error. */
async function read(
  c: SqliteConnector,
  sql: string,
  params: Record<string, unknown>,
  options: QueryOptions,
): Promise<{ rows: WireValue[][]; error?: Error }> {
  const rows: WireValue[][] = [];
  try {
    for await (const batch of await c.query({ sql, params }, options)) rows.push(...batch);
    return { rows };
  } catch (error) {
    return { rows, error: error as Error };
  }
}

const SERIES = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 40)";
const FAILURES = [
  { name: "malformed JSON", expr: "json_extract('{bad', '$.a')", text: /malformed JSON/ },
  { name: "abs() overflow", expr: "abs(-9223372036854775807 - 1)", text: /integer overflow/ },
];
// With batches of 5: the first row, inside the first batch, after four whole batches.
const POSITIONS = [1, 3, 23];

Deno.test("[sqlite] a read failing while stepping fails with SQLite's error, never short", async () => {
  await withFile(async (c) => {
    const plain = await read(c, "SELECT nope FROM t", {}, {});
    ok(plain.error, "a statement error fails the read");
    // A statement's own error, not the datasource's configuration (that is the file not opening).
    equal(classifyError(plain.error), "unknown");
    for (const failure of FAILURES) {
      for (const at of POSITIONS) {
        for (const readOnly of [false, true]) {
          const label = `${failure.name} at row ${at}${readOnly ? " (read-only)" : ""}`;
          const sql =
            `${SERIES} SELECT i, CASE WHEN i = :at THEN ${failure.expr} ELSE i END AS v ` +
            "FROM c";
          const { rows, error } = await read(c, sql, { at }, { batchRows: 5, readOnly });
          ok(error, `${label}: the read failed instead of ending after ${rows.length} rows`);
          ok(failure.text.test(error.message), `${label}: ${error.message}`);
          equal((error as { code?: string }).code, "ERR_SQLITE_ERROR", label);
          equal(classifyError(error), classifyError(plain.error), label);
          // Whole batches before the failing one arrived, in order; the failing one never did.
          const before = Math.floor((at - 1) / 5) * 5;
          deepEqual(rows.map((r) => r[0]), Array.from({ length: before }, (_, k) => BigInt(k + 1)));
        }
      }
    }
    // Failing inside a sort fails before any row; failing on table data fails at that row.
    const sorted = await read(c, "SELECT id FROM t ORDER BY json_extract(doc, '$.a')", {}, {
      batchRows: 5,
    });
    ok(sorted.error && /malformed JSON/.test(sorted.error.message));
    equal(sorted.rows.length, 0);
    const scan = await read(c, "SELECT id, json_extract(doc, '$.a') FROM t", {}, { batchRows: 7 });
    ok(scan.error && /malformed JSON/.test(scan.error.message));
    equal(scan.rows.length, 245);
    equal(c.pool.stats.leased, 0, "every failed read gave its connection back");
    deepEqual((await read(c, "SELECT count(*) FROM t", {}, {})).rows, [[300n]]);
  });
});

Deno.test("[sqlite] reads keep the statement's rows, values and order", async () => {
  await withFile(async (c, path) => {
    const direct = new DatabaseSync(path, { readOnly: true });
    const shapes = [
      "SELECT id, grp, n FROM t",
      "SELECT id, grp, n FROM t ORDER BY n DESC, id",
      "SELECT id, grp, n FROM t ORDER BY grp",
      "SELECT id, grp, n FROM t ORDER BY n LIMIT 50 OFFSET 13",
      "SELECT grp, count(*) AS k, sum(n) AS s FROM t GROUP BY grp ORDER BY s DESC",
      "SELECT id, row_number() OVER (PARTITION BY grp ORDER BY n DESC) AS r FROM t ORDER BY r, id",
      "SELECT DISTINCT n FROM t ORDER BY n DESC",
      "SELECT id, id, grp AS id FROM t WHERE id < 20 ORDER BY id DESC",
      "SELECT id FROM t WHERE n < 10 UNION ALL SELECT n FROM t WHERE id < 10 ORDER BY 1 DESC",
      `${SERIES} SELECT i, NULL AS nada, x'00ff' AS bin, 1.5 AS f FROM c ORDER BY i DESC`,
      "SELECT id, grp FROM t ORDER BY random() LIMIT 0",
      "SELECT id FROM t ORDER BY id DESC; -- a trailing comment",
      "SELECT id FROM t -- a comment on the last line",
    ];
    for (const sql of shapes) {
      const stmt = direct.prepare(sql);
      stmt.setReadBigInts(true);
      stmt.setReturnArrays(true);
      const expected = (stmt.all() as unknown as WireValue[][]).map((row) =>
        row.map((v) => v instanceof Uint8Array ? [...v].join(",") : v)
      );
      const { rows, error } = await read(c, sql, {}, { batchRows: 7 });
      equal(error, undefined, sql);
      deepEqual(
        rows.map((row) => row.map((v) => v instanceof Uint8Array ? [...v].join(",") : v)),
        expected,
        sql,
      );
    }
    direct.close();
    // A statement SQLite cannot nest in a subquery is read whole instead.
    const pragma = await read(c, "PRAGMA table_info('t')", {}, { batchRows: 2 });
    equal(pragma.error, undefined);
    deepEqual(pragma.rows.map((r) => r[1]), ["id", "grp", "n", "doc"]);
  });
});

Deno.test("[sqlite] a locked database fails the read with SQLITE_BUSY, not with no rows", async () => {
  await withFile(async (_, path) => {
    const c = openConnector(
      connectorConfig("SQLITE", `jdbc:sqlite:${path}?busy_timeout=20`),
    ) as SqliteConnector;
    const writer = new DatabaseSync(path);
    try {
      // Read once first so the schema is cached and the lock is met while stepping, not preparing.
      equal((await read(c, "SELECT id FROM t", {}, {})).rows.length, 300);
      writer.exec("BEGIN EXCLUSIVE");
      const { rows, error } = await read(c, "SELECT id FROM t", {}, { batchRows: 5 });
      ok(error && /locked/.test(error.message), String(error));
      equal(rows.length, 0);
      writer.exec("ROLLBACK");
      equal((await read(c, "SELECT id FROM t", {}, {})).rows.length, 300);
      equal(c.pool.stats.leased, 0);
    } finally {
      writer.close();
      await c.close();
    }
  });
});

Deno.test("[sqlite] the probe path reports a read that failed mid-stream", async () => {
  await withFile(async (c) => {
    const sql = `${SERIES} SELECT i, CASE WHEN i = 30 THEN json_extract('{bad', '$') END FROM c`;
    const error = await runProbe(c, { sql }, probeLimits({ maxRows: 1000 })).catch((e) => e);
    ok(error instanceof AppError, String(error));
    equal(error.code, "datasource.probe.statement_failed");
    ok(/malformed JSON/.test(String(error.details.reason)), String(error.details.reason));
    // Beyond the row cap nothing is read, so a later failure is not reached.
    const capped = await runProbe(c, { sql }, probeLimits({ maxRows: 10 }));
    equal(capped.row_count, 10);
    equal(capped.truncated, true);
  });
});
