/**
 * List parameters on the real engines (issue 11 item 5): `x IN (:ids)` and `x NOT IN (:ids)` keep
 * their meaning on every dialect; PostgreSQL binds the list as one array (a list longer than its
 * 65,535 bind markers runs) and so does DuckDB for integers; MySQL and SQLite expand a list at the
 * cap within their marker limits. Strings that look like array or SQL syntax stay data.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { DuckDBInstance } from "@duckdb/node-api";
import { type Connector, openConnector } from "../src/datasources/mod.ts";
import { DEFAULT_PARAMETER_CAPS } from "../src/pipelines/mod.ts";
import {
  connectorConfig,
  drain,
  mariaConnectorTest,
  pgConnectorTest,
} from "./support/datasources.ts";

const NAMES = ["plain", 'quo"te', "back\\slash", "com,ma", "{brace}", "NULL", "it's"];
const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);

/** The same checks on every engine: `t(id, name)` holds ids 1..5 named after NAMES. */
async function checkLists(c: Connector, big: number): Promise<void> {
  const ids = async (sql: string, params: Record<string, unknown>) =>
    (await drain(await c.query({ sql, params }))).rows.map((r) => Number(r[0]));
  const q = "SELECT id FROM t WHERE id IN (:ids) ORDER BY id";
  deepEqual(await ids(q, { ids: [2, 4, 99] }), [2, 4]);
  deepEqual(await ids("SELECT id FROM t WHERE id NOT IN (:ids) ORDER BY id", { ids: [2, 4] }), [
    1,
    3,
    5,
  ]);
  // An empty list matches nothing, in and out.
  deepEqual(await ids(q, { ids: [] }), []);
  deepEqual(await ids("SELECT id FROM t WHERE id NOT IN (:ids)", { ids: [] }), []);
  // Repeated, and beside other values and inside a longer list.
  deepEqual(
    await ids("SELECT id FROM t WHERE id IN (:ids) AND id > :min AND id IN (1, :ids) ORDER BY id", {
      ids: [1, 2, 3],
      min: 1,
    }),
    [2, 3],
  );
  deepEqual(
    await ids("SELECT id FROM t WHERE name IN (:names) ORDER BY id", { names: NAMES.slice(1, 4) }),
    [2, 3, 4],
  );
  deepEqual(
    await ids("SELECT id FROM t WHERE name IN (:names) ORDER BY id", {
      names: ["{brace}", "NULL"],
    }),
    [5],
  );
  // A list as long as the engine's binding allows: the cap, or past any marker limit.
  deepEqual(await ids(q, { ids: range(big, 3) }), [3, 4, 5]);
}

async function seed(
  run: (sql: string) => Promise<unknown>,
  textType = "TEXT",
  backslashEscapes = false,
): Promise<void> {
  await run(`CREATE TABLE t (id INTEGER, name ${textType})`);
  const literal = (text: string) =>
    (backslashEscapes ? text.replaceAll("\\", "\\\\") : text).replaceAll("'", "''");
  const rows = range(5).map((id) => `(${id}, '${literal(NAMES[id - 1])}')`);
  await run(`INSERT INTO t VALUES ${rows.join(", ")}`);
}

pgConnectorTest(
  "a whole IN list binds as one array, past the 65,535 marker limit",
  async ({ c, admin }) => {
    await seed((sql) => admin.unsafe(sql));
    await checkLists(c, 100_000);
    // The column's type types the array: dates compare as dates.
    await admin.unsafe("CREATE TABLE d (day DATE)");
    await admin.unsafe("INSERT INTO d VALUES ('2024-01-01'), ('2024-01-02')");
    const days = await drain(
      await c.query({
        sql: "SELECT count(*) FROM d WHERE day IN (:days)",
        params: { days: ["2024-01-02"] },
      }),
    );
    equal(Number(days.rows[0][0]), 1);
  },
);

mariaConnectorTest(
  "a list expands to one marker per item, at the cap too",
  async ({ c, admin }) => {
    await seed((sql) => admin.query(sql), "VARCHAR(50)", true);
    await checkLists(c, DEFAULT_PARAMETER_CAPS.maxListItems);
  },
);

Deno.test("[sqlite] a list expands to numbered markers, every value of an execution within the limit", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = new DatabaseSync(`${dir}/l.db`);
    await seed((sql) => Promise.resolve(file.exec(sql)));
    file.close();
    const c = openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${dir}/l.db`));
    try {
      await checkLists(c, DEFAULT_PARAMETER_CAPS.maxValues);
    } finally {
      await c.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[duckdb] an integer IN list binds as one list; strings expand", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const instance = await DuckDBInstance.create(`${dir}/l.duckdb`);
    const conn = await instance.connect();
    await seed((sql) => conn.run(sql), "VARCHAR");
    conn.closeSync();
    instance.closeSync();
    const c = openConnector(connectorConfig("DUCKDB", `jdbc:duckdb:${dir}/l.duckdb`));
    try {
      await checkLists(c, 100_000);
    } finally {
      await c.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
