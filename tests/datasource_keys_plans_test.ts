/**
 * Keys, indexes and plans on every dialect (docs/datasources.md#keys-and-indexes,
 * docs/datasources.md#plans): the same two tables on a real PostgreSQL, MariaDB, SQLite and
 * DuckDB database; the columns listing reports the composite primary and foreign keys and the
 * indexes, and the probe's `explain` answers a plan without running the statement, refusing a
 * write or a second statement as the probe would. A lake exposes no keys and says so by
 * leaving the fields out.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { AppError } from "../src/errors/mod.ts";
import type { ColumnInfo, Connector } from "../src/datasources/connectors/types.ts";
import { LakeConnector } from "../src/datasources/connectors/lake.ts";
import { runProbe } from "../src/datasources/probe.ts";
import { mariaConnectorTest, pgConnectorTest, withFileConnector } from "./support/datasources.ts";
import { writeParquet } from "./support/lake.ts";

const DDL = [
  "CREATE TABLE parent (a INT NOT NULL, b INT NOT NULL, PRIMARY KEY (a, b))",
  `CREATE TABLE child (id INT PRIMARY KEY, pa INT, pb INT, u VARCHAR(20) UNIQUE, note VARCHAR(20),
     FOREIGN KEY (pa, pb) REFERENCES parent (a, b))`,
  "CREATE INDEX child_pb_u ON child (pb, u)",
  "INSERT INTO parent VALUES (1, 1), (2, 2)",
  "INSERT INTO child VALUES (1, 1, 1, 'x', 'n'), (2, 2, 2, 'y', 'm')",
];

const LIMITS = { maxRows: 100, timeoutMs: 10_000 };

/** What every dialect must report of `child`, index and constraint names aside. */
function assertKeys(columns: ColumnInfo[], schema: string, named: boolean) {
  const by = new Map(columns.map((c) => [c.name, c]));
  deepEqual(columns.map((c) => [c.name, c.primary_key]), [
    ["id", 1],
    ["pa", undefined],
    ["pb", undefined],
    ["u", undefined],
    ["note", undefined],
  ]);
  deepEqual(
    by.get("pa")!.references!.map(({ schema, table, column }) => ({ schema, table, column })),
    [{ schema, table: "parent", column: "a" }],
  );
  deepEqual(by.get("pb")!.references!.map((r) => r.column), ["b"]);
  // Both halves of the composite key carry one constraint name, where the engine names it.
  const names = ["pa", "pb"].map((c) => by.get(c)!.references![0].constraint);
  if (named) ok(names[0] !== undefined && names[0] === names[1], JSON.stringify(names));
  else deepEqual(names, [undefined, undefined]);
  deepEqual(by.get("note")!.references, []);
  deepEqual(by.get("note")!.indexes, []);
  const index = (c: string) => by.get(c)!.indexes!.find((i) => i.name === "child_pb_u");
  deepEqual(index("pb"), { name: "child_pb_u", unique: false, position: 1 });
  deepEqual(index("u"), { name: "child_pb_u", unique: false, position: 2 });
  // The indexes backing the primary key and the unique constraint are listed too.
  ok(by.get("id")!.indexes!.some((i) => i.unique && i.position === 1), "primary key index");
  ok(by.get("u")!.indexes!.some((i) => i.unique && i.name !== "child_pb_u"), "unique index");
}

async function refusal(p: Promise<unknown>): Promise<{ code: string; reason: unknown }> {
  let out: { code: string; reason: unknown } | undefined;
  await rejects(p, (e) => {
    ok(e instanceof AppError, String(e));
    out = { code: e.code, reason: e.details.reason };
    return true;
  });
  return out!;
}

/** A plan of a bound read comes back as rows; writes and second statements are refused. */
async function assertPlans(c: Connector) {
  const plan = await runProbe(c, {
    sql: "SELECT id, note FROM child WHERE id = :id ORDER BY id",
    params: { id: 1 },
  }, { ...LIMITS, explain: true });
  ok(plan.rows.length > 0, "a plan has at least one row");
  ok(plan.columns.length > 0);
  ok(JSON.stringify(plan.rows).toLowerCase().includes("child"), JSON.stringify(plan.rows));
  const write = await refusal(
    runProbe(c, { sql: "DELETE FROM child" }, { ...LIMITS, explain: true }),
  );
  deepEqual(write, { code: "datasource.probe.not_read_only", reason: "not_a_read" });
  const twice = await refusal(
    runProbe(c, { sql: "SELECT 1; DELETE FROM child" }, { ...LIMITS, explain: true }),
  );
  deepEqual(twice, { code: "datasource.probe.not_read_only", reason: "multiple_statements" });
  // The plan's own keyword is no way in: the statement must still start as a read.
  const nested = await refusal(
    runProbe(c, { sql: "EXPLAIN ANALYZE SELECT 1" }, { ...LIMITS, explain: true }),
  );
  deepEqual(nested, { code: "datasource.probe.not_read_only", reason: "not_a_read" });
  deepEqual((await runProbe(c, { sql: "SELECT count(*) AS n FROM child" }, LIMITS)).rows, [[2]]);
}

pgConnectorTest("keys, indexes and a plan that never runs the statement", async ({ c, admin }) => {
  for (const ddl of DDL) await admin.unsafe(ddl);
  await admin.unsafe("CREATE SEQUENCE untouched");
  assertKeys(await c.columns("child"), "public", true);
  await assertPlans(c);
  // nextval() in the planned statement would advance the sequence if it ran.
  await runProbe(c, { sql: "SELECT nextval('untouched')" }, { ...LIMITS, explain: true });
  const [{ is_called }] = await admin`SELECT is_called FROM untouched`;
  equal(is_called, false);
});

mariaConnectorTest(
  "keys, indexes and a plan that never runs the statement",
  async ({ c, admin, db }) => {
    for (const ddl of DDL) await admin.query(ddl);
    assertKeys(await c.columns("child"), db, true);
    await assertPlans(c);
    // SLEEP(5) in the planned statement would take five seconds if it ran.
    const started = Date.now();
    await runProbe(c, { sql: "SELECT SLEEP(5) FROM child" }, { ...LIMITS, explain: true });
    ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
  },
);

Deno.test("SQLite: keys, indexes and a plan; its foreign keys carry no constraint name", async () => {
  await withFileConnector("SQLITE", DDL.join(";\n"), async (c) => {
    assertKeys(await c.columns("child"), "main", false);
    await assertPlans(c);
  });
});

Deno.test("DuckDB: keys, indexes and a plan; the engine vets the read inside it", async () => {
  await withFileConnector("DUCKDB", DDL.join(";\n") + ";", async (c) => {
    assertKeys(await c.columns("child"), "main", true);
    await assertPlans(c);
    // Past the words, the engine still prepares the planned statement alone and wants a read.
    const engine = await refusal(
      c.query({ sql: "EXPLAIN DELETE FROM child" }, { readOnly: true, explain: true }),
    );
    deepEqual(engine, { code: "datasource.probe.not_read_only", reason: "engine_refused" });
    deepEqual((await runProbe(c, { sql: "SELECT count(*) FROM child" }, LIMITS)).rows, [[2]]);
  });
});

Deno.test("LAKE: no keys exposed, so the columns carry none of the fields; plans work", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc_lake_keys_" });
  const lake = new LakeConnector({
    datasource: "lake1",
    jdbc_url: `jdbc:lake:file://${dir}`,
    tables: [{
      namespace: ["misc"],
      name: "flat",
      format: "parquet",
      location: `file://${dir}/flat.parquet`,
    }],
  });
  try {
    await writeParquet(`${dir}/flat.parquet`, "SELECT 1 AS id, 'x' AS label");
    const columns = await lake.columns("flat", "misc");
    deepEqual(columns.map((c) => c.name), ["id", "label"]);
    for (const c of columns) {
      deepEqual(["primary_key", "references", "indexes"].filter((k) => k in c), []);
    }
    const plan = await runProbe(lake, { sql: 'SELECT * FROM "misc"."flat"' }, {
      ...LIMITS,
      explain: true,
    });
    ok(plan.rows.length > 0);
  } finally {
    await lake.close();
    await Deno.remove(dir, { recursive: true });
  }
});
