/**
 * `pipelines_run_checks` over the tool on a version whose checks run against a real datasource (a
 * SQLite file): one check passes, one fails, and the answer is the REST twin's
 * (`POST …/versions/{v}/checks/run`) run for run, but for the time each ran. Both stores; the
 * revision follows the store (SQLite: 2025-11-25, PostgreSQL: 2026-07-28), like the tool tests.
 */
import { deepEqual, equal } from "node:assert/strict";
import { sessionHeaders, userKey } from "./support/access_fixtures.ts";
import {
  bothStores,
  ORDER_CHECKS,
  P,
  pipe,
  sqliteFile,
  sqliteSource,
} from "./support/pipeline_client.ts";
import { connect, type Json, keyHeaders } from "./support/mcp_client.ts";

const withoutTime = (runs: Json[]) => runs.map(({ ran_at: _, ...run }) => run);

bothStores(
  "pipelines_run_checks against a real SQLite datasource: a pass and a fail, as REST answers",
  async (withWorld) => {
    await withWorld(async ({ s, f, h, req }) => {
      const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
      const file = await sqliteFile(); // orders: amounts 10 and 32
      const ds = await req("POST", "/api/v1/datasources", admin, sqliteSource("wh", file));
      equal(ds.status, 201, JSON.stringify(ds.body));
      const created = await req(
        "POST",
        P,
        h.author,
        pipe("chk/orders", {
          nodes: [{ id: "a", type: "DQL", source: "wh", sql: "SELECT * FROM orders" }],
          checks: ORDER_CHECKS,
        }),
      );
      equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.data.id;

      const era = s.runtime.db.dialect === "sqlite" ? "2025-11-25" : "2026-07-28";
      const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["execute"]);
      const c = await connect(s, era, keyHeaders(key));
      try {
        const tool = await c.call("pipelines_run_checks", { id, version: 1 });
        const rest = (await req("POST", `${P}/${id}/versions/1/checks/run`, h.author)).body.data;
        deepEqual(
          tool.runs.map((r: Json) => [r.check_id, r.verdict, r.observed]),
          [["total", "pass", "42"], ["count", "fail", "2"]],
        );
        equal(tool.version, rest.version);
        deepEqual(withoutTime(tool.runs), withoutTime(rest.runs));
        // Both runs are recorded: the latest run of each check is REST's, after the tool's.
        const latest = (await req("GET", `${P}/${id}/versions/1/checks`, h.author)).body.data;
        deepEqual(latest.checks.map((k: Json) => k.latest_run.verdict), ["pass", "fail"]);
      } finally {
        await c.close();
      }
    });
  },
);
