import { deepEqual, equal, ok } from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { forEachStore } from "../../tests/support/stores.ts";
import { sqliteSource } from "../executions/executor_fixtures.ts";
import { endpointWorld, PEOPLE_BY_TEAM, peopleNodes } from "./test_fixtures.ts";
import { refuses } from "../../tests/support/refusals.ts";

async function valid(doc: Record<string, unknown>): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(doc);
  ok(result.valid, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
  equal(validator.version, "3.1");
}

forEachStore(
  "the /api/x OpenAPI document lists what the key may call, and validates",
  async (db) => {
    const e = await endpointWorld(db);
    try {
      sqliteSource(e.w, "lite");
      const people = await e.released(peopleNodes("lite"), {
        parameters: {
          team: { type: "string", enum: ["red", "blue"], description: "the team" },
          limit: { type: "integer", min: 1, max: 100, default: 10 },
          since: { type: "date", required: true },
          ids: { type: "integer_list" },
        },
      });
      const plain = await e.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
      await e.service.publish(e.ctx, {
        path_pattern: "/people/{team}",
        pipeline_id: people,
        description: "People of a team",
      });
      await e.service.publish(e.ctx, { path_pattern: "/bound/people", pipeline_id: plain });
      await e.service.publish(e.ctx, {
        path_pattern: "/off",
        pipeline_id: plain,
        enabled: false,
      });
      const user = await e.key({ name: "user", scopes: ["execute"] });
      const feed = await e.key({ name: "feed", kind: "endpoint" });
      await e.service.bind(e.ctx, { path: "/bound", key_name: "feed" });

      const forUser = await e.server.describe(user, "http://svc.example");
      await valid(forUser);
      const paths = forUser.paths as Record<string, { get: Record<string, unknown> }>;
      deepEqual(Object.keys(paths), ["/people/{team}"]);
      const op = paths["/people/{team}"].get;
      equal(op.summary, "People of a team");
      const params = op.parameters as {
        name?: string;
        in?: string;
        required?: boolean;
        schema?: Record<string, unknown>;
      }[];
      const byName = Object.fromEntries(params.filter((p) => p.name).map((p) => [p.name, p]));
      deepEqual(byName.team, {
        name: "team",
        in: "path",
        required: true,
        schema: { type: "string", enum: ["red", "blue"] },
        description: "the team",
      });
      deepEqual(byName.limit.schema, { type: "integer", minimum: 1, maximum: 100, default: 10 });
      equal(byName.limit.required, false);
      deepEqual([byName.since.required, byName.since.schema], [true, {
        type: "string",
        format: "date",
      }]);
      equal(byName.ids.in, "query");
      ok((op.responses as Record<string, unknown>)["503"]);
      deepEqual(forUser.servers, [{ url: "http://svc.example/api/x" }]);

      const forFeed = await e.server.describe(feed, "http://svc.example");
      await valid(forFeed);
      deepEqual(Object.keys(forFeed.paths as object), ["/bound/people"]);

      await refuses(
        () => e.server.describe({ ...e.ctx.actor, authMethod: "OIDC" }, "http://svc.example"),
        "auth.api_key.missing",
        401,
      );
    } finally {
      await e.close();
    }
  },
);
