/**
 * `DELETE /api/v1/workspaces/{name}` counts every kind of content the instance wires in
 * (services.ts passes each domain's counter to the workspace service): a workspace holding a
 * pipeline, a template, a bound datasource and an endpoint is refused with all four counted.
 */
import { deepEqual, equal } from "node:assert/strict";
import { adminScope, seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { call, withTestServer } from "./support/harness.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { teamPipeline } from "./support/pipeline_body.ts";

forEachStoreKind(
  "deleting a workspace counts its pipelines, templates, datasources and endpoints",
  async (store) => {
    await withTestServer({ store, env: { SERVICE_DEMO_ENABLED: "false" } }, async (s) => {
      const rt = s.runtime;
      const f = await seedRoles(rt);
      const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
      const pipelineId = await teamPipeline(s, ctx, "keep/me");
      await rt.templates.create(ctx, {
        id: "keep/one",
        type: "sql",
        dialect: "DUCKDB",
        display_name: "One",
        imports: [],
        body: "SELECT 1",
      });
      await rt.datasources.create(f.users.ws_admin.principal, adminScope(f), {
        name: "local",
        dialect: "SQLITE",
        jdbc_url: "jdbc:sqlite::memory:",
      });
      const author = await sessionHeaders(rt, f.users.author, f.workspace.name);
      const published = await call(s, "POST", "/api/v1/endpoints", author, {
        path_pattern: "/keep",
        pipeline_id: pipelineId,
      });
      equal(published.status, 201, JSON.stringify(published.body));

      const root = await sessionHeaders(rt, f.users.super_admin);
      const refused = await call(s, "DELETE", `/api/v1/workspaces/${f.workspace.name}`, root);
      equal(refused.status, 409, JSON.stringify(refused.body));
      equal(refused.body.error.code, "workspace.in_use");
      deepEqual(refused.body.error.details.counts, {
        datasources: 1,
        endpoints: 1,
        pipelines: 1,
        templates: 1,
      });
    });
  },
);
