/**
 * Lake-table routes over HTTP, mounted with a datasource lookup the way the registry will mount
 * them. The registry does not exist on this branch: `datasource` below stands in for its lookup
 * (workspace-bound datasources visible only in their workspace, global ones everywhere).
 */
import { deepEqual, equal } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./access_fixtures.ts";
import { call, startTestServer, type TestServer } from "./harness.ts";
import { AppError } from "../src/errors/mod.ts";
import type { LakeDatasource } from "../src/datasources/lake/mod.ts";
import { type LakeTableRouteDeps, lakeTableRoutes } from "../src/http/routes/lake_tables.ts";
import { newId } from "../src/lib/ids.ts";

type Bound = LakeDatasource & { workspace: string | null };
const DATASOURCES: Bound[] = [
  {
    id: newId(),
    name: "lake",
    dialect: "LAKE",
    jdbc_url: "jdbc:lake:file:///srv/lake",
    workspace: "acme",
  },
  {
    id: newId(),
    name: "shared",
    dialect: "LAKE",
    jdbc_url: "jdbc:lake:s3://pub",
    global: true,
    workspace: null,
  },
  {
    id: newId(),
    name: "pg",
    dialect: "POSTGRES",
    jdbc_url: "jdbc:postgresql://h/db",
    workspace: "acme",
  },
  {
    id: newId(),
    name: "theirs",
    dialect: "LAKE",
    jdbc_url: "jdbc:lake:file:///x",
    workspace: "other",
  },
];

async function withServer(
  fn: (
    s: TestServer,
    h: Record<string, Record<string, string>>,
    evicted: string[],
  ) => Promise<void>,
) {
  const evicted: string[] = [];
  const deps = {
    datasource: (c, name) => {
      const ds = DATASOURCES.find((d) => d.name === name);
      if (!ds || (ds.workspace !== null && ds.workspace !== c.get("workspace")?.name)) {
        return Promise.reject(new AppError("datasource.not_found", { name }));
      }
      return Promise.resolve(ds);
    },
    onChange: (ds) => void evicted.push(ds.name),
  } as LakeTableRouteDeps;
  const s = await startTestServer({ extendRoutes: (router) => lakeTableRoutes(router, deps) });
  deps.db = s.runtime.db;
  try {
    const f = await seedRoles(s.runtime);
    const headers = {
      viewer: await sessionHeaders(s.runtime, f.users.viewer),
      author: await sessionHeaders(s.runtime, f.users.author),
      admin: await sessionHeaders(s.runtime, f.users.super_admin, "acme"),
      readKey: {
        "SVC-API-Key": await userKey(s.runtime, f.users.author, f.workspace.id, ["read"]),
      },
    };
    await fn(s, headers, evicted);
  } finally {
    await s.close();
  }
}

const ORDERS = {
  namespace: "sales.eu",
  name: "orders",
  format: "parquet",
  location: "file:///srv/lake/sales/orders/*.parquet",
};

Deno.test("lake-table routes: register, list, import, unregister with roles and codes", () =>
  withServer(async (s, h, evicted) => {
    const created = await call(s, "POST", "/api/v1/datasources/lake/tables", h.author, ORDERS);
    equal(created.status, 201);
    deepEqual(created.body.data.namespace, ["sales", "eu"]);
    deepEqual(evicted, ["lake"]);

    const dup = await call(s, "POST", "/api/v1/datasources/lake/tables", h.author, ORDERS);
    deepEqual([dup.status, dup.body.error.code], [409, "datasource.lake_table_duplicate"]);

    const viewerWrite = await call(s, "POST", "/api/v1/datasources/lake/tables", h.viewer, ORDERS);
    equal(viewerWrite.status, 403);
    const keyWrite = await call(s, "POST", "/api/v1/datasources/lake/tables", h.readKey, ORDERS);
    equal(keyWrite.status, 403);

    const listed = await call(s, "GET", "/api/v1/datasources/lake/lake-tables", h.viewer);
    equal(listed.status, 200);
    deepEqual([listed.body.data.datasource, listed.body.data.count], ["lake", 1]);

    const imported = await call(s, "POST", "/api/v1/datasources/lake/tables/import", h.author, {
      namespace: "sales.eu",
      publish_prefix: "file:///srv/lake/pub",
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
    deepEqual(evicted, ["lake", "lake", "lake"]);
  }));

Deno.test("lake-table routes refuse bad input, other dialects, foreign and global datasources", () =>
  withServer(async (s, h) => {
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
        { ...ORDERS, location: "file:///srv/lake/x'.parquet" },
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
  }));
