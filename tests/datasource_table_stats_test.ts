/**
 * `datasources_get_table_stats` (spec 1 §4.7; no REST twin) over real PostgreSQL, MariaDB, SQLite
 * and DuckDB datasources registered on each metadata store: catalog estimates and sizes where the
 * dialect has them, an exact count where it has not (and for views), the timeout leaving the count
 * out, and the caller's visibility.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { DuckDBInstance } from "@duckdb/node-api";
import postgres from "postgres";
import { DatasourceConnections, PoolManager } from "../src/datasources/mod.ts";
import { datasourceFixture } from "../src/datasources/test_fixtures.ts";
import { createLogger } from "../src/lib/log.ts";
import { freshMariaDatabase, mariaAdmin, pgJdbcUrl } from "./support/datasources.ts";
import { forEachStore, freshPostgresDatabase } from "./support/stores.ts";
import { refuses } from "./support/refusals.ts";

forEachStore(
  "table stats per dialect: estimates, sizes, exact counts, views, timeout",
  async (db) => {
    const f = await datasourceFixture(db);
    const dir = await Deno.makeTempDir();
    const pools = await PoolManager.create({ retireCeilingMs: 1000 });
    const logger = createLogger("error", () => {});
    const conns = new DatasourceConnections({ db, datasources: f.ds, pools, logger });
    const pg = await freshPostgresDatabase();
    const maria = await freshMariaDatabase();
    try {
      const acme = await f.ctx("acme", f.admin);
      const register = (name: string, dialect: string, jdbc_url: string, username?: string) =>
        f.ds.create(f.admin, acme, {
          name,
          dialect,
          jdbc_url,
          ...(username ? { credential: { kind: "none", username } } : {}),
        });
      const stats = (name: string, table: string, schema?: string, timeoutMs?: number) =>
        conns.tableStats(f.admin, acme, name, { table, ...(schema ? { schema } : {}) }, {
          timeoutMs,
        });

      // PostgreSQL: an analysed table answers from the catalog; a never-analysed one is counted.
      const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
      await sql.unsafe(`
      CREATE TABLE big (id integer, note text);
      INSERT INTO big SELECT g, repeat('x', 50) FROM generate_series(1, 5000) g;
      ANALYZE big;
      CREATE TABLE fresh (id integer);
      INSERT INTO fresh VALUES (1), (2), (3);
      CREATE VIEW slow AS SELECT 1 AS x FROM pg_sleep(3);`);
      await sql.end();
      await register("pg", "POSTGRES", pgJdbcUrl(pg.url), "postgres");
      const big = await stats("pg", "big", "public");
      deepEqual([big.type, big.row_count, big.row_count_exact], ["table", 5000, false]);
      ok(big.size_bytes! > 5000 * 50, String(big.size_bytes));
      deepEqual(big.columns.map((c) => [c.name, c.type]), [["id", "integer"], ["note", "string"]]);
      const fresh = await stats("pg", "fresh");
      deepEqual([fresh.schema, fresh.row_count, fresh.row_count_exact], ["public", 3, true]);
      // A view has no statistics: counted, and a count past the timeout is left out, not failed.
      const slow = await stats("pg", "slow", "public", 300);
      deepEqual([slow.type, "row_count" in slow, "size_bytes" in slow], ["view", false, false]);
      ok(slow.elapsed_ms < 2500, String(slow.elapsed_ms));

      // MariaDB: information_schema's estimate and data plus index length.
      const admin = await mariaAdmin(maria.name);
      await admin.query(
        `CREATE TABLE orders (id INT PRIMARY KEY, amount DECIMAL(10,2)) ENGINE=InnoDB;
      INSERT INTO orders VALUES (1, 10), (2, 20), (3, 30);`,
      );
      await admin.end();
      await register("maria", "MYSQL", maria.url, "root");
      const orders = await stats("maria", "orders");
      deepEqual([orders.schema, orders.row_count_exact], [maria.name, false]);
      equal(typeof orders.row_count, "number");
      ok(orders.size_bytes! > 0);

      // SQLite: no statistics without a scan, so an exact count and no size.
      const path = `${dir}/shop.db`;
      const file = new DatabaseSync(path);
      file.exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
      INSERT INTO items (name) VALUES ('a'), ('b'), ('c'), ('d');`);
      file.close();
      await register("shop", "SQLITE", `jdbc:sqlite:${path}`);
      const items = await stats("shop", "items");
      deepEqual(
        { ...items, elapsed_ms: 0 },
        {
          schema: "main",
          table: "items",
          type: "table",
          columns: [
            { name: "id", type: "bigint", source_type: "INTEGER", nullable: true },
            { name: "name", type: "string", source_type: "TEXT", nullable: false },
          ],
          row_count: 4,
          row_count_exact: true,
          elapsed_ms: 0,
        },
      );

      // DuckDB: the storage's row estimate, no byte size.
      const duckPath = `${dir}/a.duckdb`;
      const duck = await DuckDBInstance.create(duckPath);
      const dc = await duck.connect();
      await dc.run("CREATE TABLE events AS SELECT range AS id FROM range(1234)");
      dc.closeSync();
      duck.closeSync();
      await register("duck", "DUCKDB", `jdbc:duckdb:${duckPath}`);
      const events = await stats("duck", "events");
      deepEqual([events.row_count, events.row_count_exact, "size_bytes" in events], [
        1234,
        false,
        false,
      ]);

      await refuses(stats("shop", "nope"), "datasource.table_not_found", 404);
      await refuses(stats("shop", "items", "other"), "datasource.table_not_found", 404);
      const other = await f.ctx("other", f.otherAdmin);
      await refuses(
        conns.tableStats(f.otherAdmin, other, "shop", { table: "items" }),
        "datasource.not_found",
        404,
      );
    } finally {
      await pools.closeAll();
      await pg.drop();
      await maria.drop();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
