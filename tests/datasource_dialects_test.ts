/**
 * Registering, testing and browsing real SQLite files and a real MariaDB over HTTP (spec 3 §4.1):
 * the 2000 cap with `truncated`, exact case-sensitive names, the current-schema default, and a
 * MySQL URL without a database reporting no current schema.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { DuckDBInstance } from "@duckdb/node-api";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { call, type TestServer, withTestServer } from "./support/harness.ts";
import { skipUnless } from "./support/services.ts";

async function withAdmin(fn: (s: TestServer, h: Record<string, string>) => Promise<void>) {
  await withTestServer({}, async (s) => {
    const f = await seedRoles(s.runtime);
    await fn(s, await sessionHeaders(s.runtime, f.users.ws_admin, "acme"));
  });
}

Deno.test("SQLite file: test, schemas, tables capped at 2000, columns with the main default", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/shop.db`;
    const db = new DatabaseSync(path);
    db.exec(
      `CREATE TABLE "Orders" (id INTEGER PRIMARY KEY, amount NUMERIC(10,2) NOT NULL, note TEXT);
             CREATE VIEW big AS SELECT * FROM "Orders" WHERE amount > 100;`,
    );
    db.close();
    const wide = `${dir}/wide.db`;
    const w = new DatabaseSync(wide);
    w.exec("BEGIN");
    for (let i = 0; i < 2001; i++) {
      w.exec(`CREATE TABLE t${String(i).padStart(4, "0")} (x INTEGER)`);
    }
    w.exec("COMMIT");
    w.close();

    await withAdmin(async (s, h) => {
      for (const [name, file] of [["shop", path], ["wide", wide]]) {
        const r = await call(s, "POST", "/api/v1/datasources", h, {
          name,
          dialect: "SQLITE",
          jdbc_url: `jdbc:sqlite:${file}`,
        });
        equal(r.status, 201, JSON.stringify(r.body));
        equal(r.body.data.pool.maximumPoolSize.source, "dialect_default");
      }
      const test = await call(s, "POST", "/api/v1/datasources/shop/test", h);
      deepEqual([test.status, test.body.data.connected], [200, true]);
      ok(test.body.data.server_version);
      const schemas = (await call(s, "GET", "/api/v1/datasources/shop/schemas", h)).body.data;
      deepEqual(schemas, { schemas: ["main"], truncated: false });
      const tables = (await call(s, "GET", "/api/v1/datasources/shop/tables", h)).body.data;
      deepEqual(
        tables.tables.map((t: { name: string; type: string }) => `${t.name}:${t.type}`).sort(),
        ["Orders:table", "big:view"],
      );
      const cols = await call(s, "GET", "/api/v1/datasources/shop/tables/Orders/columns", h);
      equal(cols.status, 200);
      deepEqual(cols.body.data.map((c: { name: string }) => c.name), ["id", "amount", "note"]);
      ok(cols.body.data.every((c: Record<string, unknown>) => typeof c.source_type === "string"));
      const miss = await call(s, "GET", "/api/v1/datasources/shop/tables/orders/columns", h);
      deepEqual([miss.status, miss.body.error.code, miss.body.error.details.hint], [
        404,
        "datasource.table_not_found",
        "Orders",
      ]);
      deepEqual(
        (await call(s, "GET", "/api/v1/datasources/shop/tables?schema=nope", h)).body.data.tables,
        [],
      );

      const many = (await call(s, "GET", "/api/v1/datasources/wide/tables?schema=main", h)).body
        .data;
      deepEqual([many.tables.length, many.truncated], [2000, true]);
      const all = (await call(s, "GET", "/api/v1/datasources/wide/tables", h)).body.data;
      deepEqual([all.tables.length, all.truncated], [2000, true]);
      const last = await call(s, "GET", "/api/v1/datasources/wide/tables/t2000/columns", h);
      equal(last.status, 200, "a table past the listing cap still resolves");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SQLite: a missing file tests as not connected, introspects as 502", () =>
  withAdmin(async (s, h) => {
    await call(s, "POST", "/api/v1/datasources", h, {
      name: "gone",
      dialect: "SQLITE",
      jdbc_url: "jdbc:sqlite:/nonexistent-dir/none.db",
    });
    const test = await call(s, "POST", "/api/v1/datasources/gone/test", h);
    deepEqual([test.status, test.body.data.connected], [200, false]);
    ok(test.body.data.error_class);
    const r = await call(s, "GET", "/api/v1/datasources/gone/schemas", h);
    deepEqual([r.status, r.body.error.code], [502, "pipeline.execution.datasource_unreachable"]);
  }));

Deno.test({
  name: "MariaDB: test and browse a real server; a URL without a database has no current schema",
  ignore: skipUnless("mariadb"),
  async fn() {
    // Imported here, after the reachability probes, so loading the driver cannot delay them.
    const { MARIADB_URL } = await import("./support/services.ts");
    const mysql = (await import("mysql2/promise")).default;
    const url = new URL(MARIADB_URL);
    const name = `svc_reg_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const admin = await mysql.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username || "root"),
      password: decodeURIComponent(url.password),
      multipleStatements: true,
    });
    try {
      await admin.query(
        `CREATE DATABASE ${name}; CREATE TABLE ${name}.Items (id INT PRIMARY KEY, price DECIMAL(8,2));`,
      );
      const host = `${url.hostname}:${url.port || 3306}`;
      const credential = url.password
        ? { kind: "password", username: url.username, secret: decodeURIComponent(url.password) }
        : { kind: "none", username: decodeURIComponent(url.username || "root") };
      await withAdmin(async (s, h) => {
        for (
          const [n, jdbc] of [["maria", `jdbc:mariadb://${host}/${name}`], [
            "nodb",
            `jdbc:mysql://${host}`,
          ]]
        ) {
          const r = await call(s, "POST", "/api/v1/datasources", h, {
            name: n,
            dialect: "MYSQL",
            jdbc_url: jdbc,
            credential,
          });
          equal(r.status, 201, JSON.stringify(r.body));
        }
        const test = await call(s, "POST", "/api/v1/datasources/maria/test", h);
        deepEqual([test.status, test.body.data.connected], [200, true]);
        const schemas = (await call(s, "GET", "/api/v1/datasources/maria/schemas", h)).body.data;
        ok(schemas.schemas.includes(name));
        ok(!schemas.schemas.includes("information_schema"));
        const cols = await call(s, "GET", "/api/v1/datasources/maria/tables/Items/columns", h);
        deepEqual(cols.body.data.map((c: { type: string }) => c.type), ["integer", "decimal"]);
        const none = await call(s, "GET", "/api/v1/datasources/nodb/tables/Items/columns", h);
        deepEqual([none.status, none.body.error.code], [
          400,
          "pipeline.execution.parameter_required",
        ]);
        const named = await call(
          s,
          "GET",
          `/api/v1/datasources/nodb/tables/Items/columns?schema=${name}`,
          h,
        );
        equal(named.status, 200);
      });
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    }
  },
});

Deno.test("DuckDB file: test, schemas, tables and columns of a real database", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/analytics.duckdb`;
    const setup = await DuckDBInstance.create(path);
    const conn = await setup.connect();
    await conn.run(`CREATE SCHEMA sales;
      CREATE TABLE sales.orders (id INTEGER NOT NULL, amount DECIMAL(10,2), placed TIMESTAMP);
      CREATE TABLE main.flags (on_off BOOLEAN)`);
    conn.closeSync();
    setup.closeSync();
    await withAdmin(async (s, h) => {
      const made = await call(s, "POST", "/api/v1/datasources", h, {
        name: "duck",
        dialect: "DUCKDB",
        jdbc_url: `jdbc:duckdb:${path}`,
      });
      equal(made.status, 201, JSON.stringify(made.body));
      const test = await call(s, "POST", "/api/v1/datasources/duck/test", h);
      deepEqual([test.status, test.body.data.connected], [200, true]);
      const schemas = (await call(s, "GET", "/api/v1/datasources/duck/schemas", h)).body.data;
      ok(schemas.schemas.includes("sales") && schemas.schemas.includes("main"));
      ok(!schemas.schemas.includes("information_schema"));
      const sales = (await call(s, "GET", "/api/v1/datasources/duck/tables?schema=sales", h)).body
        .data;
      deepEqual(sales.tables.map((t: { name: string }) => t.name), ["orders"]);
      const cols = await call(
        s,
        "GET",
        "/api/v1/datasources/duck/tables/orders/columns?schema=sales",
        h,
      );
      deepEqual(cols.body.data.map((c: { type: string }) => c.type), [
        "integer",
        "decimal",
        "timestamp",
      ]);
      const current = await call(s, "GET", "/api/v1/datasources/duck/tables/flags/columns", h);
      deepEqual(current.body.data.map((c: { name: string }) => c.name), ["on_off"]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LAKE registers and is served from its lake-table registry: test, schemas, tables", () =>
  withAdmin(async (s, h) => {
    const root = await Deno.makeTempDir({ prefix: "svc_lake_" });
    try {
      const made = await call(s, "POST", "/api/v1/datasources", h, {
        name: "lake",
        dialect: "LAKE",
        jdbc_url: `jdbc:lake:file://${root}`,
      });
      deepEqual([made.status, made.body.data?.credential], [201, { kind: "none" }]);
      const test = await call(s, "POST", "/api/v1/datasources/lake/test", h);
      deepEqual([test.status, test.body.data.connected], [200, true]);
      const schemas = await call(s, "GET", "/api/v1/datasources/lake/schemas", h);
      deepEqual([schemas.status, schemas.body.data.schemas], [200, []]);
      const tables = await call(s, "GET", "/api/v1/datasources/lake/tables", h);
      deepEqual([tables.status, tables.body.data.tables], [200, []]);

      // A root that has gone away tests as not connected, never as a 500.
      await Deno.remove(root, { recursive: true });
      await call(s, "PUT", "/api/v1/datasources/lake", h, {
        name: "lake",
        dialect: "LAKE",
        jdbc_url: `jdbc:lake:file://${root}`,
      });
      const gone = await call(s, "POST", "/api/v1/datasources/lake/test", h);
      deepEqual([gone.status, gone.body.data.connected], [200, false]);
    } finally {
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  }));
