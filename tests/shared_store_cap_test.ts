/**
 * `service.shared-store.memory-max-bytes` through a running server: a result that would take the
 * embedded `memory:` store past its cap fails the run with `result.storage_unavailable` (the
 * process keeps its memory), and a result that fits still runs and pages afterwards.
 */
import { deepEqual, equal } from "node:assert/strict";
import { checkEventOrder } from "../src/executions/event_order.ts";
import { forEachServer } from "./support/servers.ts";
import { runToEnd } from "./support/runs.ts";
import { dql, pipelineDrafts } from "./support/pipeline_body.ts";

forEachServer(
  "a result past the memory: store's cap is result.storage_unavailable; one that fits still runs",
  async (s, fx) => {
    const draft = pipelineDrafts(s.runtime.db, fx.users.author, fx.workspace.id);
    // About 2.2 MB of JSON against a 1 MiB store.
    const big = await draft("team/big", [
      dql("rows", { source: "tempdb", sql: "SELECT repeat('x', 100) AS s FROM range(20000)" }),
    ]);
    const small = await draft("team/small", [
      dql("rows", { source: "tempdb", sql: "SELECT range::INTEGER AS n FROM range(3)" }),
    ]);
    const author = { userId: fx.users.author.id, isSuperAdmin: false };
    const run = (pipelineId: string) =>
      runToEnd(s.runtime.executions, { caller: author, workspaceId: fx.workspace.id, pipelineId });

    const refused = await run(big);
    const failed = checkEventOrder(refused.frames, { expectDataReady: false });
    const error = failed.get("pipeline_failed")![0].data.error as { code: string };
    equal(error.code, "result.storage_unavailable");
    equal((await s.runtime.executions.repo.get(refused.id))!.record.status, "FAILED");

    const fits = await run(small);
    const byType = checkEventOrder(fits.frames, { expectDataReady: true });
    deepEqual(byType.get("data_ready")![0].data.rows, [[0], [1], [2]]);
  },
  { env: { SERVICE_SHARED_STORE_MEMORY_MAX_BYTES: String(1024 * 1024) } },
);
