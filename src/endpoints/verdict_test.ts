/**
 * The serve verdict cache, on both stores: the steady state re-checks without reading the store,
 * and every change it depends on (a release, a discard, a child pipeline's current version, the
 * workspace's state) is seen by the very next serve.
 */
import { equal, ok } from "node:assert/strict";
import { storeTestIn } from "../../tests/support/stores.ts";
import { refuses } from "../../tests/support/refusals.ts";
import type { Principal } from "../identity/mod.ts";
import type { Db, SqlValue } from "../store/mod.ts";
import type { JsonObject } from "../versions/mod.ts";
import { WorkspaceService } from "../workspaces/mod.ts";
import { EndpointServer } from "./serve.ts";
import {
  type EndpointWorld,
  PEOPLE_BY_TEAM,
  peopleNodes,
  publishPeople,
  RESULT_LIMITS,
  withEndpointWorld,
} from "./test_fixtures.ts";

/** Each test runs in a fresh endpoint world (with the SQLite datasource `lite`). */
const endpointTest = storeTestIn(withEndpointWorld);

const WRITE = { id: "purge", type: "DML", source: "lite", sql: "DELETE FROM people" };

/** A server over a store that records the SQL of every read the serve path makes itself. */
function countingServer(e: EndpointWorld) {
  const reads: string[] = [];
  const db = new Proxy(e.db, {
    get(target, prop) {
      if (prop === "first" || prop === "query") {
        return (sql: string, params?: SqlValue[]) => {
          reads.push(sql);
          return target[prop](sql, params);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Db;
  const server = new EndpointServer({
    db,
    live: e.live,
    released: e.versions,
    executions: e.executions,
    resultLimits: RESULT_LIMITS,
  });
  return { reads, server };
}

const serve = (server: EndpointServer, key: Principal, path: string) =>
  server.serve({ principal: key, path, query: [], correlationId: crypto.randomUUID() });

async function versionServed(e: EndpointWorld, server: EndpointServer, key: Principal) {
  const r = await serve(server, key, "/people/red");
  equal(r.status, 200);
  return (await e.executions.repo.get(r.executionId))?.record.pipeline_version;
}

/** Saves `nodes` as the pipeline's next draft and releases it. */
async function releaseNext(e: EndpointWorld, id: string, nodes: JsonObject[]) {
  const view = await e.w.pipelines.view(e.w.workspaceId, id);
  const saved = await e.w.pipelines.update(e.w.ctx, id, view.working!.body_hash, {
    body: { ...view.working!.body, nodes },
  });
  await e.w.pipelines.release(e.w.ctx, id, saved.version.body_hash);
}

endpointTest(
  "the steady state re-checks a serve without reading the store",
  async (e) => {
    const { key } = await publishPeople(e);
    const { reads, server } = countingServer(e);
    equal(await versionServed(e, server, key), 1);
    ok(reads.length > 0, "the first serve judges the release");
    reads.length = 0;
    equal(await versionServed(e, server, key), 1);
    equal(await versionServed(e, server, key), 1);
    equal(reads.length, 0, `reads: ${reads.join("; ")}`);
  },
);

endpointTest(
  "a release, a discard and a restore are seen by the next serve",
  async (e) => {
    const { id, key } = await publishPeople(e);
    equal(await versionServed(e, e.server, key), 1);
    await releaseNext(e, id, peopleNodes("lite", "SELECT id FROM people WHERE team = :team"));
    equal(await versionServed(e, e.server, key), 2);
    await e.w.pipelines.discard(e.w.ctx, id, 2);
    equal(await versionServed(e, e.server, key), 1);
    await e.w.pipelines.restore(e.w.ctx, id, 2);
    equal(await versionServed(e, e.server, key), 2);
  },
);

endpointTest(
  "a child pipeline's current version decides its parent's next serve",
  async (e) => {
    const child = await e.released(peopleNodes("lite"), PEOPLE_BY_TEAM);
    const parent = await e.released(
      [{ id: "sub", type: "PIPELINE", pipeline: { id: child } }],
      PEOPLE_BY_TEAM,
    );
    await e.service.publish(e.ctx, { path_pattern: "/people/{team}", pipeline_id: parent });
    const key = await e.key({ name: "app", scopes: ["execute"] });
    equal((await serve(e.server, key, "/people/red")).status, 200);
    // The child's next release writes: the parent's URL would run it, so it must refuse.
    await releaseNext(e, child, [...peopleNodes("lite"), WRITE]);
    await refuses(() => serve(e.server, key, "/people/red"), "endpoint.unavailable", 503, {
      node_id: "purge",
    });
    await e.w.pipelines.switchCurrent(e.w.ctx, child, 1);
    equal((await serve(e.server, key, "/people/red")).status, 200);
  },
);

endpointTest(
  "a workspace deactivated, then reactivated, is seen by the next serve",
  async (e) => {
    const { key } = await publishPeople(e);
    const workspaces = new WorkspaceService({ db: e.db, allowlistDomains: [] });
    workspaces.onStateChange(() => e.live.changed());
    const ws = await e.db.first<{ name: string }>("SELECT name FROM workspaces WHERE id = $1", [
      e.ctx.workspaceId,
    ]);
    equal((await serve(e.server, key, "/people/red")).status, 200);
    await workspaces.deactivate(e.ctx.actor, ws!.name);
    await refuses(() => serve(e.server, key, "/people/red"), "endpoint.not_found", 404);
    await workspaces.reactivate(e.ctx.actor, ws!.name);
    equal((await serve(e.server, key, "/people/red")).status, 200);
  },
);
