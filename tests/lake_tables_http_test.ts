/**
 * Lake-table routes over HTTP against the real registry: LAKE datasources registered through
 * the datasource API, tables registered, listed, imported and unregistered, and the LAKE
 * connector serving what the registry holds (a new table shows up in `/tables` at once, so the
 * write really rebuilt the datasource's pool).
 */
import { deepEqual, equal } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { writeParquet } from "./support/lake.ts";
import { call, startTestServer, type TestServer } from "./support/harness.ts";
import { forEachStoreKind, type StoreKind } from "./support/stores.ts";

let LAKE_ROOT = "/srv/lake";

async function withServer(
  store: StoreKind,
  fn: (s: TestServer, h: Record<string, Record<string, string>>) => Promise<void>,
) {
  LAKE_ROOT = await Deno.makeTempDir({ prefix: "svc_lake_http_" });
  const s = await startTestServer({ store });
  try {
    const f = await seedRoles(s.runtime);
    await s.runtime.workspaces.create(f.users.super_admin.principal, { name: "other" });
    const headers = {
      viewer: await sessionHeaders(s.runtime, f.users.viewer),
      author: await sessionHeaders(s.runtime, f.users.author),
      admin: await sessionHeaders(s.runtime, f.users.super_admin, "acme"),
      otherAdmin: await sessionHeaders(s.runtime, f.users.super_admin, "other"),
      readKey: {
        "SVC-API-Key": await userKey(s.runtime, f.users.author, f.workspace.id, ["read"]),
      },
    };
    const none = { kind: "none" };
    for (
      const [ds, who] of [
        [{
          name: "lake",
          dialect: "LAKE",
          jdbc_url: `jdbc:lake:file://${LAKE_ROOT}`,
          credential: none,
          workspace: "acme",
        }, headers.admin],
        [{
          name: "shared",
          dialect: "LAKE",
          jdbc_url: "jdbc:lake:s3://pub",
          credential: none,
          global: true,
        }, headers.admin],
        [{
          name: "pg",
          dialect: "POSTGRES",
          jdbc_url: "jdbc:postgresql://127.0.0.1:9/db",
          credential: { kind: "password", username: "u", secret: "s" },
          workspace: "acme",
        }, headers.admin],
        [{
          name: "theirs",
          dialect: "LAKE",
          jdbc_url: `jdbc:lake:file://${LAKE_ROOT}`,
          credential: none,
          workspace: "other",
        }, headers.otherAdmin],
      ] as const
    ) {
      const created = await call(s, "POST", "/api/v1/datasources", who, {
        display_name: ds.name,
        ...ds,
      });
      equal(created.status, 201, JSON.stringify(created.body));
    }
    const granted = await call(s, "POST", "/api/v1/datasources/shared/grants/acme", headers.admin);
    equal(granted.status, 200);
    await fn(s, headers);
  } finally {
    await s.close();
    await Deno.remove(LAKE_ROOT, { recursive: true });
  }
}

const orders = () => ({
  namespace: "sales.eu",
  name: "orders",
  format: "parquet",
  location: `file://${LAKE_ROOT}/sales/orders/*.parquet`,
});

forEachStoreKind(
  "lake-table routes: register, list, import, unregister with roles and codes",
  (store) =>
    withServer(store, async (s, h) => {
      const ORDERS = orders();
      await Deno.mkdir(`${LAKE_ROOT}/sales/orders`, { recursive: true });
      await writeParquet(
        `${LAKE_ROOT}/sales/orders/part-0.parquet`,
        "SELECT 1 AS id, 9.5 AS amount",
      );
      const before = await call(s, "GET", "/api/v1/datasources/lake/tables", h.author);
      deepEqual([before.status, before.body.data.tables], [200, []]);
      const created = await call(s, "POST", "/api/v1/datasources/lake/tables", h.author, ORDERS);
      equal(created.status, 201);
      deepEqual(created.body.data.namespace, ["sales", "eu"]);
      // The write retired the pool: the connector now serves the new table and reads its columns.
      const tables = await call(s, "GET", "/api/v1/datasources/lake/tables", h.author);
      deepEqual(tables.body.data.tables.map((t: { name: string }) => t.name), ["orders"]);
      const columns = await call(
        s,
        "GET",
        "/api/v1/datasources/lake/tables/orders/columns?schema=sales.eu",
        h.author,
      );
      equal(columns.status, 200, JSON.stringify(columns.body));
      deepEqual(columns.body.data.map((c: { name: string }) => c.name), ["id", "amount"]);

      const dup = await call(s, "POST", "/api/v1/datasources/lake/tables", h.author, ORDERS);
      deepEqual([dup.status, dup.body.error.code], [409, "datasource.lake_table_duplicate"]);

      const viewerWrite = await call(
        s,
        "POST",
        "/api/v1/datasources/lake/tables",
        h.viewer,
        ORDERS,
      );
      equal(viewerWrite.status, 403);
      const keyWrite = await call(s, "POST", "/api/v1/datasources/lake/tables", h.readKey, ORDERS);
      equal(keyWrite.status, 403);

      const listed = await call(s, "GET", "/api/v1/datasources/lake/lake-tables", h.viewer);
      equal(listed.status, 200);
      deepEqual([listed.body.data.datasource, listed.body.data.count], ["lake", 1]);

      const imported = await call(s, "POST", "/api/v1/datasources/lake/tables/import", h.author, {
        namespace: "sales.eu",
        publish_prefix: `file://${LAKE_ROOT}/pub`,
        tables: [
          { name: "orders", format: "parquet", location: ORDERS.location },
          { name: "refunds", format: "iceberg", path: "refunds/metadata/v1.metadata.json" },
        ],
      });
      equal(imported.status, 200);
      deepEqual(
        [imported.body.data.registered_count, imported.body.data.already_registered_count],
        [1, 1],
      );

      const removed = await s.fetch("/api/v1/datasources/lake/tables/sales.eu/orders", {
        method: "DELETE",
        headers: h.author,
      });
      equal(removed.status, 204);
      const again = await call(
        s,
        "DELETE",
        "/api/v1/datasources/lake/tables/sales.eu/orders",
        h.author,
      );
      deepEqual([again.status, again.body.error.code], [404, "datasource.lake_table_not_found"]);

      // Deleting the datasource takes its lake tables along (refunds is still registered).
      const lake = (await s.runtime.db.first<{ id: string }>(
        "SELECT id FROM datasources WHERE name = 'lake'",
      ))!;
      equal((await call(s, "DELETE", "/api/v1/datasources/lake", h.admin)).status, 204);
      const left = await s.runtime.db.first<{ n: number }>(
        "SELECT count(*) AS n FROM lake_tables WHERE datasource_id = $1",
        [lake.id],
      );
      equal(Number(left!.n), 0);
    }),
);

forEachStoreKind(
  "lake-table routes refuse bad input, other dialects, foreign and global datasources",
  (store) =>
    withServer(store, async (s, h) => {
      const ORDERS = orders();
      const cases: [string, unknown, number, string][] = [
        [
          "lake",
          { ...ORDERS, namespace: "Sales" },
          400,
          "datasource.validation.lake_namespace_invalid",
        ],
        ["lake", { ...ORDERS, name: "a.b" }, 400, "datasource.validation.lake_name_invalid"],
        ["lake", { ...ORDERS, format: "orc" }, 400, "datasource.validation.lake_format_invalid"],
        [
          "lake",
          { ...ORDERS, location: `file://${LAKE_ROOT}/x'.parquet` },
          400,
          "datasource.validation.lake_location_invalid",
        ],
        [
          "lake",
          { ...ORDERS, location: "ftp://h/x.parquet" },
          400,
          "datasource.validation.lake_location_invalid",
        ],
        ["pg", ORDERS, 400, "datasource.validation.lake_dialect_required"],
        ["theirs", ORDERS, 404, "datasource.not_found"],
        [
          "shared",
          { ...ORDERS, location: "s3://pub/o.parquet" },
          400,
          "datasource.validation.workspace_forbidden",
        ],
      ];
      for (const [ds, body, status, code] of cases) {
        const r = await call(s, "POST", `/api/v1/datasources/${ds}/tables`, h.author, body);
        deepEqual([r.status, r.body.error?.code], [status, code], `${ds} ${JSON.stringify(body)}`);
      }
      const global = await call(s, "POST", "/api/v1/datasources/shared/tables", h.admin, {
        ...ORDERS,
        location: "s3://pub/o.parquet",
      });
      equal(global.status, 201);

      const foreign = await call(s, "POST", "/api/v1/datasources/shared/tables/import", h.admin, {
        manifest_url: "https://evil.example/manifest.json",
        namespace: "x",
      });
      deepEqual([foreign.status, foreign.body.error.code], [
        400,
        "datasource.validation.lake_manifest_url_forbidden",
      ]);
      const pgList = await call(s, "GET", "/api/v1/datasources/pg/lake-tables", h.viewer);
      deepEqual([pgList.status, pgList.body.error.code], [
        400,
        "datasource.validation.lake_dialect_required",
      ]);
    }),
);
