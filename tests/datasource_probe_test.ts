/**
 * `sql_probe` and row previews as the tool endpoint will call them: `DatasourceConnections.probe`
 * and `.previewRows` on registered datasources (PostgreSQL, MariaDB), with the caller's
 * visibility, identifiers matched against introspection before they are quoted, caps and codes.
 * The documents give these no REST route (spec 1 §4.7 lists them as tools only), so this is a
 * service-level test.
 */
import postgres from "postgres";
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { AppError } from "../src/errors/mod.ts";
import type { Principal, WorkspaceContext } from "../src/identity/types.ts";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { freshMariaDatabase, mariaAdmin, pgJdbcUrl } from "./support/datasources.ts";
import { call, type TestServer, withTestServer } from "./support/harness.ts";
import { skipUnless } from "./support/services.ts";
import { freshPostgresDatabase } from "./support/stores.ts";

function viewerScope(id: string, name: string): WorkspaceContext {
  return { id, name, flags: { author: false, promoter: false, admin: false }, implicit: false };
}

async function code(
  p: Promise<unknown>,
): Promise<{ code: string; details: Record<string, unknown> }> {
  let out: { code: string; details: Record<string, unknown> } | undefined;
  await rejects(p, (e) => {
    ok(e instanceof AppError, String(e));
    out = { code: e.code, details: e.details };
    return true;
  });
  return out!;
}

async function withServer(
  fn: (s: TestServer, who: { viewer: Principal; scope: WorkspaceContext }) => Promise<void>,
  register: (s: TestServer, h: Record<string, string>) => Promise<void>,
) {
  await withTestServer({}, async (s) => {
    const f = await seedRoles(s.runtime);
    await register(s, await sessionHeaders(s.runtime, f.users.ws_admin, "acme"));
    await fn(s, {
      viewer: f.users.viewer.principal,
      scope: viewerScope(f.workspace.id, "acme"),
    });
  });
}

Deno.test({
  name: "PostgreSQL: probe and preview through the registry, visibility, caps and identifiers",
  ignore: skipUnless("postgres"),
  async fn() {
    const pg = await freshPostgresDatabase();
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      await sql.unsafe(`
        CREATE SCHEMA sales;
        CREATE TABLE sales.orders (id integer PRIMARY KEY, amount numeric(10,2), big bigint);
        INSERT INTO sales.orders VALUES (1, 12.50, 9007199254740993), (2, 3.00, 1), (3, 7.25, 2);
        CREATE TABLE sales."Mixed Case" (id integer);
        INSERT INTO sales."Mixed Case" VALUES (42);
        CREATE TABLE public.t_public (flag boolean);
        INSERT INTO public.t_public VALUES (true);
      `);
      await withServer(async (s, { viewer, scope }) => {
        const c = s.runtime.connections;
        const probed = await c.probe(viewer, scope, "wh", {
          sql: "SELECT id, amount, big FROM sales.orders WHERE id <= :max ORDER BY id",
          params: { max: 2 },
        });
        deepEqual(probed.rows, [[1, "12.50", "9007199254740993"], [2, "3.00", "1"]]);
        deepEqual(probed.columns.map((col) => col.type), ["integer", "decimal", "bigint"]);
        equal(probed.truncated, false);

        const refused = await code(
          c.probe(viewer, scope, "wh", {
            sql: "WITH x AS (DELETE FROM sales.orders RETURNING *) SELECT * FROM x",
          }),
        );
        deepEqual(refused, {
          code: "datasource.probe.not_read_only",
          details: { reason: "write_keyword", keyword: "DELETE" },
        });
        const failed = await code(
          c.probe(viewer, scope, "wh", { sql: "SELECT nope FROM sales.orders" }),
        );
        equal(failed.code, "datasource.probe.statement_failed");
        equal(failed.details.dialect, "POSTGRES");
        // Asking for more than the bounds is clamped, not refused.
        const clamped = await c.probe(viewer, scope, "wh", { sql: "SELECT 1" }, {
          maxRows: 1_000_000,
          timeoutMs: 10_000_000,
        });
        equal(clamped.max_rows, 1000);

        const preview = await c.previewRows(viewer, scope, "wh", {
          schema: "sales",
          table: "orders",
        }, { maxRows: 2 });
        equal(preview.row_count, 2);
        equal(preview.truncated, true);
        deepEqual(preview.columns.map((col) => col.name), ["id", "amount", "big"]);
        deepEqual(
          (await c.previewRows(viewer, scope, "wh", { schema: "sales", table: "Mixed Case" })).rows,
          [[42]],
        );
        deepEqual(
          (await c.previewRows(viewer, scope, "wh", { table: "t_public" })).rows,
          [[true]],
          "without a schema the connection's current one applies",
        );
        for (
          const target of [
            { schema: "sales", table: 'orders"; DELETE FROM sales.orders; --' },
            { schema: "sales", table: "ORDERS" },
            { schema: "nope", table: "orders" },
            { schema: "pg_catalog", table: "pg_authid" },
          ]
        ) {
          equal(
            (await code(c.previewRows(viewer, scope, "wh", target))).code,
            "datasource.table_not_found",
            JSON.stringify(target),
          );
        }
        const [{ n }] = await sql.unsafe("SELECT count(*)::int AS n FROM sales.orders");
        equal(n, 3, "nothing was deleted");

        // Another workspace cannot see the datasource at all.
        const other = await seedRoles(s.runtime, "other");
        const elsewhere = viewerScope(other.workspace.id, "other");
        equal(
          (await code(c.probe(other.users.viewer.principal, elsewhere, "wh", { sql: "SELECT 1" })))
            .code,
          "datasource.not_found",
        );
        equal(
          (await code(
            c.previewRows(other.users.viewer.principal, elsewhere, "wh", { table: "t_public" }),
          )).code,
          "datasource.not_found",
        );
      }, async (s, h) => {
        const made = await call(s, "POST", "/api/v1/datasources", h, {
          name: "wh",
          dialect: "POSTGRES",
          jdbc_url: pgJdbcUrl(pg.url),
          credential: { kind: "none", username: "postgres" },
        });
        equal(made.status, 201, JSON.stringify(made.body));
      });
    } finally {
      await sql.end();
      await pg.drop();
    }
  },
});

Deno.test({
  name: "MariaDB: previews quote with backticks; the time cap answers datasource.probe.timeout",
  ignore: skipUnless("mariadb"),
  async fn() {
    const db = await freshMariaDatabase();
    const admin = await mariaAdmin(db.name);
    try {
      await admin.query(
        "CREATE TABLE `odd ``name` (id int); INSERT INTO `odd ``name` VALUES (1), (2);",
      );
      await withServer(async (s, { viewer, scope }) => {
        const c = s.runtime.connections;
        const preview = await c.previewRows(viewer, scope, "mdb", { table: "odd `name" });
        deepEqual(preview.rows, [[1], [2]]);
        const timeout = await code(
          c.probe(viewer, scope, "mdb", { sql: "SELECT SLEEP(30)" }, { timeoutMs: 200 }),
        );
        deepEqual(timeout, { code: "datasource.probe.timeout", details: { timeout_ms: 200 } });
        deepEqual((await c.probe(viewer, scope, "mdb", { sql: "SELECT 1 AS one" })).rows, [[1]]);
      }, async (s, h) => {
        const made = await call(s, "POST", "/api/v1/datasources", h, {
          name: "mdb",
          dialect: "MYSQL",
          jdbc_url: db.url,
          credential: { kind: "none", username: "root" },
        });
        equal(made.status, 201, JSON.stringify(made.body));
      });
    } finally {
      await admin.end();
      await db.drop();
    }
  },
});
