/**
 * `settings.staging_engine` (DECISIONS.md): the same join of two staged reads (a SQLite and a
 * DuckDB datasource) on DuckDB staging and on SQLite staging gives the same rows and the same
 * wire types; each run really uses the engine its pipeline names.
 */
import { deepEqual, equal } from "node:assert/strict";
import { forEachCrmWorld } from "../../tests/support/executor_world.ts";
import { duckdbFile, pipeline, run, type World } from "./executor_fixtures.ts";
import { dql, staged } from "../../tests/support/pipeline_body.ts";

/** A DuckDB file with `orders` of several wire types, as a datasource. */
async function ordersSource(w: World, name: string): Promise<void> {
  await duckdbFile(
    w,
    name,
    `CREATE TABLE orders (id INTEGER, person_id INTEGER, amount DECIMAL(10,2),
      big BIGINT, day DATE, stamp TIMESTAMP, paid BOOLEAN, note VARCHAR);
    INSERT INTO orders VALUES
      (10, 1, 12.50, 9007199254740993, '2024-02-29', '2024-02-29 10:11:12.5', true, 'first'),
      (11, 3, -0.05, -1, '2023-01-01', '2023-01-01 00:00:00', false, NULL),
      (12, 1, 100.00, 0, NULL, NULL, NULL, 'x,"y"'),
      (13, 9, 1.00, 1, '2020-01-01', '2020-01-01 00:00:00', true, 'nobody');`,
  );
}

const JOIN = [
  staged("people", "crm", "SELECT id, name, team FROM people"),
  staged("orders", "shop", "SELECT * FROM orders"),
  {
    id: "joined",
    type: "DQL",
    source: "tempdb",
    depends_on: ["people", "orders"],
    sql: `SELECT p.name, p.team, o.id, o.amount, o.big, o.day, o.stamp, o.paid, o.note
      FROM people p JOIN orders o ON o.person_id = p.id WHERE p.team = :team`,
    // Staged into staging: read and written on the same private database at once.
    output: { target: "tempdb", table: "joined" },
  },
  dql("final", {
    source: "tempdb",
    depends_on: ["joined"],
    sql: "SELECT * FROM joined ORDER BY id",
  }),
];

async function runNodes(
  w: World,
  nodes: unknown[],
  extra: Record<string, unknown>,
  parameters: Record<string, unknown> = {},
) {
  return await run(w, await pipeline(w, nodes, extra), {
    request: { parameters },
    expectDataReady: true,
  });
}

forEachCrmWorld(
  "a join of two staged reads gives the same result on DuckDB and SQLite staging",
  async (w) => {
    await ordersSource(w, "shop");
    const results: Record<string, { schema: unknown; rows: unknown }> = {};
    for (const engine of ["duckdb", "sqlite"]) {
      const { byType, record } = await runNodes(w, JOIN, {
        parameters: { team: { type: "string" } },
        settings: { staging_engine: engine },
      }, { team: "red" });
      equal(record.status, "SUCCESS", `${engine}: ${JSON.stringify(record.error)}`);
      const ready = byType.get("data_ready")![0].data;
      const page = await w.results.page(record.execution_id, 0, 100);
      results[engine] = {
        schema: page!.result.schema.map((c: { name: string; type: string }) => [c.name, c.type]),
        rows: ready.rows,
      };
    }
    deepEqual(results.sqlite, results.duckdb);
    deepEqual(results.duckdb.rows, [
      [
        "Ada",
        "red",
        10,
        "12.50",
        "9007199254740993",
        "2024-02-29",
        "2024-02-29T10:11:12.5",
        true,
        "first",
      ],
      ["Cy", "red", 11, "-0.05", "-1", "2023-01-01", "2023-01-01T00:00:00", false, null],
      ["Ada", "red", 12, "100.00", "0", null, null, null, 'x,"y"'],
    ]);
    deepEqual(results.duckdb.schema, [
      ["name", "string"],
      ["team", "string"],
      ["id", "integer"],
      ["amount", "decimal"],
      ["big", "bigint"],
      ["day", "date"],
      ["stamp", "timestamp"],
      ["paid", "boolean"],
      ["note", "string"],
    ]);

    // Each run used the engine its pipeline names: only SQLite answers sqlite_version().
    const probe = [dql("v", { source: "tempdb", sql: "SELECT sqlite_version() AS v" })];
    const onSqlite = await runNodes(w, probe, { settings: { staging_engine: "sqlite" } });
    equal(onSqlite.record.status, "SUCCESS");
    const onDuck = await run(w, await pipeline(w, probe));
    equal(onDuck.record.status, "FAILED");
    equal(onDuck.record.error?.code, "pipeline.node.statement_failed");
  },
);
