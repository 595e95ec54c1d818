/**
 * An agent's first session, scripted (issue 26's walk): with the 2026-07-28 client and only what
 * the tools and their guide say, it reads the guide, lists the datasources, reads a table's
 * columns with their keys and indexes, asks sql_probe for a statement's plan (`explain`), tries
 * the statement, saves a draft joining two datasources, runs the draft
 * and reads every page of its 10,000-row result with `page_rows`. `call` throws on any refusal, so
 * the walk also shows that no call fails on an argument's name. Both stores.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { adminScope } from "./support/access_fixtures.ts";
import { type Json, withAuthorClient } from "./support/mcp_client.ts";
import { forEachStoreKind } from "./support/stores.ts";

/** A SQLite file with `rows` rows of table `table` (id 1…rows, name). */
function sqliteWith(path: string, table: string, rows: number): void {
  const db = new DatabaseSync(path);
  db.exec(
    `CREATE TABLE ${table} (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
     WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows})
     INSERT INTO ${table} SELECT i, '${table} ' || i FROM n;`,
  );
  db.close();
}

forEachStoreKind(
  "an agent's first walk: guide, datasources, probe, a two-source draft, 10,000 rows",
  async (store) => {
    const root = await Deno.makeTempDir({ prefix: "svc_walk_" });
    try {
      await withAuthorClient({ store }, "2026-07-28", async (c, s, f) => {
        sqliteWith(`${root}/crm.db`, "customers", 100);
        sqliteWith(`${root}/catalog.db`, "products", 100);
        const crm = new DatabaseSync(`${root}/crm.db`);
        crm.exec(`CREATE TABLE orders (id INTEGER PRIMARY KEY,
                    customer_id INTEGER NOT NULL REFERENCES customers (id), total REAL);
                  CREATE INDEX orders_by_customer ON orders (customer_id);`);
        crm.close();
        for (const [name, file] of [["crm", "crm.db"], ["catalog", "catalog.db"]]) {
          await s.runtime.datasources.create(f.users.ws_admin.principal, adminScope(f), {
            name,
            dialect: "SQLITE",
            jdbc_url: `jdbc:sqlite:${root}/${file}`,
          });
        }

        // The instructions say where to start.
        ok(c.client.getInstructions()?.includes('docs_get {"id": "skill"}'));
        const guide = await c.call("docs_get", { id: "skill" });
        ok(guide.markdown.includes("## First calls"));

        const sources = await c.call("datasources_list");
        deepEqual(sources.items.map((d: Json) => d.name).sort(), ["catalog", "crm"]);
        const tables = await c.call("datasources_get_tables", { name: "crm" });
        ok(JSON.stringify(tables).includes("customers"));
        const columns = await c.call("datasources_get_columns", {
          name: "crm",
          table: "customers",
        });
        deepEqual(columns.columns.map((col: Json) => col.name), ["id", "name"]);
        // Keys and indexes tell it how the tables join.
        const orders = await c.call("datasources_get_columns", { name: "crm", table: "orders" });
        deepEqual(
          orders.columns.map((
            col: Json,
          ) => [col.name, col.primary_key, col.references, col.indexes]),
          [
            ["id", 1, [], []],
            ["customer_id", undefined, [{ schema: "main", table: "customers", column: "id" }], [{
              name: "orders_by_customer",
              unique: false,
              position: 1,
            }]],
            ["total", undefined, [], []],
          ],
        );
        // The plan first: the statement is planned, not run.
        const plan = await c.call("sql_probe", {
          datasource: "catalog",
          sql: "SELECT id, name FROM products WHERE id <= :top ORDER BY id",
          parameters: { top: 3 },
          explain: true,
        });
        ok(plan.columns.some((col: Json) => col.name === "detail"), JSON.stringify(plan.columns));
        ok(JSON.stringify(plan.rows).includes("products"), JSON.stringify(plan.rows));
        const probe = await c.call("sql_probe", {
          datasource: "catalog",
          sql: "SELECT id, name FROM products WHERE id <= :top ORDER BY id",
          parameters: { top: 3 },
        });
        deepEqual(probe.rows, [[1, "products 1"], [2, "products 2"], [3, "products 3"]]);

        // A draft joining the two datasources in the run's staging database.
        const authoring = await c.call("docs_get", { id: "agent-authoring" });
        ok(authoring.markdown.includes('"target": "tempdb"'));
        const draft = await c.call("pipelines_create", {
          name: "walk/pairs",
          description: "every customer with every product",
          nodes: [
            {
              id: "customers",
              type: "DQL",
              source: "crm",
              sql: "SELECT id, name FROM customers",
              output: { target: "tempdb", table: "customers" },
            },
            {
              id: "products",
              type: "DQL",
              source: "catalog",
              sql: "SELECT id, name FROM products",
              output: { target: "tempdb", table: "products" },
            },
            {
              id: "pairs",
              type: "DQL",
              source: "tempdb",
              depends_on: ["customers", "products"],
              sql: "SELECT c.id AS customer, p.id AS product FROM customers c, products p " +
                "ORDER BY c.id, p.id",
            },
          ],
        });
        equal(draft.status, "DRAFT");

        // Running without a version runs the draft; every page is read by its cursor.
        const run = await c.call("pipelines_execute", { id: draft.id, page_rows: 150 });
        deepEqual([run.execution.status, run.execution.draft_run], ["SUCCESS", true]);
        equal(run.execution.result_row_count, 10_000);
        // Staged integers are 64-bit in the staging engine, so they travel as strings.
        const rows: string[][] = [...run.result.rows];
        let cursor = run.result.next_cursor;
        let pages = 1;
        while (cursor) {
          const page = await c.call("executions_get_result", { cursor });
          equal(page.row_count, Math.min(150, 10_000 - rows.length));
          rows.push(...page.rows);
          cursor = page.next_cursor;
          pages++;
        }
        equal(pages, Math.ceil(10_000 / 150));
        equal(rows.length, 10_000);
        deepEqual([rows[0], rows[9_999]], [["1", "1"], ["100", "100"]]);
        const bad = rows.findIndex((r, i) =>
          r[0] !== String(Math.floor(i / 100) + 1) || r[1] !== String((i % 100) + 1)
        );
        equal(bad, -1, `row ${bad}: ${JSON.stringify(rows.slice(Math.max(0, bad - 2), bad + 2))}`);
      });
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  },
);
