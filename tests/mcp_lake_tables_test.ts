/**
 * The lake_tables_* tools over real HTTP with the official SDK client, on both stores: register
 * (the LAKE connector serves the new table at once), import (idempotent), unregister, the REST
 * codes for bad input, other dialects and global datasources, each tool's floor, and the pinned
 * workspace.
 */
import { deepEqual } from "node:assert/strict";
import { adminScope } from "./support/access_fixtures.ts";
import { writeParquet } from "./support/lake.ts";
import { startTestServer } from "./support/harness.ts";
import { floorsHold, refuses, toolFixture, withClients } from "./support/mcp_tools_fixtures.ts";
import { forEachStoreKind } from "./support/stores.ts";

forEachStoreKind(
  "lake table tools: register, import, unregister; floors and workspace",
  async (store) => {
    const root = await Deno.makeTempDir({ prefix: "svc_lake_mcp_" });
    const s = await startTestServer({ store });
    try {
      await Deno.mkdir(`${root}/sales/orders`, { recursive: true });
      await writeParquet(`${root}/sales/orders/part-0.parquet`, "SELECT 1 AS id, 9.5 AS amount");
      const f = await toolFixture(s);
      const acme = adminScope(f);
      const ds = s.runtime.datasources;
      const lake = { dialect: "LAKE", jdbc_url: `jdbc:lake:file://${root}` };
      await ds.create(f.users.ws_admin.principal, acme, { name: "lake", ...lake });
      await ds.create(f.users.ws_admin.principal, acme, {
        name: "lite",
        dialect: "SQLITE",
        jdbc_url: `jdbc:sqlite:${root}/x.db`,
      });
      const rootUser = f.users.super_admin.principal;
      await ds.create(rootUser, null, {
        name: "shared",
        dialect: "LAKE",
        jdbc_url: "jdbc:lake:s3://pub",
        global: true,
      });
      await ds.grant(rootUser, "shared", "acme");
      await ds.create(f.other.users.ws_admin.principal, {
        ...acme,
        id: f.other.workspace.id,
        name: "other",
      }, {
        name: "theirs",
        ...lake,
      });
      const orders = {
        datasource: "lake",
        namespace: "sales.eu",
        name: "orders",
        format: "parquet",
        location: `file://${root}/sales/orders/*.parquet`,
      };
      const { author, viewer, read, execute, gone, other } = f.keys;
      await withClients(s, { author, viewer, read, execute, gone, other }, async (c) => {
        const made = await c.author.call("lake_tables_register", orders);
        deepEqual([made.namespace, made.name, made.format], [["sales", "eu"], "orders", "parquet"]);
        // The write retired the pool: the lake serves the new table and its rows at once.
        deepEqual(
          (await c.viewer.call("datasources_get_tables", { name: "lake" })).tables.map((
            t: { schema: string; name: string },
          ) => `${t.schema}.${t.name}`),
          ["sales.eu.orders"],
        );
        deepEqual(
          (await c.viewer.call("datasources_preview_rows", {
            name: "lake",
            schema: "sales.eu",
            table: "orders",
          })).rows,
          [[1, "9.5"]],
        );
        await refuses(c.author, "lake_tables_register", orders, "datasource.lake_table_duplicate");
        // The namespace as segments is the same as dotted.
        await refuses(
          c.author,
          "lake_tables_register",
          { ...orders, namespace: ["sales", "eu"] },
          "datasource.lake_table_duplicate",
        );
        const us = await c.author.call("lake_tables_register", {
          ...orders,
          namespace: ["sales", "us"],
        });
        deepEqual(us.namespace, ["sales", "us"]);
        for (
          const [args, code] of [
            [{ ...orders, namespace: "Sales" }, "datasource.validation.lake_namespace_invalid"],
            [{ ...orders, name: "a.b" }, "datasource.validation.lake_name_invalid"],
            [{ ...orders, format: "orc" }, "datasource.validation.lake_format_invalid"],
            [
              { ...orders, location: "ftp://h/x.parquet" },
              "datasource.validation.lake_location_invalid",
            ],
            [{ ...orders, datasource: "lite" }, "datasource.validation.lake_dialect_required"],
            [
              { ...orders, datasource: "shared", location: "s3://pub/o.parquet" },
              "datasource.validation.workspace_forbidden",
            ],
          ] as const
        ) {
          await refuses(c.author, "lake_tables_register", args, code);
        }

        // Import: idempotent, what is there already is reported so.
        const manifest = {
          datasource: "lake",
          namespace: "sales.eu",
          publish_prefix: `file://${root}/pub`,
          tables: [
            { name: "orders", format: "parquet", location: orders.location },
            { name: "refunds", format: "iceberg", path: "refunds/metadata/v1.metadata.json" },
          ],
        };
        const imported = await c.author.call("lake_tables_import", manifest);
        deepEqual([imported.registered_count, imported.already_registered_count], [1, 1]);
        deepEqual(imported.registered.map((t: { name: string }) => t.name), ["refunds"]);
        const again = await c.author.call("lake_tables_import", manifest);
        deepEqual([again.registered_count, again.already_registered_count], [0, 2]);
        await refuses(c.author, "lake_tables_import", {
          datasource: "lake",
          manifest_url: "https://evil.example/manifest.json",
          namespace: "x",
        }, "datasource.validation.lake_manifest_url_forbidden");

        await floorsHold(c, [
          ["lake_tables_register", "write", { ...orders, name: "never" }],
          ["lake_tables_import", "write", manifest],
          ["lake_tables_unregister", "write", {
            datasource: "lake",
            namespace: "sales.eu",
            name: "orders",
          }],
        ]);

        // The pinned workspace: another workspace's lake is not there, either way round.
        for (
          const [tool, args] of [
            ["lake_tables_register", orders],
            ["lake_tables_import", manifest],
            ["lake_tables_unregister", {
              datasource: "lake",
              namespace: "sales.eu",
              name: "orders",
            }],
          ] as const
        ) {
          await refuses(c.other, tool, args, "datasource.not_found");
        }
        await refuses(
          c.author,
          "lake_tables_register",
          { ...orders, datasource: "theirs" },
          "datasource.not_found",
        );

        deepEqual(
          await c.author.call("lake_tables_unregister", {
            datasource: "lake",
            namespace: "sales.eu",
            name: "orders",
          }),
          { namespace: "sales.eu", name: "orders", unregistered: true },
        );
        await refuses(
          c.author,
          "lake_tables_unregister",
          { datasource: "lake", namespace: "sales.eu", name: "orders" },
          "datasource.lake_table_not_found",
        );
        const left = await s.runtime.lakeTables.list(f.users.author.principal, acme, "lake");
        deepEqual(
          left.tables.map((t) => `${t.namespace.join(".")}.${t.name}`).sort(),
          ["sales.eu.refunds", "sales.us.orders"],
        );
      });
    } finally {
      await s.close();
      await Deno.remove(root, { recursive: true });
    }
  },
);
