/**
 * The demo content on a fresh instance: a first-login visitor lands in `demo` as a viewer and
 * runs every seeded pipeline, as released, through the execute route and the real executor.
 * Each stream goes through the ordering checker, and each result is compared with values
 * computed here straight from copies of the generated files, by queries written for the test.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { DuckDBInstance } from "@duckdb/node-api";
import { DatabaseSync } from "node:sqlite";
import { demoFiles } from "../src/demo/mod.ts";
import type { EventFrame } from "../src/executions/event_order.ts";
import { createUser, sessionHeaders } from "./support/access_fixtures.ts";
import { call, type Json, startTestServer, type TestServer } from "./support/harness.ts";
import { skipUnless } from "./support/services.ts";
import { STORE_KINDS } from "./support/stores.ts";
import { readyOverHttp } from "./support/runs.ts";

/** Runs SQL over a private copy of the shop file: the server's pool keeps its own open. */
async function shopQuery(dataDir: string) {
  const copy = await Deno.makeTempFile({ suffix: ".duckdb" });
  await Deno.copyFile(demoFiles(dataDir).shop, copy);
  const instance = await DuckDBInstance.create(copy, { access_mode: "READ_ONLY" });
  const conn = await instance.connect();
  return {
    rows: async (sql: string) => (await conn.runAndReadAll(sql)).getRowsJson(),
    async close() {
      conn.closeSync();
      instance.closeSync();
      await Deno.remove(copy);
    },
  };
}

interface Run {
  frames: EventFrame[];
  ready: Json;
  record: Json;
}

async function runDemo(
  s: TestServer,
  h: Record<string, string>,
  id: string,
  parameters: Record<string, unknown> = {},
): Promise<Run> {
  const { executionId, frames: all, ready } = await readyOverHttp(s, h, id, { parameters });
  equal(ready.has_more, false);
  const record = (await call(s, "GET", `/api/v1/executions/${executionId}`, h)).body.data;
  equal(record.status, "SUCCESS");
  return { frames: all, ready, record };
}

const columns = (ready: Json) => ready.schema.map((c: { name: string }) => c.name);

for (const store of STORE_KINDS) {
  Deno.test({
    name: `[${store}] every demo pipeline runs end to end as released, with the expected rows`,
    ignore: store === "postgres" && skipUnless("postgres"),
    async fn() {
      const s = await startTestServer({ store, env: { SERVICE_DEMO_ENABLED: "true" } });
      const dataDir = s.runtime.config.dataDir;
      const shop = await shopQuery(dataDir);
      const crm = new DatabaseSync(demoFiles(dataDir).crm, { readOnly: true });
      try {
        // The visitor of a fresh install: no membership, so the first login lands in demo.
        const visitor = await createUser(s.runtime, "visitor@example.com");
        const landed = await s.runtime.workspaces.landing({
          userId: visitor.id,
          email: visitor.email,
          provider: "local",
          isSuperAdmin: false,
        }, { invitationMaterialised: false });
        equal(landed?.name, "demo");
        deepEqual(landed?.flags, { author: false, promoter: false, admin: false });
        const h = await sessionHeaders(s.runtime, visitor, "demo");

        const level = (await call(s, "GET", "/api/v1/pipelines?prefix=demo", h)).body.data;
        const byName = new Map<string, Json>(level.pipelines.map((p: Json) => [p.name, p]));
        deepEqual([...byName.keys()].sort(), [
          "demo/monthly_revenue",
          "demo/revenue_vs_target",
          "demo/top_customers",
          "demo/top_customers_summary",
        ]);
        const pipeline = async (name: string) =>
          (await call(s, "GET", `/api/v1/pipelines/${byName.get(name)!.id}`, h)).body.data;
        for (const name of byName.keys()) {
          const p = await pipeline(name);
          equal(p.status, "RELEASED", name);
          equal(p.version, p.current_version, name);
        }
        const templates = (await call(s, "GET", "/api/v1/templates?q=demo/", h)).body.data.items;
        equal(templates.length, 6);
        for (const t of templates) equal(t.status ?? "RELEASED", "RELEASED", t.id);
        const sources = (await call(s, "GET", "/api/v1/datasources", h)).body.data.items;
        deepEqual(
          sources.map((d: Json) => [d.name, d.dialect, d.readonly]).sort(),
          [["demo_crm", "SQLITE", true], ["demo_shop", "DUCKDB", true]],
        );

        // A parameterised report, with its defaults and then every parameter set.
        const top = byName.get("demo/top_customers")!.id;
        const topSql = (country: string, extra: string, minOrders: number, limit: number) => `
          SELECT c.customer_id, c.name, c.country, c.segment,
                 count(DISTINCT o.order_id) AS orders, sum(l.quantity * l.unit_price) AS revenue
          FROM customers c
          JOIN orders o ON o.customer_id = c.customer_id AND o.status = 'completed'
          JOIN order_lines l ON l.order_id = o.order_id
          WHERE c.country = '${country}' ${extra}
          GROUP BY ALL HAVING count(DISTINCT o.order_id) >= ${minOrders}
          ORDER BY revenue DESC, c.customer_id LIMIT ${limit}`;
        const defaults = await runDemo(s, h, top);
        deepEqual(columns(defaults.ready), [
          "customer_id",
          "name",
          "country",
          "segment",
          "orders",
          "revenue",
        ]);
        const expectedTop = await shop.rows(topSql("DE", "", 1, 10));
        equal(expectedTop.length, 10);
        deepEqual(defaults.ready.rows, expectedTop);
        deepEqual(defaults.record.parameters, {});
        const narrowed = await runDemo(s, h, top, {
          country: "SE",
          segment: "enterprise",
          min_orders: 3,
          limit: 3,
        });
        const expectedNarrow = await shop.rows(topSql("SE", "AND c.segment = 'enterprise'", 3, 3));
        ok(expectedNarrow.length > 0);
        deepEqual(narrowed.ready.rows, expectedNarrow);

        // Two staged reads, DuckDB and SQLite, joined in the staging database.
        const joined = await runDemo(s, h, byName.get("demo/revenue_vs_target")!.id);
        deepEqual(columns(joined.ready), [
          "country",
          "country_name",
          "region",
          "account_manager",
          "orders",
          "revenue",
          "target",
          "attainment_pct",
        ]);
        const revenue = new Map(
          (await shop.rows(`
            SELECT c.country, count(DISTINCT o.order_id), sum(l.quantity * l.unit_price)
            FROM orders o JOIN order_lines l USING (order_id) JOIN customers c USING (customer_id)
            WHERE o.status = 'completed' GROUP BY c.country`)).map((r) => [r[0], r]),
        );
        const targets = crm.prepare(
          `SELECT c.code, c.name, c.region, c.account_manager, total(t.target_amount) AS target
           FROM countries c, sales_targets t WHERE t.country = c.code
           GROUP BY c.code ORDER BY c.code`,
        ).all() as {
          code: string;
          name: string;
          region: string;
          account_manager: string;
          target: number;
        }[];
        equal(joined.ready.rows.length, 8);
        targets.forEach((t, i) => {
          const row = joined.ready.rows[i];
          const [, orders, amount] = revenue.get(t.code)!;
          deepEqual(row.slice(0, 7).map(String), [
            t.code,
            t.name,
            t.region,
            t.account_manager,
            String(orders),
            String(amount),
            String(t.target),
          ]);
          ok(Math.abs(row[7] - 100 * Number(amount) / t.target) <= 0.05 + 1e-9, `${t.code}`);
        });
        const nodes = joined.frames.filter((f) => f.event === "node_completed")
          .map((f) => [f.data.node_id, f.data.rows_out]).sort();
        deepEqual(nodes, [["report", 8], ["revenue", 8], ["targets", 8]]);

        // Calculators: the month around `day`, derived before the read.
        const monthly = byName.get("demo/monthly_revenue")!.id;
        const p = await pipeline("demo/monthly_revenue");
        equal(p.parameters.month_start.derived, true);
        equal(p.parameters.month_end.derived, true);
        const daily = (from: string, to: string) =>
          shop.rows(`
            SELECT o.order_date::VARCHAR, count(DISTINCT o.order_id), sum(l.quantity * l.unit_price)
            FROM orders o JOIN order_lines l USING (order_id)
            WHERE o.status = 'completed' AND o.order_date >= DATE '${from}'
              AND o.order_date <= DATE '${to}'
            GROUP BY 1 ORDER BY 1`);
        const june = await runDemo(s, h, monthly);
        deepEqual(columns(june.ready), ["day", "orders", "revenue"]);
        const expectedJune = await daily("2025-06-01", "2025-06-30");
        equal(expectedJune.length, 30);
        deepEqual(june.ready.rows, expectedJune);
        const february = await runDemo(s, h, monthly, { day: "2025-02-20" });
        deepEqual(february.ready.rows, await daily("2025-02-01", "2025-02-28"));
        equal(february.ready.rows.at(-1)?.[0], "2025-02-28");

        // A pinned child pipeline run as a child execution, staged, then summarised.
        const summary = await pipeline("demo/top_customers_summary");
        const child = summary.nodes.find((n: Json) => n.type === "PIPELINE");
        deepEqual(child.pipeline, {
          id: top,
          version: (await pipeline("demo/top_customers")).current_version,
        });
        const parent = await runDemo(s, h, summary.id, { country: "IT" });
        deepEqual(columns(parent.ready), ["customers", "orders", "revenue"]);
        const [expectedSummary] = await shop.rows(
          `SELECT count(*), sum(orders), sum(revenue) FROM (${topSql("IT", "", 1, 5)})`,
        );
        deepEqual(parent.ready.rows.map((r: unknown[]) => r.map(String)), [
          expectedSummary.map(String),
        ]);
        const topNode = parent.frames.find((f) =>
          f.event === "node_completed" && f.data.node_id === "top"
        )!;
        equal(topNode.data.rows_out, 5);
        const childRecord = (await call(
          s,
          "GET",
          `/api/v1/executions/${topNode.data.child_execution_id}`,
          h,
        )).body.data;
        equal(childRecord.status, "SUCCESS");
        equal(childRecord.pipeline_id, top);
        equal(childRecord.parent_execution_id, parent.record.execution_id);
        equal(childRecord.parent_node_id, "top");
        deepEqual(childRecord.parameters, { country: "IT", limit: 5 });
      } finally {
        crm.close();
        await shop.close();
        await s.close();
      }
    },
  });
}
