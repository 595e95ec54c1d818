/**
 * Reading 200,000 SQLite rows (5 columns) through the connector, which steps the statement with
 * an end-of-read marker so a failure while stepping is not mistaken for the end
 * (src/datasources/connectors/sqlite_rows.ts), against node:sqlite's bare `iterate()` over the
 * same statement, as the connector stepped before. Two ratios: the marker-wrapped statement
 * stepped bare against the plain one (the guard's own cost), and the whole connector (guard,
 * batching, conversion) against the plain one. Unordered and ORDER BY on an unindexed column,
 * best of 3 each.
 */
import { DatabaseSync } from "node:sqlite";
import { openConnector } from "../src/datasources/connectors/mod.ts";
import { connectorConfig } from "../tests/support/datasources.ts";

const ROWS = 200_000;
const MARKER = "X'00112233445566778899aabbccddeeff'";
const fmt = (n: number) => Math.round(n).toLocaleString("en");

export async function sqliteReadBench(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench_sqlite_reads_" });
  const path = `${dir}/big.db`;
  const setup = new DatabaseSync(path);
  setup.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, cat INTEGER, name TEXT, amount REAL,
      doc TEXT);
    WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${ROWS})
    INSERT INTO t SELECT i, i % 97, 'name-' || i, i * 1.5, '{"a":' || i || '}' FROM c;`);
  setup.close();
  const raw = new DatabaseSync(path, { readOnly: true });
  const connector = openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${path}`));
  try {
    console.log(`\nreading ${fmt(ROWS)} SQLite rows (5 columns), batches of 1000, best of 3`);
    for (
      const [label, sql] of [
        ["unordered", "SELECT * FROM t"],
        ["ORDER BY name DESC", "SELECT * FROM t ORDER BY name DESC"],
      ]
    ) {
      const step = (text: string) => {
        const stmt = raw.prepare(text);
        stmt.setReadBigInts(true);
        stmt.setReturnArrays(true);
        let n = 0;
        for (const _ of stmt.iterate()) n++;
        return n;
      };
      const wrapped = `SELECT * FROM (${sql}\n) UNION ALL SELECT ${MARKER}, NULL, NULL, NULL, NULL`;
      const connectorRead = async () => {
        let n = 0;
        for await (const batch of await connector.query({ sql }, { batchRows: 1000 })) {
          n += batch.length;
        }
        return n;
      };
      const paths = {
        bare: () => Promise.resolve(step(sql)),
        marked: () => Promise.resolve(step(wrapped) - 1),
        connector: connectorRead,
      };
      const best = { bare: 0, marked: 0, connector: 0 };
      for (const run of Object.values(paths)) await run(); // warm: JIT, the page cache
      // Alternate and keep the best of three per path: other work on the machine decides any
      // single interval more than any path does.
      for (let i = 0; i < 3; i++) {
        for (
          const [name, run] of Object.entries(paths) as [keyof typeof best, () => Promise<number>][]
        ) {
          const t0 = performance.now();
          const n = await run();
          if (n !== ROWS) throw new Error(`${name} read ${n} rows`);
          best[name] = Math.max(best[name], n / ((performance.now() - t0) / 1000));
        }
      }
      console.log(`${label}`);
      console.log(`  bare iterate()        ${fmt(best.bare)} rows/s`);
      console.log(`  with end marker       ${fmt(best.marked)} rows/s`);
      console.log(`  connector             ${fmt(best.connector)} rows/s`);
      console.log(
        `  ratio marker/bare: ${(best.marked / best.bare).toFixed(2)}, connector/bare: ${
          (best.connector / best.bare).toFixed(2)
        }`,
      );
    }
  } finally {
    raw.close();
    await connector.close();
    await Deno.remove(dir, { recursive: true });
  }
}
