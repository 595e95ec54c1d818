/**
 * Learned facts on datasource reads (spec 3 §2.1, §2.2, §3): the datasource-wide facts and the
 * workspace's rules on `GET /datasources/{name}` and list rows, table and column facts on
 * introspection, and the one-way drift demotion written back before serving.
 */
import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { sessionHeaders } from "./support/access_fixtures.ts";
import { call } from "./support/harness.ts";
import { forEachServer } from "./support/servers.ts";
import { makeSqliteFile } from "../src/datasources/connectors/test_fixtures.ts";
import { recordFact } from "../src/datasources/facts/mod.ts";

forEachServer(
  "facts ride on datasource reads and introspection; a changed table demotes its fact",
  async (s, f, dir) => {
    const path = `${dir}/shop.db`;
    makeSqliteFile(path, "CREATE TABLE orders (id INTEGER PRIMARY KEY, amount NUMERIC(10,2))");
    const h = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
    const made = await call(s, "POST", "/api/v1/datasources", h, {
      name: "shop",
      dialect: "SQLITE",
      jdbc_url: `jdbc:sqlite:${path}`,
    });
    equal(made.status, 201);
    const ds = (await s.runtime.db.first<{ id: string }>(
      "SELECT id FROM datasources WHERE name = 'shop'",
    ))!;
    const shop = { id: ds.id, name: "shop" };
    const actor = { workspaceId: f.workspace.id, userId: f.users.ws_admin.id };
    // The fingerprint is taken from what introspection reports now.
    const listed = await call(s, "GET", "/api/v1/datasources/shop/tables/orders/columns", h);
    const columns = listed.body.data.map((c: { name: string; type: string }) => ({
      name: c.name,
      type: c.type,
    }));
    await recordFact(s.runtime.db, actor, shop, [ds.id], {
      scope: "DATASOURCE",
      kind: "window",
      fact: "rows arrive hourly",
      recorded_via: "test",
    });
    await recordFact(s.runtime.db, actor, shop, [ds.id], {
      scope: "DATASOURCE",
      kind: "unit",
      fact: "amount is in euros",
      recorded_via: "test",
      schema: "main",
      table: "orders",
      column: "amount",
      columns,
    });
    await recordFact(s.runtime.db, actor, shop, [ds.id], {
      scope: "WORKSPACE",
      kind: "definition",
      fact: "revenue means sum(amount)",
      recorded_via: "test",
    });

    const one = await call(s, "GET", "/api/v1/datasources/shop", h);
    deepEqual(one.body.data.facts.map((x: { fact: string }) => x.fact), ["rows arrive hourly"]);
    deepEqual(one.body.data.definitions.map((x: { kind: string }) => x.kind), ["definition"]);
    const list = await call(s, "GET", "/api/v1/datasources", h);
    deepEqual(list.body.data.items[0].facts.length, 1);

    const cols = await call(s, "GET", "/api/v1/datasources/shop/tables/orders/columns", h);
    equal(cols.status, 200, JSON.stringify(cols.body));
    const amount = cols.body.data.find((c: { name: string }) => c.name === "amount");
    deepEqual(amount.facts.map((x: { fact: string }) => x.fact), ["amount is in euros"]);
    const before = amount.facts[0].trust;
    equal(before === "needs_review" || before === "stale", false, before);

    // The table changes shape: the next /columns demotes the fact before serving it.
    const again = new DatabaseSync(path);
    again.exec("ALTER TABLE orders ADD COLUMN note TEXT");
    again.close();
    const drifted = await call(s, "GET", "/api/v1/datasources/shop/tables/orders/columns", h);
    const trust = drifted.body.data.find((c: { name: string }) => c.name === "amount").facts[0]
      .trust;
    equal(trust, "needs_review");

    // Deleting the datasource takes its facts along: none outlives it as an orphan row.
    equal((await call(s, "DELETE", "/api/v1/datasources/shop", h)).status, 204);
    const left = await s.runtime.db.first<{ n: number }>(
      "SELECT count(*) AS n FROM learned_facts WHERE datasource_id = $1",
      [ds.id],
    );
    equal(Number(left!.n), 0);
  },
);
