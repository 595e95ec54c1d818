/**
 * `pipelines_execute_node` and `executions_get_result` as the tool endpoint will call the
 * executions domain (spec 1 §4.7; no REST twins), on both stores with the real executor: one node
 * runs with what it depends on and nothing else, its rows become the result, the run is recorded
 * as triggered via MCP, and the result pages in the tools' rows shape by cursor, only for its owner.
 */
import { deepEqual } from "node:assert/strict";
import { checkEventOrder } from "../src/executions/event_order.ts";
import type { ExecuteInput } from "../src/executions/service.ts";
import { refuses } from "./support/refusals.ts";
import { forEachServer } from "./support/servers.ts";
import { runToEnd } from "./support/runs.ts";
import { dql, pipelineDrafts, staged } from "./support/pipeline_body.ts";

const NODES = [
  staged("base", "tempdb", "SELECT range::INTEGER AS n FROM range(5)"),
  staged("tens", "tempdb", "SELECT n * 10 AS m FROM base ORDER BY n", { depends_on: ["base"] }),
  staged("other", "tempdb", "SELECT 1 AS one"),
  dql("total", {
    source: "tempdb",
    sql: "SELECT sum(m) AS total FROM tens",
    depends_on: ["tens", "other"],
  }),
];

forEachServer(
  "a node runs with its dependencies only; its rows page by cursor",
  async (s, fx) => {
    const pipelineId = await pipelineDrafts(s.runtime.db, fx.users.author, fx.workspace.id)(
      "team/nodes",
      NODES,
    );
    const author = { userId: fx.users.author.id, isSuperAdmin: false };
    const run = (extra: Partial<ExecuteInput>) =>
      runToEnd(s.runtime.executions, {
        caller: author,
        workspaceId: fx.workspace.id,
        pipelineId,
        triggeredVia: "MCP",
        ...extra,
      });

    const { id, frames } = await run({ node: "tens" });
    const byType = checkEventOrder(frames, { expectDataReady: true });
    deepEqual(byType.get("node_completed")!.map((f) => f.data.node_id).sort(), ["base", "tens"]);
    const record = (await s.runtime.executions.repo.get(id))!.record;
    deepEqual([record.status, record.triggered_via, record.result_row_count], [
      "SUCCESS",
      "MCP",
      5,
    ]);

    const caps = { maxRows: 2, maxChars: 20_000 };
    const first = await s.runtime.executions.resultRows(author, fx.workspace.id, {
      execution_id: id,
    }, caps);
    deepEqual([first.columns.map((c) => c.name), first.rows, first.truncated], [
      ["m"],
      [[0], [10]],
      true,
    ]);
    const pages = [first.rows];
    let cursor = first.next_cursor;
    while (cursor) {
      const page = await s.runtime.executions.resultRows(
        author,
        fx.workspace.id,
        { cursor },
        caps,
      );
      pages.push(page.rows);
      cursor = page.next_cursor;
    }
    deepEqual(pages, [[[0], [10]], [[20], [30]], [[40]]]);
    // The cursor carries no authority: another member reads nothing through it.
    const viewer = { userId: fx.users.viewer.id, isSuperAdmin: false };
    await refuses(
      s.runtime.executions.resultRows(
        viewer,
        fx.workspace.id,
        { cursor: first.next_cursor! },
        caps,
      ),
      "result.execution_not_found",
      404,
    );

    // The last node needs every other one; the whole pipeline delivers it to the caller anyway.
    for (const extra of [{ node: "total" }, { triggeredVia: "REST" as const }]) {
      const { id: totalId, frames: all } = await run(extra);
      const done = checkEventOrder(all, { expectDataReady: true }).get("node_completed")!;
      deepEqual(done.map((f) => f.data.node_id).sort(), ["base", "other", "tens", "total"]);
      const rows = await s.runtime.executions.resultRows(author, fx.workspace.id, {
        execution_id: totalId,
      }, caps);
      deepEqual(rows.rows, [["100"]]);
    }
    await refuses(run({ node: "nope" }), "pipeline.execution.invalid_parameter_type", 400, {
      field: "node_id",
    });
  },
);
