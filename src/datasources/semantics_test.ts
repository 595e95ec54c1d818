/**
 * The semantic layer as the tool endpoint calls it (`semantics_list`, `semantics_record`,
 * `semantics_retire`), over a real SQLite datasource: workspace visibility (grants, never a super
 * admin's reach), fingerprints taken through introspection, the retire rule across workspaces.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { forEachStore } from "../../tests/support/stores.ts";
import type { WorkspaceContext } from "../identity/mod.ts";
import { createLogger } from "../lib/log.ts";
import type { Db } from "../store/mod.ts";
import { DatasourceConnections, PoolManager, Semantics } from "./mod.ts";
import { datasourceFixture } from "./test_fixtures.ts";
import { refuses } from "../../tests/support/refusals.ts";

async function setUp(db: Db) {
  const f = await datasourceFixture(db);
  const dir = await Deno.makeTempDir();
  const path = `${dir}/shop.db`;
  const file = new DatabaseSync(path);
  file.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, amount NUMERIC(10,2))");
  file.close();
  const pools = await PoolManager.create({ retireCeilingMs: 1000 });
  const logger = createLogger("error", () => {});
  const connections = new DatasourceConnections({ db, datasources: f.ds, pools, logger });
  const semantics = new Semantics({ db, datasources: f.ds, connections });
  const acme = await f.ctx("acme", f.admin);
  const acmeAuthor = await f.ctx("acme", f.author);
  const other = await f.ctx("other", f.otherAdmin);
  // A member of `other` who may author but is not its admin.
  const otherAuthor: WorkspaceContext = {
    ...other,
    flags: { author: true, promoter: false, admin: false },
  };
  const jdbc_url = `jdbc:sqlite:${path}`;
  await f.ds.create(f.admin, acme, { name: "shop", dialect: "SQLITE", jdbc_url });
  await f.ds.create(f.root, null, { name: "central", dialect: "SQLITE", jdbc_url, global: true });
  return {
    ...f,
    path,
    connections,
    semantics,
    acme,
    acmeAuthor,
    other,
    otherAuthor,
    async close() {
      await pools.closeAll();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

forEachStore(
  "semantics: record and list with references; a table fact is fingerprinted",
  async (db) => {
    const t = await setUp(db);
    try {
      const { semantics, author, acmeAuthor } = t;
      const wide = await semantics.record(author, acmeAuthor, {
        datasource: "shop",
        kind: "window",
        fact: "rows from 2024 on",
        trust: "observed",
      }, "mcp");
      deepEqual(
        [wide.datasource, wide.scope, wide.trust, wide.recorded_via, wide.from_this_workspace],
        ["shop", "DATASOURCE", "observed", "mcp", true],
      );
      equal("table" in wide, false);
      const col = await semantics.record(author, acmeAuthor, {
        datasource: "shop",
        kind: "unit",
        fact: "amount is in euros",
        table: "orders",
        column: "amount",
      }, "mcp");
      deepEqual([col.table, col.column, "schema" in col, col.conflict], [
        "orders",
        "amount",
        false,
        false,
      ]);
      const rule = await semantics.record(author, acmeAuthor, {
        datasource: "shop",
        kind: "definition",
        fact: "revenue is the sum of amount",
        trust: "verified",
      }, "mcp");
      deepEqual([rule.scope, rule.trust], ["WORKSPACE", "asserted"]);

      const listed = await semantics.list(author, acmeAuthor);
      deepEqual(listed.map((f) => f.id), [wide.id, col.id, rule.id]);
      deepEqual(listed[1], col);
      const units = await semantics.list(author, acmeAuthor, { kind: "unit" });
      deepEqual(units.map((f) => f.id), [col.id]);
      deepEqual(await semantics.list(author, acmeAuthor, { datasource: "shop", kind: "window" }), [
        wide,
      ]);
      await refuses(
        semantics.list(author, acmeAuthor, { datasource: "central" }),
        "datasource.not_found",
        404,
      );

      // The fingerprint taken at record time lets a changed table demote the fact on /columns.
      const file = new DatabaseSync(t.path);
      file.exec("ALTER TABLE orders ADD COLUMN currency TEXT");
      file.close();
      await t.connections.columns(author, acmeAuthor, "shop", "orders", undefined);
      const after = await semantics.list(author, acmeAuthor, { kind: "unit" });
      equal(after[0].trust, "needs_review");

      await refuses(
        semantics.record(author, acmeAuthor, {
          datasource: "shop",
          kind: "unit",
          fact: "x",
          table: "nope",
        }, "mcp"),
        "datasource.table_not_found",
        404,
      );
      await refuses(
        semantics.record(author, acmeAuthor, { kind: "unit", fact: "x" }, "mcp"),
        "pipeline.execution.invalid_parameter_type",
        400,
        { field: "datasource" },
      );
      await refuses(
        semantics.record(author, acmeAuthor, { datasource: "shop", kind: "Bad", fact: "x" }, "mcp"),
        "pipeline.execution.invalid_parameter_type",
        400,
        { field: "kind" },
      );
      await refuses(
        semantics.record(
          t.otherAdmin,
          t.other,
          { datasource: "shop", kind: "unit", fact: "x" },
          "mcp",
        ),
        "datasource.not_found",
        404,
      );
    } finally {
      await t.close();
    }
  },
);

forEachStore(
  "semantics: a global datasource needs the grant; retiring another workspace's fact needs ws_admin",
  async (db) => {
    const t = await setUp(db);
    try {
      const { semantics, root, author, acme, acmeAuthor, other, otherAuthor, otherAdmin } = t;
      const fact = { datasource: "central", kind: "sampling", fact: "1% sample" };
      // A super admin sees every global datasource over REST, but a record needs the grant.
      await refuses(semantics.record(root, acme, fact, "mcp"), "datasource.not_found", 404);
      await t.ds.grant(root, "central", "acme");
      const shared = await semantics.record(author, acmeAuthor, fact, "mcp");
      const own = await semantics.record(author, acmeAuthor, {
        datasource: "central",
        kind: "exclusion",
        fact: "skip test rows",
      }, "mcp");
      deepEqual(await semantics.list(otherAdmin, other), []);
      await refuses(
        semantics.retire(otherAdmin, other, shared.id),
        "datasource.fact_not_found",
        404,
      );

      await t.ds.grant(root, "central", "other");
      const seen = await semantics.list(otherAdmin, other);
      deepEqual(seen.map((f) => [f.id, f.from_this_workspace]), [[shared.id, false]]);
      await refuses(semantics.retire(otherAdmin, other, own.id), "datasource.fact_not_found", 404);
      await refuses(
        semantics.retire(otherAdmin, otherAuthor, shared.id),
        "auth.role_required",
        403,
        {
          required: "ws_admin",
          held: ["view", "execute", "author", "switch"],
        },
      );
      await semantics.retire(otherAdmin, other, shared.id);
      await refuses(
        semantics.retire(author, acmeAuthor, shared.id),
        "datasource.fact_not_found",
        404,
      );
      deepEqual((await semantics.list(author, acmeAuthor)).map((f) => f.id), [own.id]);
      // The fact's own workspace retires without the admin role.
      await semantics.retire(author, acmeAuthor, own.id);
      deepEqual(await semantics.list(author, acmeAuthor), []);
    } finally {
      await t.close();
    }
  },
);
