import { deepEqual, equal, ok } from "node:assert/strict";
import { storeTestIn } from "../../tests/support/stores.ts";
import { pipeline } from "../executions/executor_fixtures.ts";
import { addUser, addWorkspace } from "../versions/test_fixtures.ts";
import type { JsonObject } from "../versions/mod.ts";
import { PEOPLE_BY_TEAM, peopleAt, peopleNodes, withEndpointWorld } from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

/** Each test runs in a fresh endpoint world (with the SQLite datasource `lite`). */
const endpointTest = storeTestIn(withEndpointWorld);

endpointTest(
  "publish() answers the endpoint record, audited, and get/list read it",
  async (e) => {
    const id = await e.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
    const view = await e.service.publish(e.ctx, {
      path_pattern: "/people/{team}",
      pipeline_id: id,
      description: "people by team",
    });
    equal(view.path_pattern, "/people/{team}");
    equal(view.pipeline_id, id);
    ok(view.pipeline_name?.startsWith("team/p"));
    equal(view.timeout_seconds, 30);
    equal(view.enabled, true);
    equal(view.description, "people by team");
    equal(view.created_by, e.ctx.actor.userId);
    deepEqual(view.bindings, []);
    deepEqual(await e.service.get(e.ctx, "/people/{team}"), view);
    const [row] = await audits(e.db, "endpoint.published");
    equal(row.details.path_pattern, "/people/{team}");
    equal(row.details.pipeline_version, 1);
    equal(row.workspace_id, e.ctx.workspaceId);

    await e.service.publish(e.ctx, { path_pattern: "/a/people", pipeline_id: id });
    await e.service.publish(e.ctx, { path_pattern: "/z/people", pipeline_id: id });
    const page = await e.service.list(e.ctx, { offset: 1, limit: 1 });
    equal(page.total, 3);
    deepEqual(page.items.map((i) => i.path_pattern), ["/people/{team}"]);

    // Another workspace sees none of them.
    const other = { actor: e.ctx.actor, workspaceId: await addWorkspace(e.db, "other-ws") };
    await refuses(() => e.service.get(other, "/people/{team}"), "endpoint.not_found", 404);
    equal((await e.service.list(other, { offset: 0, limit: 10 })).total, 0);
  },
);

endpointTest(
  "publish() refuses by the §4.3 rules, each with its code",
  async (e) => {
    const id = await e.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
    const publish = (body: Record<string, unknown>) => () => e.service.publish(e.ctx, body);
    await refuses(
      publish({ path_pattern: "/People", pipeline_id: id }),
      "endpoint.validation.path_invalid",
      400,
    );
    await refuses(
      publish({ path_pattern: "/x", pipeline_id: crypto.randomUUID() }),
      "pipeline.not_found",
      404,
    );
    const draft = await pipeline(e.w, peopleNodes("lite"));
    await refuses(
      publish({ path_pattern: "/x", pipeline_id: draft }),
      "endpoint.pipeline_not_released",
      409,
    );
    await refuses(
      publish({ path_pattern: "/x/{region}", pipeline_id: id }),
      "endpoint.path_variable_unknown",
      400,
      { variable: "region" },
    );
    await refuses(
      publish({ path_pattern: "/x", pipeline_id: id, extra: 1 }),
      "pipeline.execution.invalid_parameter_type",
      400,
    );

    const notReadonly = (pipeline_id: string, details: Record<string, unknown>) =>
      refuses(
        publish({ path_pattern: "/x", pipeline_id }),
        "endpoint.pipeline_not_readonly",
        409,
        details,
      );
    const dml = await e.released([
      { id: "read", type: "DQL", source: "lite", sql: "SELECT 1 AS one" },
      { id: "purge", type: "DML", source: "lite", sql: "DELETE FROM people" },
    ]);
    await notReadonly(dml, { node_id: "purge", pipeline_id: dml });
    const writes = await e.released([{
      id: "copy",
      type: "DQL",
      source: "lite",
      sql: "SELECT 1 AS one",
      output: { target: "datasource", datasource: "lite", table: "copy" },
    }]);
    await notReadonly(writes, { node_id: "copy" });
    // Transitively: a read-only parent over a child whose current release writes.
    const parent = await e.released([{ id: "sub", type: "PIPELINE", pipeline: { id: dml } }]);
    await notReadonly(parent, { node_id: "purge", pipeline_id: dml, via: ["sub"] });
    // A read-only child, pinned, passes.
    const clean = await e.released([
      { id: "sub", type: "PIPELINE", pipeline: { id, version: 1 } },
    ]);
    await e.service.publish(e.ctx, { path_pattern: "/clean", pipeline_id: clean });
    equal((await audits(e.db, "endpoint.published")).length, 1);
  },
);

endpointTest(
  "publish() refuses overlapping patterns deployment-wide, naming the first",
  async (e) => {
    const id = await peopleAt(e, "/sales/{team}", "/sales/eu/{team}");
    for (const path of ["/sales/{team}", "/sales/eu", "/{team}/eu/x", "/sales/{team}/x"]) {
      const expected = path.split("/").length === 3 ? "/sales/{team}" : "/sales/eu/{team}";
      await refuses(
        () => e.service.publish(e.ctx, { path_pattern: path, pipeline_id: id }),
        "endpoint.path_conflict",
        409,
        { path_pattern: path, conflicts_with: expected },
      );
    }
    // No URL matches both: different depth, or a differing literal.
    await e.service.publish(e.ctx, { path_pattern: "/sales", pipeline_id: id });
    await e.service.publish(e.ctx, { path_pattern: "/sales/us/{team}/x", pipeline_id: id });
    // Another workspace's author collides just the same (paths are deployment-wide), and a
    // disabled endpoint still holds its pattern.
    const ws2 = await addWorkspace(e.db, "second-ws");
    const bob = await addUser(e.db, "bob-endpoints@x.example");
    const asBob = { actor: bob, workspaceId: ws2 };
    const name = "team/bobs";
    const saved = await e.w.pipelines.create(asBob, {
      name,
      body: {
        name,
        schema_version: 1,
        nodes: peopleNodes("lite"),
        ...PEOPLE_BY_TEAM,
      } as JsonObject,
      attrs: {},
    });
    await e.w.pipelines.release(asBob, saved.entity.id, saved.version.body_hash);
    await e.service.setEnabled(e.ctx, "/sales", { enabled: false });
    await refuses(
      () => e.service.publish(asBob, { path_pattern: "/{team}", pipeline_id: saved.entity.id }),
      "endpoint.path_conflict",
      409,
      { conflicts_with: "/sales" },
    );
  },
);

endpointTest(
  "timeout_seconds defaults to 30 and is clamped to the two settings",
  async (e) => {
    const id = await e.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
    const t = async (path: string, timeout?: number) =>
      (await e.service.publish(e.ctx, {
        path_pattern: path,
        pipeline_id: id,
        timeout_seconds: timeout,
      }))
        .timeout_seconds;
    equal(await t("/t1"), 30);
    equal(await t("/t2", 0), 1);
    equal(await t("/t3", 100_000), 300);
    equal(await t("/t4", 7), 7);
  },
);

endpointTest(
  "enable, disable and unpublish are audited; a no-op enable writes nothing",
  async (e) => {
    const id = await e.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
    await e.service.publish(e.ctx, { path_pattern: "/p", pipeline_id: id, enabled: false });
    equal((await e.service.get(e.ctx, "/p")).enabled, false);
    equal((await e.service.setEnabled(e.ctx, "/p", { enabled: true })).enabled, true);
    await e.service.setEnabled(e.ctx, "/p", { enabled: true });
    await e.service.setEnabled(e.ctx, "/p", { enabled: false });
    equal((await audits(e.db, "endpoint.enabled")).length, 1);
    equal((await audits(e.db, "endpoint.disabled")).length, 1);
    await refuses(
      () => e.service.setEnabled(e.ctx, "/p", { enabled: "yes" }),
      "pipeline.execution.invalid_parameter_type",
      400,
    );
    await e.service.unpublish(e.ctx, "/p");
    await refuses(() => e.service.get(e.ctx, "/p"), "endpoint.not_found", 404);
    await refuses(() => e.service.unpublish(e.ctx, "/p"), "endpoint.not_found", 404);
    equal((await audits(e.db, "endpoint.unpublished"))[0].details.path_pattern, "/p");
  },
);

endpointTest(
  "bind and unbind name the caller's endpoint key, audited, shown on the record",
  async (e) => {
    await peopleAt(e, "/sales/{team}");
    const key = await e.key({ name: "reporting", kind: "endpoint" });
    const bound = await e.service.bind(e.ctx, { path: "/sales", key_name: "reporting" });
    deepEqual(bound, { path: "/sales", key_id: key.keyId, key_name: "reporting" });
    const again = await e.service.bind(e.ctx, { path: "/sales", key_name: "reporting" });
    equal(again.already_bound, true);
    await e.service.bind(e.ctx, { path: "/sales/{t}", key_name: "reporting" });
    deepEqual((await e.service.get(e.ctx, "/sales/{team}")).bindings, [
      { path: "/sales/{t}", key_id: key.keyId, key_name: "reporting" },
      { path: "/sales", key_id: key.keyId, key_name: "reporting" },
    ]);
    const rows = await audits(e.db, "endpoint.key_bound");
    equal(rows.length, 2);
    deepEqual(rows[0].details, { path: "/sales", key_id: key.keyId, key_name: "reporting" });

    await e.service.unbind(e.ctx, { path: "/sales/{x}", key_name: "reporting" });
    await refuses(
      () => e.service.unbind(e.ctx, { path: "/sales/{x}", key_name: "reporting" }),
      "endpoint.binding_not_found",
      404,
    );
    equal((await audits(e.db, "endpoint.key_unbound")).length, 1);
    deepEqual((await e.service.get(e.ctx, "/sales/{team}")).bindings.map((b) => b.path), [
      "/sales",
    ]);

    // Refusals: unknown name, a user key, two keys of one name, another user's key, bad node.
    await refuses(
      () => e.service.bind(e.ctx, { path: "/", key_name: "nope" }),
      "endpoint.key_not_found",
      404,
    );
    await e.key({ name: "mine", kind: "user", scopes: ["execute"] });
    await refuses(
      () => e.service.bind(e.ctx, { path: "/", key_name: "mine" }),
      "endpoint.key_kind_refused",
      403,
    );
    await e.key({ name: "twin", kind: "endpoint" });
    await e.key({ name: "twin", kind: "endpoint" });
    await refuses(
      () => e.service.bind(e.ctx, { path: "/", key_name: "twin" }),
      "endpoint.key_name_ambiguous",
      409,
    );
    const bob = await addUser(e.db, "bob-binds@x.example");
    await refuses(
      () =>
        e.service.bind({ actor: bob, workspaceId: e.ctx.workspaceId }, {
          path: "/",
          key_name: "reporting",
        }),
      "endpoint.key_not_found",
      404,
    );
    await refuses(
      () => e.service.bind(e.ctx, { path: "/sales/", key_name: "reporting" }),
      "endpoint.validation.path_invalid",
      400,
    );
  },
);

endpointTest(
  "issue 23 item 7: overPipeline() names this workspace's endpoints over one pipeline",
  async (e) => {
    const id = await e.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
    const otherPipeline = await e.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
    await e.service.publish(e.ctx, { path_pattern: "/z/people", pipeline_id: id });
    await e.service.publish(e.ctx, { path_pattern: "/a/{team}", pipeline_id: id });
    await e.service.publish(e.ctx, { path_pattern: "/b/people", pipeline_id: otherPipeline });
    await e.service.setEnabled(e.ctx, "/z/people", { enabled: false });
    deepEqual(await e.service.overPipeline(e.ctx, id), [
      { path_pattern: "/a/{team}", enabled: true },
      { path_pattern: "/z/people", enabled: false },
    ]);
    const other = { actor: e.ctx.actor, workspaceId: await addWorkspace(e.db, "other-ws") };
    deepEqual(await e.service.overPipeline(other, id), []);
  },
);
