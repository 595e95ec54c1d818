/**
 * The semantics_* tools (learned facts, spec 3 §2.2) over real HTTP with the official SDK client,
 * on both stores, over a real SQLite datasource: recording with references and fingerprints, the
 * rule of spec 1 §4.7's last paragraph (a DATASOURCE record needs the datasource granted to the
 * workspace, a super admin's reach notwithstanding; retiring another workspace's fact needs
 * ws_admin), each tool's floor, and the pinned workspace.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { adminScope, userKey } from "./support/access_fixtures.ts";
import { startTestServer } from "./support/harness.ts";
import { floorsHold, refuses, toolFixture, withClients } from "./support/mcp_tools_fixtures.ts";
import { forEachStoreKind } from "./support/stores.ts";

forEachStoreKind(
  "semantics tools: record, list, retire; grants, ws_admin, floors, workspace",
  async (store) => {
    const s = await startTestServer({ store });
    const dir = await Deno.makeTempDir();
    try {
      const path = `${dir}/shop.db`;
      const file = new DatabaseSync(path);
      file.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, amount NUMERIC(10,2))");
      file.close();
      const f = await toolFixture(s);
      const root = f.users.super_admin.principal;
      const acme = adminScope(f);
      const jdbc_url = `jdbc:sqlite:${path}`;
      await s.runtime.datasources.create(f.users.ws_admin.principal, acme, {
        name: "shop",
        dialect: "SQLITE",
        jdbc_url,
      });
      await s.runtime.datasources.create(root, null, {
        name: "central",
        dialect: "SQLITE",
        jdbc_url,
        global: true,
      });
      const otherAdmin = await userKey(s.runtime, f.other.users.ws_admin, f.other.workspace.id, [
        "author",
      ]);
      const { author, viewer, read, gone, other, super_admin } = f.keys;
      const keys = { author, viewer, read, gone, other, otherAdmin, super_admin };
      await withClients(s, keys, async (c) => {
        // Record: a datasource-wide fact, a column fact (fingerprinted), a workspace rule.
        const wide = await c.author.call("semantics_record", {
          datasource: "shop",
          kind: "window",
          fact: "rows from 2024 on",
          trust: "observed",
        });
        deepEqual(
          [wide.datasource, wide.scope, wide.trust, wide.recorded_via, wide.from_this_workspace],
          ["shop", "DATASOURCE", "observed", "mcp", true],
        );
        equal("table" in wide, false);
        const unit = await c.author.call("semantics_record", {
          datasource: "shop",
          kind: "unit",
          fact: "amount is in euros",
          table: "orders",
          column: "amount",
        });
        deepEqual([unit.table, unit.column, unit.conflict], ["orders", "amount", false]);
        const rule = await c.author.call("semantics_record", {
          datasource: "shop",
          kind: "definition",
          fact: "revenue is sum(amount)",
          trust: "verified",
        });
        deepEqual([rule.scope, rule.trust], ["WORKSPACE", "asserted"]);
        await refuses(c.author, "semantics_record", {
          datasource: "shop",
          kind: "unit",
          fact: "x",
          table: "ordres",
        }, "datasource.table_not_found");
        await refuses(
          c.author,
          "semantics_record",
          {
            datasource: "shop",
            kind: "window",
            fact: "x",
            table: "orders",
          },
          "pipeline.execution.invalid_parameter_type",
          { field: "table" },
        );
        await refuses(c.author, "semantics_record", {
          datasource: "nope",
          kind: "unit",
          fact: "x",
        }, "datasource.not_found");

        // List: a read key; filters.
        const listed = await c.read.call("semantics_list", {});
        deepEqual(listed.facts.map((x: { id: string }) => x.id), [wide.id, unit.id, rule.id]);
        deepEqual(
          (await c.read.call("semantics_list", { kind: "unit" })).facts.map((x: { id: string }) =>
            x.id
          ),
          [unit.id],
        );
        // Central is nobody's until granted: not there for acme.
        await refuses(c.read, "semantics_list", { datasource: "central" }, "datasource.not_found");

        // The grant rule: the super admin's key reads the ungranted global datasource (its REST
        // reach), yet cannot record on it for acme; once granted, an author can.
        equal((await c.super_admin.call("datasources_get", { name: "central" })).name, "central");
        const onCentral = { datasource: "central", kind: "sampling", fact: "1% sample" };
        await refuses(c.super_admin, "semantics_record", onCentral, "datasource.not_found");
        await refuses(c.author, "semantics_record", onCentral, "datasource.not_found");
        await s.runtime.datasources.grant(root, "central", "acme");
        const shared = await c.author.call("semantics_record", onCentral);
        equal(shared.scope, "DATASOURCE");

        // The other workspace sees none of it until central is granted to it too, and then only
        // the DATASOURCE fact, never acme's rules or acme's own datasource.
        deepEqual((await c.other.call("semantics_list", {})).facts, []);
        await refuses(
          c.otherAdmin,
          "semantics_retire",
          { id: shared.id },
          "datasource.fact_not_found",
        );
        await s.runtime.datasources.grant(root, "central", "other");
        const seen = await c.other.call("semantics_list", {});
        deepEqual(
          seen.facts.map((x: { id: string; from_this_workspace: boolean }) => [
            x.id,
            x.from_this_workspace,
          ]),
          [[shared.id, false]],
        );
        await refuses(c.other, "semantics_list", { datasource: "shop" }, "datasource.not_found");
        await refuses(
          c.otherAdmin,
          "semantics_retire",
          { id: rule.id },
          "datasource.fact_not_found",
        );
        await refuses(
          c.otherAdmin,
          "semantics_retire",
          { id: wide.id },
          "datasource.fact_not_found",
        );

        // Retiring a fact another workspace established needs ws_admin there.
        await refuses(c.other, "semantics_retire", { id: shared.id }, "auth.role_required", {
          required: "ws_admin",
        });
        deepEqual(await c.otherAdmin.call("semantics_retire", { id: shared.id }), {
          id: shared.id,
          retired: true,
        });
        await refuses(c.author, "semantics_retire", { id: shared.id }, "datasource.fact_not_found");
        // The fact's own workspace retires its own without the admin role.
        deepEqual(await c.author.call("semantics_retire", { id: unit.id }), {
          id: unit.id,
          retired: true,
        });
        deepEqual(
          (await c.read.call("semantics_list", {})).facts.map((x: { id: string }) => x.id),
          [wide.id, rule.id],
        );

        await floorsHold(c, [
          ["semantics_list", "read", {}],
          ["semantics_record", "write", { datasource: "shop", kind: "unit", fact: "never" }],
          ["semantics_retire", "write", { id: wide.id }],
        ]);
        const after = await c.read.call("semantics_list", {});
        deepEqual(after.facts.map((x: { id: string }) => x.id), [wide.id, rule.id]);
        ok(!JSON.stringify(after).includes("never"));
      });
    } finally {
      await s.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
