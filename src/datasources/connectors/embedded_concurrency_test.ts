/**
 * Embedded files read side by side while they are written (docs/datasources.md#embedded-pools):
 * a writable DuckDB file on its default pool (a reader per core) and a SQLite file in WAL mode on
 * four connections take 40 writes and 120 reads at once. No write is lost or fails (no
 * SQLITE_BUSY, no DuckDB transaction conflict), every read sees a committed state (each write
 * changes both tables in one transaction, so a read seeing them disagree saw half a write), and
 * reads were in flight together.
 */
import { equal, ok } from "node:assert/strict";
import { drain, withFileConnector } from "../../../tests/support/datasources.ts";
import type { DuckdbConnector } from "./duckdb.ts";
import type { Connector } from "./types.ts";

const SETUP = `
  CREATE TABLE items (id INTEGER PRIMARY KEY, payload VARCHAR);
  CREATE TABLE tally (n INTEGER);
  INSERT INTO tally VALUES (0);`;

const WRITES = 40;
const READS = 120;

async function mixed(c: Connector) {
  let inFlight = 0;
  let most = 0;
  const write = (i: number) =>
    c.write([
      { sql: "INSERT INTO items VALUES (:id, :payload)", params: { id: i, payload: `p${i}` } },
      { sql: "UPDATE tally SET n = n + 1", params: {} },
    ]);
  const read = async () => {
    inFlight++;
    most = Math.max(most, inFlight);
    try {
      const { rows } = await drain(
        await c.query({
          sql: `SELECT (SELECT count(*) FROM items) AS items, (SELECT n FROM tally) AS n,
                  (SELECT count(*) FROM items a, items b) AS pairs`,
        }),
      );
      const [items, n] = rows[0].map(Number);
      equal(items, n, "a read saw half a write");
    } finally {
      inFlight--;
    }
  };
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < READS; i++) {
    work.push(read());
    if (i % 3 === 0) work.push(write(i / 3));
  }
  const outcomes = await Promise.allSettled(work);
  const failures = outcomes.filter((o) => o.status === "rejected");
  equal(failures.length, 0, String((failures[0] as PromiseRejectedResult | undefined)?.reason));
  const { rows } = await drain(
    await c.query({
      sql:
        "SELECT count(*), count(DISTINCT id), min(id), max(id), (SELECT n FROM tally) FROM items",
    }),
  );
  equal(rows[0].map(Number).join(","), `${WRITES},${WRITES},0,${WRITES - 1},${WRITES}`);
  const payloads = await drain(
    await c.query({ sql: "SELECT count(*) FROM items WHERE payload = 'p' || id" }),
  );
  equal(Number(payloads.rows[0][0]), WRITES, "a payload was corrupted");
  return most;
}

Deno.test("[duckdb] a writable file's default pool reads side by side and loses no write", async () => {
  await withFileConnector<DuckdbConnector>("DUCKDB", SETUP, async (c) => {
    equal(c.pool.settings.maximumPoolSize, Math.min(16, navigator.hardwareConcurrency));
    const most = await mixed(c);
    ok(most > 1, `reads ran one at a time (${most})`);
  });
});

Deno.test("[sqlite] a WAL file on four connections reads side by side and loses no write", async () => {
  await withFileConnector(
    "SQLITE",
    `PRAGMA journal_mode = WAL; ${SETUP}`,
    async (c) => {
      const most = await mixed(c);
      ok(most > 1, `reads ran one at a time (${most})`);
    },
    { maximumPoolSize: 4 },
  );
});
