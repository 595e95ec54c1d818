/**
 * `/test` and introspection over HTTP against real databases (spec 3 §4.1): a fresh PostgreSQL
 * database with schemas, mixed-case and column-less tables; an unreachable datasource; pool
 * retirement on update; decryption audited; the canary secret never in a body or a log line.
 */
import postgres from "postgres";
import { deepEqual, equal, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { call, startTestServer, type TestServer } from "./support/harness.ts";
import { skipUnless } from "./support/services.ts";
import { freshPostgresDatabase } from "./support/stores.ts";

const CANARY = "canary-intro-9Lp!secret";

/** `postgres://…/db` as the jdbc_url form. */
function pgJdbcUrl(url: string): string {
  const u = new URL(url);
  return `jdbc:postgresql://${u.hostname}:${u.port || 5432}${u.pathname}`;
}

/** A loopback port with nothing listening. */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function withWarehouse(
  fn: (s: TestServer, h: Record<string, string>, url: string) => Promise<void>,
) {
  const pg = await freshPostgresDatabase();
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  const s = await startTestServer();
  try {
    await sql.unsafe(`
      CREATE SCHEMA sales;
      CREATE TABLE sales.orders (id integer PRIMARY KEY, amount numeric(10,2), note text);
      COMMENT ON TABLE sales.orders IS 'one row per order';
      CREATE TABLE sales."Customers" (id bigint NOT NULL);
      CREATE TABLE sales.empty_t ();
      CREATE VIEW sales.big_orders AS SELECT * FROM sales.orders WHERE amount > 100;
      CREATE TABLE public.t_public (flag boolean);
    `);
    const f = await seedRoles(s.runtime);
    await fn(s, await sessionHeaders(s.runtime, f.users.ws_admin, "acme"), pgJdbcUrl(pg.url));
    for (const line of s.logs) ok(!line.includes(CANARY), line.slice(0, 200));
  } finally {
    await s.close();
    await sql.end();
    await pg.drop();
  }
}

const register = (s: TestServer, h: Record<string, string>, body: Record<string, unknown>) =>
  call(s, "POST", "/api/v1/datasources", h, { dialect: "POSTGRES", ...body });

/** Registers the warehouse at `url` as datasource `name`, read as `postgres` without a password. */
const registerWarehouse = (
  s: TestServer,
  h: Record<string, string>,
  url: string,
  name: string,
  more: Record<string, unknown> = {},
) =>
  register(s, h, {
    name,
    jdbc_url: url,
    credential: { kind: "none", username: "postgres" },
    ...more,
  });

/** A PostgreSQL test on a server and a warehouse database of its own (see `withWarehouse`). */
function warehouseTest(
  name: string,
  fn: (s: TestServer, h: Record<string, string>, url: string) => Promise<void>,
): void {
  Deno.test({ name, ignore: skipUnless("postgres"), fn: () => withWarehouse(fn) });
}

warehouseTest(
  "PostgreSQL: test, schemas, tables and columns follow every rule of §4.1",
  async (s, h, url) => {
    const made = await registerWarehouse(s, h, url, "wh");
    equal(made.status, 201, JSON.stringify(made.body));
    const test = await call(s, "POST", "/api/v1/datasources/wh/test", h);
    equal(test.status, 200);
    deepEqual(Object.keys(test.body.data).sort(), [
      "connected",
      "error",
      "error_class",
      "latency_ms",
      "server_version",
      "tested_at",
    ]);
    deepEqual([test.body.data.connected, test.body.data.error], [true, null]);
    ok(typeof test.body.data.server_version === "string");
    const after = (await call(s, "GET", "/api/v1/datasources/wh", h)).body.data;
    deepEqual(after.last_test, { tested_at: test.body.data.tested_at, ok: true, message: null });
    equal(after.updated_at, made.body.data.updated_at);

    const schemas = (await call(s, "GET", "/api/v1/datasources/wh/schemas", h)).body.data;
    deepEqual(schemas, { schemas: ["public", "sales"], truncated: false });

    const sales = (await call(s, "GET", "/api/v1/datasources/wh/tables?schema=sales", h)).body
      .data;
    equal(sales.truncated, false);
    deepEqual(
      sales.tables.map((t: { name: string; type: string }) => `${t.name}:${t.type}`).sort(),
      ["Customers:table", "big_orders:view", "empty_t:table", "orders:table"],
    );
    const orders = sales.tables.find((t: { name: string }) => t.name === "orders");
    deepEqual(orders, {
      schema: "sales",
      name: "orders",
      type: "table",
      remarks: "one row per order",
    });
    ok(!("remarks" in sales.tables.find((t: { name: string }) => t.name === "empty_t")));
    const every = (await call(s, "GET", "/api/v1/datasources/wh/tables?schema=", h)).body.data;
    equal(every.tables.length, 5);
    deepEqual(
      (await call(s, "GET", "/api/v1/datasources/wh/tables?schema=nope", h)).body.data,
      { tables: [], truncated: false },
    );
    deepEqual(
      (await call(s, "GET", "/api/v1/datasources/wh/tables?schema=SALES", h)).body.data.tables,
      [],
      "schema filters are exact identifiers",
    );

    const cols = await call(
      s,
      "GET",
      "/api/v1/datasources/wh/tables/orders/columns?schema=sales",
      h,
    );
    equal(cols.status, 200);
    deepEqual(cols.body.data.map((c: { name: string }) => c.name), ["id", "amount", "note"]);
    const amount = cols.body.data[1];
    deepEqual([amount.type, amount.precision, amount.scale], ["decimal", 10, 2]);
    ok(
      cols.body.data.every((c: Record<string, unknown>) =>
        Object.values(c).every((v) => v !== null)
      ),
      "omitted metadata is omitted, not null",
    );
    ok(!("remarks" in cols.body.data[0]) && !("precision" in cols.body.data[0]));
    const upper = await call(
      s,
      "GET",
      "/api/v1/datasources/wh/tables/Customers/columns?schema=sales",
      h,
    );
    deepEqual(upper.body.data.map((c: { type: string }) => c.type), ["bigint"]);
    const wrongCase = await call(
      s,
      "GET",
      "/api/v1/datasources/wh/tables/customers/columns?schema=sales",
      h,
    );
    deepEqual([wrongCase.status, wrongCase.body.error.code], [404, "datasource.table_not_found"]);
    equal(wrongCase.body.error.details.hint, "Customers");
    const far = await call(
      s,
      "GET",
      "/api/v1/datasources/wh/tables/zzzzzzzzzz/columns?schema=sales",
      h,
    );
    deepEqual([far.status, far.body.error.details.hint], [404, undefined]);
    deepEqual(
      (await call(s, "GET", "/api/v1/datasources/wh/tables/empty_t/columns?schema=sales", h))
        .body.data,
      [],
    );
    const current = await call(
      s,
      "GET",
      "/api/v1/datasources/wh/tables/t_public/columns?schema=",
      h,
    );
    deepEqual(current.body.data.map((c: { type: string }) => c.type), ["boolean"]);

    // include-schemas exempt a system schema; the update retires the pool at once.
    ok(s.runtime.pools.has("wh"));
    const put = await call(s, "PUT", "/api/v1/datasources/wh", h, {
      dialect: "POSTGRES",
      jdbc_url: url,
      credential: { kind: "none", username: "postgres" },
      introspection_include_schemas: ["Information_Schema"],
    });
    equal(put.status, 200);
    equal(s.runtime.pools.has("wh"), false);
    const withSystem = (await call(s, "GET", "/api/v1/datasources/wh/schemas", h)).body.data;
    deepEqual(withSystem.schemas, ["information_schema", "public", "sales"]);
  },
);

warehouseTest(
  "no current schema is parameter_required; unreachable is 502; /test stays 200",
  async (s, h, url) => {
    await registerWarehouse(s, h, url, "noschema", {
      properties: { jdbc: { currentSchema: "missing_schema" } },
    });
    const none = await call(s, "GET", "/api/v1/datasources/noschema/tables/t/columns", h);
    deepEqual([none.status, none.body.error.code], [
      400,
      "pipeline.execution.parameter_required",
    ]);
    const all = await call(s, "GET", "/api/v1/datasources/noschema/tables", h);
    equal(all.status, 200, "the unfiltered listing is unaffected");

    const port = closedPort();
    await register(s, h, {
      name: "down",
      jdbc_url: `jdbc:postgresql://127.0.0.1:${port}/x`,
      credential: { kind: "password", username: "u", secret: CANARY },
      properties: { hikari: { connectionTimeout: 1000, validationTimeout: 500 } },
    });
    const test = await call(s, "POST", "/api/v1/datasources/down/test", h);
    equal(test.status, 200);
    equal(test.body.data.connected, false);
    ok(test.body.data.error_class && test.body.data.error);
    const stored = (await call(s, "GET", "/api/v1/datasources/down", h)).body.data.last_test;
    equal(stored.ok, false);
    for (const path of ["schemas", "tables", "tables/x/columns?schema=public"]) {
      const r = await call(s, "GET", `/api/v1/datasources/down/${path}`, h);
      deepEqual([r.status, r.body.error.code], [
        502,
        "pipeline.execution.datasource_unreachable",
      ]);
      ok(!JSON.stringify(r.body).includes(CANARY));
    }
    ok(!JSON.stringify(test.body).includes(CANARY));
    const decrypted = await s.runtime.db.query<{ details: string }>(
      "SELECT details FROM audit_log WHERE event = 'datasource.credential_decrypted'",
    );
    ok(decrypted.length >= 1);
    ok(decrypted.every((r) => JSON.parse(r.details).datasource === "down"));
    ok(!decrypted.some((r) => r.details.includes(CANARY)));
  },
);

warehouseTest(
  "introspection needs author, test needs workspace admin; others' datasources are 404",
  async (s, h, url) => {
    await registerWarehouse(s, h, url, "wh");
    const f = {
      viewer: await sessionHeaders(
        s.runtime,
        await userByEmail(s, "viewer@acme.example"),
        "acme",
      ),
      author: await sessionHeaders(
        s.runtime,
        await userByEmail(s, "author@acme.example"),
        "acme",
      ),
    };
    equal(
      (await call(s, "GET", "/api/v1/datasources/wh/schemas", f.viewer)).body.error.code,
      "auth.role_required",
    );
    equal((await call(s, "GET", "/api/v1/datasources/wh/schemas", f.author)).status, 200);
    equal(
      (await call(s, "POST", "/api/v1/datasources/wh/test", f.author)).body.error.code,
      "auth.role_required",
    );
    const su = await userByEmail(s, "super-admin@acme.example");
    await s.runtime.workspaces.create({ ...su.principal, isSuperAdmin: true }, { name: "other" });
    const elsewhere = await sessionHeaders(s.runtime, su, "other");
    for (const [m, p] of [["POST", "test"], ["GET", "schemas"], ["GET", "tables"]] as const) {
      const r = await call(s, m, `/api/v1/datasources/wh/${p}`, elsewhere);
      deepEqual([r.status, r.body.error.code], [404, "datasource.not_found"], p);
    }
  },
);

async function userByEmail(s: TestServer, email: string) {
  const row = await s.runtime.db.first<{ id: string; is_admin: unknown }>(
    "SELECT id, is_admin FROM users WHERE email = $1",
    [email],
  );
  const isAdmin = row!.is_admin === true || row!.is_admin === 1;
  return {
    id: String(row!.id),
    email,
    password: "",
    principal: {
      userId: String(row!.id),
      email,
      displayName: email,
      provider: "local",
      isSuperAdmin: isAdmin,
      authMethod: "OIDC" as const,
      mustChangePassword: false,
      scopes: [],
    },
  };
}
