/**
 * Execute over registered datasources, end to end through HTTP: a SQLite datasource bound to the
 * workspace and a global DuckDB datasource granted to it, both read into the run's staging
 * database and joined there. A datasource of another workspace is not reachable from a run.
 */
import { deepEqual, equal } from "node:assert/strict";
import { checkEventOrder } from "../src/executions/event_order.ts";
import { sessionHeaders } from "./support/access_fixtures.ts";
import { call } from "./support/harness.ts";
import { forEachServer } from "./support/servers.ts";
import { makeDuckdbFile, makeSqliteFile } from "../src/datasources/connectors/test_fixtures.ts";
import { frames } from "./support/executions_fixtures.ts";
import { dql, pipelineDrafts, staged } from "./support/pipeline_body.ts";
import { executeOverHttp, readyOverHttp } from "./support/runs.ts";

forEachServer(
  "execute joins a bound SQLite and a granted global DuckDB datasource in staging",
  async (s, f, dir) => {
    makeSqliteFile(
      `${dir}/shop.db`,
      `CREATE TABLE orders (id INTEGER, customer_id INTEGER, amount NUMERIC(10,2));
      INSERT INTO orders VALUES (1, 10, 9.5), (2, 11, 20), (3, 10, 1.25);`,
    );
    await makeDuckdbFile(
      `${dir}/crm.duckdb`,
      `CREATE TABLE customers (id INTEGER, name VARCHAR);
      INSERT INTO customers VALUES (10, 'Ada'), (11, 'Grace');`,
    );

    await s.runtime.workspaces.create(f.users.super_admin.principal, { name: "other" });
    const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
    const other = await sessionHeaders(s.runtime, f.users.super_admin, "other");
    const register = async (h: Record<string, string>, body: Record<string, unknown>) =>
      equal((await call(s, "POST", "/api/v1/datasources", h, body)).status, 201);
    await register(admin, {
      name: "shop",
      dialect: "SQLITE",
      jdbc_url: `jdbc:sqlite:${dir}/shop.db`,
    });
    await register(admin, {
      name: "crm",
      dialect: "DUCKDB",
      jdbc_url: `jdbc:duckdb:${dir}/crm.duckdb`,
      global: true,
    });
    equal((await call(s, "POST", "/api/v1/datasources/crm/grants/acme", admin)).status, 200);
    await register(other, {
      name: "theirs",
      dialect: "SQLITE",
      jdbc_url: `jdbc:sqlite:${dir}/shop.db`,
    });

    const create = pipelineDrafts(s.runtime.db, f.users.author, f.workspace.id);
    const joined = await create("sales/by_customer", [
      staged("orders", "shop", "SELECT customer_id, amount FROM orders"),
      staged("customers", "crm", "SELECT id, name FROM customers"),
      dql("report", {
        source: "tempdb",
        depends_on: ["orders", "customers"],
        sql:
          "SELECT c.name, sum(o.amount)::DOUBLE AS total FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.name ORDER BY c.name",
      }),
    ]);
    const foreign = await create("sales/theirs", [
      dql("peek", { source: "theirs", sql: "SELECT 1" }),
    ]);

    const h = await sessionHeaders(s.runtime, f.users.author, "acme");
    const execute = (id: string) => executeOverHttp(s, h, id);

    const { ready } = await readyOverHttp(s, h, joined);
    deepEqual(ready.rows, [["Ada", 10.75], ["Grace", 20]]);

    const refused = await execute(foreign);
    const failed = checkEventOrder(await frames(refused).rest(), { expectDataReady: false });
    equal(failed.get("pipeline_failed")![0].data.error.code, "datasource.not_found");
  },
);
