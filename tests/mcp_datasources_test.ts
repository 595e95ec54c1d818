/**
 * The datasources_* tools and sql_probe over real HTTP with the official SDK client, on both
 * stores, against real PostgreSQL, DuckDB and SQLite datasources: listing and reading without a
 * connection, table stats, introspection, previews and probes in the rows shape under the caps
 * (a million-row statement answered truncated), the read-only refusal, the connection test, each
 * tool's floor, and the pinned workspace (another workspace's datasource is not-found).
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import postgres from "postgres";
import type { WorkspaceContext } from "../src/identity/mod.ts";
import { adminScope } from "./support/access_fixtures.ts";
import { pgJdbcUrl } from "./support/datasources.ts";
import { startTestServer, type TestServer } from "./support/harness.ts";
import { floorsHold, refuses, toolFixture, withClients } from "./support/mcp_tools_fixtures.ts";
import { freshPostgresDatabase, STORE_KINDS } from "./support/stores.ts";
import { skipUnless } from "./support/services.ts";

const MAX_ROWS = 20;
const MAX_CHARS = 1000;

/** The three warehouses: PostgreSQL (schema sales), a DuckDB file and a SQLite file. */
async function warehouses() {
  const pg = await freshPostgresDatabase();
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  await sql.unsafe(`
    CREATE SCHEMA sales;
    CREATE TABLE sales.orders (id integer PRIMARY KEY, amount numeric(10,2), note text);
    INSERT INTO sales.orders SELECT g, g * 1.5, 'order ' || g FROM generate_series(1, 300) g;
    CREATE TABLE sales.wide (id integer, blob text);
    INSERT INTO sales.wide SELECT g, repeat('x', 300) FROM generate_series(1, 20) g;
    ANALYZE sales.orders;
  `);
  await sql.end();
  const dir = await Deno.makeTempDir();
  const duckPath = `${dir}/analytics.duckdb`;
  const duck = await DuckDBInstance.create(duckPath);
  const conn = await duck.connect();
  await conn.run(`CREATE TABLE main.events AS
    SELECT range AS id, 'e' || range AS name FROM range(120)`);
  conn.closeSync();
  duck.closeSync();
  const litePath = `${dir}/crm.db`;
  const lite = new DatabaseSync(litePath);
  lite.exec(`CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT);
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 80)
    INSERT INTO customers SELECT i, 'customer ' || i FROM n;`);
  lite.close();
  return {
    pgUrl: pgJdbcUrl(pg.url),
    duckUrl: `jdbc:duckdb:${duckPath}`,
    liteUrl: `jdbc:sqlite:${litePath}`,
    async drop() {
      await pg.drop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function register(s: TestServer, f: Awaited<ReturnType<typeof toolFixture>>, urls: {
  pgUrl: string;
  duckUrl: string;
  liteUrl: string;
}) {
  const ds = s.runtime.datasources;
  const acme = adminScope(f);
  const admin = f.users.ws_admin.principal;
  await ds.create(admin, acme, {
    name: "wh",
    dialect: "POSTGRES",
    jdbc_url: urls.pgUrl,
    credential: { kind: "none", username: "postgres" },
  });
  await ds.create(admin, acme, { name: "duck", dialect: "DUCKDB", jdbc_url: urls.duckUrl });
  await ds.create(admin, acme, { name: "lite", dialect: "SQLITE", jdbc_url: urls.liteUrl });
  // A global datasource nobody granted to acme, and one bound to the other workspace.
  const root = f.users.super_admin.principal;
  await ds.create(root, null, {
    name: "central",
    dialect: "SQLITE",
    jdbc_url: urls.liteUrl,
    global: true,
  });
  const other: WorkspaceContext = { ...acme, id: f.other.workspace.id, name: "other" };
  await ds.create(f.other.users.ws_admin.principal, other, {
    name: "theirs",
    dialect: "SQLITE",
    jdbc_url: urls.liteUrl,
  });
}

for (const store of STORE_KINDS) {
  Deno.test({
    name: `[${store}] datasource tools over PostgreSQL, DuckDB and SQLite: caps, floors, workspace`,
    ignore: skipUnless("postgres"),
    fn: async () => {
      const urls = await warehouses();
      const s = await startTestServer({
        store,
        env: { SERVICE_MCP_MAX_ROWS: String(MAX_ROWS), SERVICE_MCP_MAX_CHARS: String(MAX_CHARS) },
      });
      try {
        const f = await toolFixture(s);
        await register(s, f, urls);
        const { author, viewer, ws_admin, read, execute, gone, other } = f.keys;
        const keys = { author, viewer, ws_admin, read, execute, gone, other };
        await withClients(s, keys, async (c) => {
          await reads(c);
          await inspection(c);
          await probes(c);
          await connectionTest(c, s);
          await floorsHold(c, [
            ["datasources_list", "read", {}],
            ["datasources_get", "read", { name: "wh" }],
            ["datasources_get_table_stats", "read", { name: "lite", table: "customers" }],
            ["datasources_get_schemas", "inspect", { name: "wh" }],
            ["datasources_get_tables", "inspect", { name: "wh" }],
            ["datasources_get_columns", "inspect", { name: "lite", table: "customers" }],
            ["datasources_preview_rows", "inspect", { name: "lite", table: "customers" }],
            ["sql_probe", "inspect", { datasource: "lite", sql: "SELECT 1 AS one" }],
            ["datasources_test", "datasource_test", { name: "lite" }],
          ]);
          await pinnedWorkspace(c);
        });
      } finally {
        await s.close();
        await urls.drop();
      }
    },
  });
}

type Clients = Parameters<Parameters<typeof withClients>[2]>[0];

async function reads(c: Clients) {
  const all = await c.read.call("datasources_list", {});
  deepEqual(all.items.map((d: { name: string }) => d.name), ["duck", "lite", "wh"]);
  deepEqual(all.pagination, { offset: 0, limit: 50, total: 3, has_more: false });
  // A list entry is what choosing a datasource takes; the URL and pool come with datasources_get.
  deepEqual(Object.keys(all.items[2]).sort(), [
    "definitions",
    "dialect",
    "display_name",
    "facts",
    "global",
    "last_test",
    "name",
    "readonly",
    "workspace",
  ]);
  const page = await c.read.call("datasources_list", { offset: 1, limit: 1 });
  deepEqual([page.items[0].name, page.pagination.has_more], ["lite", true]);
  deepEqual(
    (await c.read.call("datasources_list", { dialect: "DUCKDB" })).items.map((d: {
      name: string;
    }) => d.name),
    ["duck"],
  );
  const wh = await c.read.call("datasources_get", { name: "wh" });
  deepEqual([wh.dialect, wh.workspace, wh.global, wh.last_test], ["POSTGRES", "acme", false, null]);
  deepEqual(wh.credential, { kind: "none", username: "postgres" });
  ok(!JSON.stringify(wh).includes("secret"));
  // A global datasource not granted to acme is not there for it.
  await refuses(c.read, "datasources_get", { name: "central" }, "datasource.not_found");

  const stats = await c.read.call("datasources_get_table_stats", {
    name: "wh",
    table: "orders",
    schema: "sales",
  });
  deepEqual([stats.schema, stats.table, stats.type, stats.row_count], [
    "sales",
    "orders",
    "table",
    300,
  ]);
  deepEqual(stats.columns.map((x: { name: string }) => x.name), ["id", "amount", "note"]);
  ok(stats.size_bytes > 0);
  const lite = await c.read.call("datasources_get_table_stats", {
    name: "lite",
    table: "customers",
  });
  deepEqual([lite.row_count, lite.row_count_exact], [80, true]);
  const duck = await c.read.call("datasources_get_table_stats", { name: "duck", table: "events" });
  equal(duck.row_count, 120);
  await refuses(
    c.read,
    "datasources_get_table_stats",
    { name: "wh", table: "ordres", schema: "sales" },
    "datasource.table_not_found",
  );
}

async function inspection(c: Clients) {
  // author scope with the view role is the floor: a viewer's author-scoped key introspects.
  deepEqual(await c.viewer.call("datasources_get_schemas", { name: "wh" }), {
    schemas: ["public", "sales"],
    truncated: false,
  });
  const tables = await c.viewer.call("datasources_get_tables", { name: "wh", schema: "sales" });
  deepEqual(tables.tables.map((t: { name: string }) => t.name).sort(), ["orders", "wide"]);
  equal(tables.truncated, false);
  deepEqual(
    (await c.viewer.call("datasources_get_tables", { name: "duck" })).tables.map((t: {
      schema: string;
      name: string;
    }) => `${t.schema}.${t.name}`),
    ["main.events"],
  );
  const columns = await c.viewer.call("datasources_get_columns", {
    name: "wh",
    table: "orders",
    schema: "sales",
  });
  deepEqual(columns.columns.map((x: { name: string; type: string }) => [x.name, x.type]), [
    ["id", "integer"],
    ["amount", "decimal"],
    ["note", "string"],
  ]);
  await refuses(
    c.viewer,
    "datasources_get_columns",
    { name: "lite", table: "Customers" },
    "datasource.table_not_found",
  );
}

async function probes(c: Clients) {
  // Previews: the first rows, capped at max-rows; nothing stored, so no cursor.
  const preview = await c.viewer.call("datasources_preview_rows", {
    name: "wh",
    table: "orders",
    schema: "sales",
  });
  deepEqual(preview.columns, [
    { name: "id", type: "integer" },
    { name: "amount", type: "decimal" },
    { name: "note", type: "string" },
  ]);
  deepEqual([preview.row_count, preview.rows.length, preview.truncated, preview.next_cursor], [
    MAX_ROWS,
    MAX_ROWS,
    true,
    null,
  ]);
  ok(typeof preview.elapsed_ms === "number");
  const three = await c.viewer.call("datasources_preview_rows", {
    name: "lite",
    table: "customers",
    limit: 3,
  });
  deepEqual(three.rows, [[1, "customer 1"], [2, "customer 2"], [3, "customer 3"]]);
  equal(three.truncated, true);
  // A limit above the instance's cap is the cap.
  equal(
    (await c.viewer.call("datasources_preview_rows", { name: "duck", table: "events", limit: 999 }))
      .row_count,
    MAX_ROWS,
  );
  // The character cap: 20 rows of 300 characters do not fit 1000.
  const wide = await c.viewer.call("datasources_preview_rows", {
    name: "wh",
    table: "wide",
    schema: "sales",
  });
  ok(wide.row_count >= 1 && wide.row_count < 20, String(wide.row_count));
  ok(JSON.stringify(wide.rows).length <= MAX_CHARS);
  equal(wide.truncated, true);
  await refuses(
    c.viewer,
    "datasources_preview_rows",
    { name: "wh", table: "orders", schema: "nope" },
    "datasource.table_not_found",
  );

  // Probes, on each dialect, with bound parameters.
  const counted = await c.viewer.call("sql_probe", {
    datasource: "wh",
    sql: "SELECT count(*) AS n FROM sales.orders WHERE amount > :min",
    parameters: { min: 300 },
  });
  deepEqual([counted.columns[0].name, counted.rows, counted.truncated], ["n", [["100"]], false]);
  deepEqual(
    (await c.viewer.call("sql_probe", {
      datasource: "lite",
      sql: "SELECT name FROM customers WHERE id = :id",
      parameters: { id: 7 },
    })).rows,
    [["customer 7"]],
  );
  deepEqual(
    (await c.viewer.call("sql_probe", {
      datasource: "duck",
      sql: "SELECT max(id) AS top FROM events",
    })).rows,
    [[119]],
  );
  // A million rows: answered within the caps, truncated, never all read; a cursor pages on by
  // running the same statement again, and refuses to page another one.
  const millionSql = "SELECT g AS n, 'row ' || g AS label FROM generate_series(1, 1000000) g";
  const million = await c.viewer.call("sql_probe", { datasource: "wh", sql: millionSql });
  deepEqual([million.row_count, million.truncated], [MAX_ROWS, true]);
  equal(typeof million.next_cursor, "string");
  deepEqual(million.rows[0], [1, "row 1"]);
  ok(JSON.stringify(million.rows).length <= MAX_CHARS);
  const second = await c.viewer.call("sql_probe", {
    datasource: "wh",
    sql: millionSql,
    cursor: million.next_cursor,
    limit: 5,
  });
  deepEqual(second.rows, [21, 22, 23, 24, 25].map((n) => [n, `row ${n}`]));
  const third = await c.viewer.call("sql_probe", {
    datasource: "wh",
    sql: millionSql,
    cursor: second.next_cursor,
  });
  deepEqual(third.rows.map((r: unknown[]) => r[0]), [26, 27, 28, 29, 30], "the page size is kept");
  await refuses(
    c.viewer,
    "sql_probe",
    { datasource: "wh", sql: "SELECT 1 AS n", cursor: million.next_cursor },
    "pipeline.execution.invalid_parameter_type",
    { field: "cursor" },
  );
  // Read-only, lexically and by the engine; one statement only.
  for (
    const [datasource, sql] of [
      ["wh", "DELETE FROM sales.orders"],
      ["lite", "UPDATE customers SET name = 'x'"],
      ["duck", "SELECT 1; DROP TABLE events"],
    ]
  ) {
    await refuses(c.author, "sql_probe", { datasource, sql }, "datasource.probe.not_read_only");
    // Asking for the plan changes nothing: the statement is vetted as a probe's would be.
    await refuses(
      c.author,
      "sql_probe",
      { datasource, sql, explain: true },
      "datasource.probe.not_read_only",
    );
  }
  // A plan's cursor is not the rows' cursor.
  await refuses(
    c.viewer,
    "sql_probe",
    { datasource: "wh", sql: millionSql, cursor: million.next_cursor, explain: true },
    "pipeline.execution.invalid_parameter_type",
    { field: "cursor" },
  );
  const plan = await c.viewer.call("sql_probe", {
    datasource: "wh",
    sql: millionSql,
    explain: true,
  });
  deepEqual(plan.columns.map((col: { name: string }) => col.name), ["QUERY PLAN"]);
  ok(JSON.stringify(plan.rows).includes("Function Scan"), JSON.stringify(plan.rows));
  equal(
    (await c.viewer.call("sql_probe", {
      datasource: "lite",
      sql: "SELECT count(*) FROM customers",
    }))
      .rows[0][0],
    80,
  );
  await refuses(
    c.viewer,
    "sql_probe",
    { datasource: "wh", sql: "SELECT * FROM sales.missing" },
    "datasource.probe.statement_failed",
  );
  // Cancelled on the server once its time is up.
  await refuses(
    c.viewer,
    "sql_probe",
    { datasource: "wh", sql: "SELECT pg_sleep(30)", timeout_ms: 200 },
    "datasource.probe.timeout",
    { timeout_ms: 200 },
  );
}

async function connectionTest(c: Clients, s: TestServer) {
  const test = await c.ws_admin.call("datasources_test", { name: "wh" });
  deepEqual([test.connected, test.error], [true, null]);
  ok(typeof test.server_version === "string");
  const after = await c.read.call("datasources_get", { name: "wh" });
  deepEqual(after.last_test, { tested_at: test.tested_at, ok: true, message: null });
  // The write audit row names the tool; reads and probes are not writes.
  const writes = await s.runtime.db.query(
    "SELECT details FROM audit_log WHERE event = $1",
    ["mcp.tool.write"],
  );
  const tools = writes.map((r) =>
    (typeof r.details === "string" ? JSON.parse(r.details) : r.details).tool
  );
  deepEqual(tools, ["datasources_test"]);
}

async function pinnedWorkspace(c: Clients) {
  deepEqual(
    (await c.other.call("datasources_list", {})).items.map((d: { name: string }) => d.name),
    ["theirs"],
  );
  for (
    const [tool, args] of [
      ["datasources_get", { name: "wh" }],
      ["datasources_get_table_stats", { name: "lite", table: "customers" }],
      ["datasources_get_schemas", { name: "wh" }],
      ["datasources_get_tables", { name: "duck" }],
      ["datasources_get_columns", { name: "lite", table: "customers" }],
      ["datasources_preview_rows", { name: "lite", table: "customers" }],
      ["sql_probe", { datasource: "wh", sql: "SELECT 1" }],
    ] as const
  ) {
    await refuses(c.other, tool, args, "datasource.not_found");
  }
  // And acme never reaches the other workspace's.
  await refuses(
    c.author,
    "sql_probe",
    { datasource: "theirs", sql: "SELECT 1" },
    "datasource.not_found",
  );
  await refuses(c.ws_admin, "datasources_test", { name: "theirs" }, "datasource.not_found");
}
