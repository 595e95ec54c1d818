import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { pipeline, world } from "../executions/executor_fixtures.ts";
import { ReleasedVersions, servedAmong } from "./released.ts";
import { serveState } from "./repo.ts";

const READ = { id: "read", type: "DQL", source: "lite", sql: "SELECT 1 AS one" };
const WRITE = { id: "purge", type: "DML", source: "lite", sql: "DELETE FROM people" };

forEachStore("the side-effect check follows children to the version they would run", async (db) => {
  const w = await world(db);
  const released = new ReleasedVersions(w.pipelines);
  try {
    const latest = async (id: string) => {
      const r = await released.latest(w.workspaceId, id);
      ok(typeof r !== "string", `released: ${r}`);
      return r;
    };
    const defectOf = async (id: string) =>
      await released.writeDefect(w.workspaceId, id, await latest(id));

    // A child without a pinned version runs its current one, and so is judged on it.
    const child = await pipeline(w, [READ], {}, { release: true });
    const parent = await pipeline(
      w,
      [{ id: "sub", type: "PIPELINE", pipeline: { id: child } }],
      {},
      {
        release: true,
      },
    );
    equal(await defectOf(parent), null);
    const view = await w.pipelines.view(w.workspaceId, child);
    const saved = await w.pipelines.update(w.ctx, child, view.working!.body_hash, {
      body: { ...view.working!.body, nodes: [READ, WRITE] },
    });
    await w.pipelines.release(w.ctx, child, saved.version.body_hash);
    const found = await defectOf(parent);
    equal(found?.node_id, "purge");
    equal(found?.pipeline_version, 2);
    // Switching the child back to version 1 makes the parent servable again.
    await w.pipelines.switchCurrent(w.ctx, child, 1);
    equal(await defectOf(parent), null);

    // A pinned child version that does not exist is refused at the node that pins it.
    const dangling = await pipeline(
      w,
      [
        { id: "sub", type: "PIPELINE", pipeline: { id: child, version: 9 } },
      ],
      {},
      { release: true },
    );
    equal((await defectOf(dangling))?.node_id, "sub");

    // A deleted pipeline is gone; one with only a draft has no release.
    equal(await released.latest(w.workspaceId, crypto.randomUUID()), "gone");
    equal(await released.latest(w.workspaceId, await pipeline(w, [READ])), "no_release");
  } finally {
    await w.close();
  }
});

forEachStore("one read tells a serve the workspace's state and the latest release", async (db) => {
  const w = await world(db);
  const released = new ReleasedVersions(w.pipelines);
  try {
    const state = (id: string) => serveState(db, w.workspaceId, id);
    // Agrees with the version lifecycle's own answer: the highest RELEASED version wins.
    const id = await pipeline(w, [READ], {}, { release: true });
    const view = await w.pipelines.view(w.workspaceId, id);
    const saved = await w.pipelines.update(w.ctx, id, view.working!.body_hash, {
      body: { ...view.working!.body, nodes: [{ ...READ, sql: "SELECT 2 AS two" }] },
    });
    await w.pipelines.release(w.ctx, id, saved.version.body_hash);
    const latest = await released.latest(w.workspaceId, id);
    ok(typeof latest !== "string");
    deepEqual(await state(id), {
      active: true,
      pipeline: true,
      latest: { version: 2, bodyHash: latest.bodyHash },
    });
    const body =
      (await released.released(w.workspaceId, id, { version: 2, bodyHash: latest.bodyHash })).body;
    equal(body.nodes[0].sql, "SELECT 2 AS two");
    // A draft alone is no release; an unknown pipeline is gone; another workspace's is too.
    const draft = await pipeline(w, [READ]);
    deepEqual(await state(draft), { active: true, pipeline: true, latest: null });
    deepEqual(await state(crypto.randomUUID()), { active: true, pipeline: false, latest: null });
    deepEqual(await serveState(db, crypto.randomUUID(), id), {
      active: false,
      pipeline: false,
      latest: null,
    });
    // A deactivated workspace reads as inactive, its pipeline still there.
    await db.execute("UPDATE workspaces SET deactivated_at = $1 WHERE id = $2", [
      new Date().toISOString(),
      w.workspaceId,
    ]);
    equal((await state(id)).active, false);
    equal((await state(id)).latest?.version, 2);
  } finally {
    await w.close();
  }
});

Deno.test("issue 23 item 7: servedAmong() picks the highest RELEASED version, in any order", () => {
  const v = (version: number, status: string) => ({ version, status });
  equal(servedAmong([v(3, "RELEASED"), v(1, "RELEASED"), v(4, "DISCARDED")])?.version, 3);
  equal(servedAmong([v(1, "DISCARDED"), v(2, "DRAFT")]), undefined);
});
