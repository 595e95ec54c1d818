/**
 * The endpoints_* tools over real HTTP with the official SDK client, on both stores: publishing a
 * released read-only pipeline (and the refusals REST gives), reading, listing, unpublishing (the
 * URL answers 404 at once), each tool's floor, and the pinned workspace.
 */
import { deepEqual, equal } from "node:assert/strict";
import { userKey } from "./support/access_fixtures.ts";
import { floorsHold, refuses, withUsualClients } from "./support/mcp_tools_fixtures.ts";
import { forEachStoreKind } from "./support/stores.ts";
import { teamPipeline } from "./support/pipeline_body.ts";

forEachStoreKind(
  "endpoint tools: publish, read, list, unpublish; floors and workspace",
  (store) =>
    withUsualClients(store, async (c, s, f) => {
      const ctx = { actor: f.users.author.principal, workspaceId: f.workspace.id };
      const released = await teamPipeline(s, ctx, "api/teams");
      const draftOnly = await teamPipeline(s, ctx, "api/draft", true);
      const theirs = await teamPipeline(
        s,
        { actor: f.other.users.author.principal, workspaceId: f.other.workspace.id },
        "api/theirs",
      );
      const made = await c.author.call("endpoints_create", {
        path_pattern: "/teams/{team}",
        pipeline_id: released,
        description: "one team",
      });
      deepEqual(
        [made.path_pattern, made.pipeline_id, made.pipeline_name, made.workspace, made.enabled],
        ["/teams/{team}", released, "api/teams", "acme", true],
      );
      for (
        const [path_pattern, pipeline_id, code] of [
          ["/teams/red", released, "endpoint.path_conflict"],
          ["/drafts/{team}", draftOnly, "endpoint.pipeline_not_released"],
          ["/teams2/{nobody}", released, "endpoint.path_variable_unknown"],
          ["no-slash", released, "endpoint.validation.path_invalid"],
        ]
      ) await refuses(c.author, "endpoints_create", { path_pattern, pipeline_id }, code);

      // Reads with a read key; the endpoint serves.
      const listed = await c.read.call("endpoints_list", {});
      deepEqual(listed.items.map((e: { path_pattern: string }) => e.path_pattern), [
        "/teams/{team}",
      ]);
      deepEqual(listed.pagination, { offset: 0, limit: 50, total: 1, has_more: false });
      const one = await c.read.call("endpoints_get", { path_pattern: "/teams/{team}" });
      deepEqual([one.description, one.bindings], ["one team", []]);
      await refuses(c.read, "endpoints_get", { path_pattern: "/nothing" }, "endpoint.not_found");
      const caller = {
        "SVC-API-Key": await userKey(s.runtime, f.users.author, f.workspace.id, ["execute"]),
      };
      const served = await s.fetch("/api/x/teams/red", { headers: caller });
      equal(served.status, 200);
      equal((await served.json()).row_count, 1);

      await floorsHold(c, [
        ["endpoints_list", "read", {}],
        ["endpoints_get", "read", { path_pattern: "/teams/{team}" }],
        ["endpoints_create", "write", { path_pattern: "/never/{team}", pipeline_id: released }],
        ["endpoints_delete", "write", { path_pattern: "/teams/{team}" }],
      ]);
      equal((await c.read.call("endpoints_list", {})).pagination.total, 1);

      // The pinned workspace: the other workspace neither sees nor removes acme's endpoint, nor
      // publishes acme's pipeline.
      deepEqual((await c.other.call("endpoints_list", {})).items, []);
      await refuses(
        c.other,
        "endpoints_get",
        { path_pattern: "/teams/{team}" },
        "endpoint.not_found",
      );
      await refuses(
        c.other,
        "endpoints_delete",
        { path_pattern: "/teams/{team}" },
        "endpoint.not_found",
      );
      await refuses(c.other, "endpoints_create", {
        path_pattern: "/theirs/{team}",
        pipeline_id: released,
      }, "pipeline.not_found");
      equal(
        (await c.other.call("endpoints_create", {
          path_pattern: "/theirs/{team}",
          pipeline_id: theirs,
        })).workspace,
        "other",
      );

      deepEqual(await c.author.call("endpoints_delete", { path_pattern: "/teams/{team}" }), {
        path_pattern: "/teams/{team}",
        deleted: true,
      });
      await refuses(
        c.author,
        "endpoints_delete",
        { path_pattern: "/teams/{team}" },
        "endpoint.not_found",
      );
      const gone404 = await s.fetch("/api/x/teams/red", { headers: caller });
      equal(gone404.status, 404);
      await gone404.body?.cancel();
    }),
);
