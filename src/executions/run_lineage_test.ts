import { deepEqual, equal } from "node:assert/strict";
import { runsTest } from "../../tests/support/executions_fixtures.ts";
import { newId } from "../lib/ids.ts";
import { nodeSpans } from "./node_spans.ts";
import { runningRecord, succeeded, successFrames } from "./test_fixtures.ts";
import type { ExecutionRecord } from "./types.ts";

runsTest(
  "the history lists top-level runs only when asked, and child runs are found under their parents",
  async ({ ids, repo }) => {
    const add = async (parent?: ExecutionRecord) => {
      const r = runningRecord(
        ids,
        parent
          ? {
            parent_execution_id: parent.execution_id,
            parent_node_id: "a",
            root_execution_id: parent.root_execution_id,
            triggered_via: "PIPELINE",
          }
          : {},
      );
      await repo.insert(r, "i", r.started_at);
      return r;
    };
    const root = await add();
    const child = await add(root);
    const grandchild = await add(child);
    const other = await add();

    const all = await repo.list({ workspaceId: ids.workspaceId }, 0, 10);
    equal(all.total, 4);
    const top = await repo.list({ workspaceId: ids.workspaceId, topLevel: true }, 0, 10);
    equal(top.total, 2);
    deepEqual(
      top.items.map((r) => r.execution_id).sort(),
      [root.execution_id, other.execution_id].sort(),
    );

    deepEqual((await repo.children([root.execution_id])).map((r) => r.execution_id), [
      child.execution_id,
    ]);
    const below = await repo.children([child.execution_id, other.execution_id]);
    deepEqual(below.map((r) => [r.execution_id, r.parent_node_id]), [
      [grandchild.execution_id, "a"],
    ]);
    // Someone else's view: a child runs as its parent's starter, so they find none.
    deepEqual(await repo.children([root.execution_id], newId()), []);
    deepEqual(await repo.children([]), []);
  },
);

runsTest("node spans are read back from the stored events of a run", async ({ ids, repo }) => {
  const r = runningRecord(ids);
  await repo.insert(r, "i", r.started_at);
  const end = new Date(Date.parse(r.started_at) + 1500).toISOString();
  const frames = successFrames(r).map((f) =>
    f.event === "node_completed"
      ? { ...f, data: { ...f.data, started_at: r.started_at, completed_at: end } }
      : f
  );
  for (const f of frames) await repo.appendEvent(r.execution_id, f, r.started_at);
  await repo.finish(succeeded(r));
  deepEqual(nodeSpans(await repo.events(r.execution_id)), [
    { node_id: "a", started_at: r.started_at, ended_at: end, state: "done" },
  ]);
  // A node still running has no end; a failed one ends at failed_at; a child run is named.
  deepEqual(
    nodeSpans([
      { id: 1, event: "node_started", data: { node_id: "x", started_at: "t0" } },
      { id: 2, event: "node_started", data: { node_id: "y", started_at: "t1" } },
      {
        id: 3,
        event: "node_progress",
        data: { node_id: "y", state: "executing", child_execution_id: "c" },
      },
      { id: 4, event: "node_failed", data: { node_id: "y", failed_at: "t2" } },
    ]),
    [
      { node_id: "x", started_at: "t0", ended_at: null, state: "running" },
      { node_id: "y", started_at: "t1", ended_at: "t2", state: "failed", child_execution_id: "c" },
    ],
  );
});
