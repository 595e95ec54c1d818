import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore } from "../../../tests/support/stores.ts";
import { newId } from "../../lib/ids.ts";
import {
  importLakeTables,
  lakeTablesOf,
  listLakeTables,
  registerLakeTable,
  unregisterLakeTable,
} from "./service.ts";
import type { LakeDatasource } from "./types.ts";
import { refuses } from "../../../tests/support/refusals.ts";

const lake = (over: Partial<LakeDatasource> = {}): LakeDatasource => ({
  id: newId(),
  name: "lake1",
  dialect: "LAKE",
  jdbc_url: "jdbc:lake:file:///srv/lake",
  ...over,
});
const admin = { userId: null, isSuperAdmin: true };
const author = { userId: null, isSuperAdmin: false };

forEachStore(
  "registerLakeTable() stores a row, lists it and refuses a taken triple",
  async (db) => {
    const ds = lake();
    const changes: string[] = [];
    const onChange = (d: LakeDatasource) => void changes.push(d.name);
    const row = await registerLakeTable(db, ds, {
      namespace: "sales.eu",
      name: "orders",
      format: "parquet",
      location: "file:///srv/lake/sales/orders/*.parquet",
      partition_column: "order_date",
    }, { onChange });
    deepEqual(row.namespace, ["sales", "eu"]);
    equal(row.partition_column, "order_date");
    await registerLakeTable(db, ds, {
      namespace: ["sales", "eu"],
      name: "customers",
      format: "iceberg",
      location: "file:///srv/lake/c/metadata/v1.metadata.json",
    }, { onChange });
    deepEqual(changes, ["lake1", "lake1"]);

    const listing = await listLakeTables(db, ds);
    equal(listing.datasource, "lake1");
    equal(listing.count, 2);
    deepEqual(listing.tables.map((t) => t.name), ["customers", "orders"]);
    equal("partition_column" in listing.tables[0], false);
    ok(!Number.isNaN(Date.parse(listing.tables[0].created_at)));

    await refuses(
      registerLakeTable(db, ds, {
        namespace: ["sales", "eu"],
        name: "orders",
        format: "parquet",
        location: "file:///srv/lake/other/*.parquet",
      }),
      "datasource.lake_table_duplicate",
      409,
      { namespace: "sales.eu", name: "orders" },
    );
    // The same triple on another datasource is a different table.
    await registerLakeTable(db, lake({ name: "lake2" }), {
      namespace: "sales.eu",
      name: "orders",
      format: "parquet",
      location: "file:///srv/lake/x.parquet",
    });
    equal((await lakeTablesOf(db, ds.id)).length, 2);
    deepEqual(changes, ["lake1", "lake1"]);
  },
);

forEachStore("lake writes refuse bad input with the spec's codes", async (db) => {
  const ds = lake();
  const good = {
    namespace: "sales",
    name: "orders",
    format: "parquet",
    location: "file:///srv/lake/o.parquet",
  };
  await refuses(
    registerLakeTable(db, lake({ dialect: "POSTGRES" }), good),
    "datasource.validation.lake_dialect_required",
    400,
    { dialect: "POSTGRES" },
  );
  await refuses(
    listLakeTables(db, lake({ dialect: "DUCKDB" })),
    "datasource.validation.lake_dialect_required",
    400,
  );
  const badFields: [Record<string, string>, string][] = [
    [{ namespace: "Sales" }, "lake_namespace_invalid"],
    [{ name: "a.b" }, "lake_name_invalid"],
    [{ format: "delta" }, "lake_format_invalid"],
    [{ location: "file:///srv/lake/o'.parquet" }, "lake_location_invalid"],
    [{ location: "gs://b/o.parquet" }, "lake_location_invalid"],
    [{ location: "file:///etc/x" }, "lake_location_invalid"],
  ];
  for (const [bad, code] of badFields) {
    await refuses(
      registerLakeTable(db, ds, { ...good, ...bad }),
      `datasource.validation.${code}`,
      400,
    );
  }
  await refuses(
    registerLakeTable(db, lake({ global: true }), good, { actor: author }),
    "datasource.validation.workspace_forbidden",
    400,
  );
  await registerLakeTable(db, lake({ global: true }), good, { actor: admin });
  equal((await listLakeTables(db, ds)).count, 0);
});

forEachStore("unregisterLakeTable() removes a dotted triple and 404s an absent one", async (db) => {
  const ds = lake();
  await registerLakeTable(db, ds, {
    namespace: ["a", "b"],
    name: "t",
    format: "parquet",
    location: "file:///srv/lake/t.parquet",
  });
  let changed = 0;
  await unregisterLakeTable(db, ds, "a.b", "t", { onChange: () => void changed++ });
  equal(changed, 1);
  await refuses(
    unregisterLakeTable(db, ds, "a.b", "t", { onChange: () => void changed++ }),
    "datasource.lake_table_not_found",
    404,
    { namespace: "a.b", name: "t", datasource: "lake1" },
  );
  equal(changed, 1);
  await refuses(
    unregisterLakeTable(db, ds, "A", "t"),
    "datasource.validation.lake_namespace_invalid",
    400,
  );
});

forEachStore("importLakeTables() is idempotent and lets the entry namespace win", async (db) => {
  const ds = lake();
  const manifest = {
    namespace: "shared",
    publish_prefix: "file:///srv/lake/pub/",
    tables: [
      { name: "a", format: "parquet", path: "a/*.parquet" },
      { name: "b", format: "iceberg", path: "/b/metadata/v3.metadata.json", namespace: "own.ns" },
      { name: "c", format: "parquet", location: "file:///srv/lake/elsewhere/c.parquet" },
    ],
  };
  const first = await importLakeTables(db, ds, manifest);
  equal(first.registered_count, 3);
  equal(first.already_registered_count, 0);
  deepEqual(first.registered.map((t) => [t.namespace.join("."), t.name, t.location]), [
    ["shared", "a", "file:///srv/lake/pub/a/*.parquet"],
    ["own.ns", "b", "file:///srv/lake/pub/b/metadata/v3.metadata.json"],
    ["shared", "c", "file:///srv/lake/elsewhere/c.parquet"],
  ]);
  let changed = 0;
  const again = await importLakeTables(db, ds, manifest, { onChange: () => void changed++ });
  deepEqual([again.registered_count, again.already_registered_count, changed], [0, 3, 0]);
  equal(again.already_registered.length, 3);

  // All or nothing: a redefinition anywhere refuses the whole import.
  await refuses(
    importLakeTables(db, ds, {
      namespace: "shared",
      tables: [
        { name: "new1", format: "parquet", location: "file:///srv/lake/n.parquet" },
        { name: "a", format: "parquet", location: "file:///srv/lake/changed.parquet" },
      ],
    }),
    "datasource.lake_table_duplicate",
    409,
  );
  equal((await listLakeTables(db, ds)).count, 3);

  await refuses(
    importLakeTables(db, ds, {
      tables: [{ name: "x", format: "parquet", location: "file:///srv/lake/x.parquet" }],
    }),
    "datasource.validation.lake_namespace_invalid",
    400,
    { index: 0 },
  );
  await refuses(
    importLakeTables(db, ds, {
      namespace: "n",
      tables: [{ name: "x", format: "parquet", path: "x.parquet" }],
    }),
    "datasource.validation.lake_location_invalid",
    400,
  );
  await refuses(
    importLakeTables(db, ds, {
      namespace: "n",
      publish_prefix: "file:///srv/lake",
      tables: [{ name: "ok", format: "parquet", path: "ok.parquet" }, {
        name: "x",
        format: "parquet",
        path: "../../etc/passwd",
      }],
    }),
    "datasource.validation.lake_location_invalid",
    400,
    { index: 1 },
  );
  equal((await listLakeTables(db, ds)).count, 3);
});

forEachStore(
  "importLakeTables() fetches a manifest_url from the declared endpoint only",
  async (db) => {
    const requests: string[] = [];
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      requests.push(new URL(req.url).pathname);
      if (req.url.endsWith("/acme-lake/manifest.json")) {
        return Response.json({
          publish_prefix: "s3://acme-lake/pub",
          tables: [{ name: "orders", format: "parquet", path: "orders/*.parquet" }],
        });
      }
      if (req.url.endsWith("/redirect.json")) {
        return new Response(null, { status: 302, headers: { location: "http://evil.example/" } });
      }
      return new Response("nope", { status: 404 });
    });
    try {
      const endpoint = `http://127.0.0.1:${server.addr.port}`;
      const ds = lake({
        jdbc_url: "jdbc:lake:s3://acme-lake/warehouse",
        properties: { jdbc: { endpoint } },
      });
      const result = await importLakeTables(db, ds, {
        manifest_url: "s3://acme-lake/manifest.json",
        namespace: "imported",
      });
      deepEqual(result.registered, [{
        namespace: ["imported"],
        name: "orders",
        format: "parquet",
        location: "s3://acme-lake/pub/orders/*.parquet",
      }]);
      deepEqual(requests, ["/acme-lake/manifest.json"]);

      for (const manifest_url of ["s3://acme-lake/missing.json", `${endpoint}/redirect.json`]) {
        await refuses(
          importLakeTables(db, ds, { manifest_url, namespace: "x" }),
          "pipeline.execution.datasource_unreachable",
          502,
        );
      }
      await refuses(
        importLakeTables(db, ds, { manifest_url: "https://evil.example/m.json", namespace: "x" }),
        "datasource.validation.lake_manifest_url_forbidden",
        400,
      );
      equal(requests.length, 3, "a forbidden URL is never requested");
    } finally {
      await server.shutdown();
    }
  },
);
