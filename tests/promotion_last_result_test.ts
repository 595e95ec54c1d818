import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore } from "./support/stores.ts";
import { ExecutionRepo } from "../src/executions/repo.ts";
import { addRunRows, runningRecord, succeeded } from "../src/executions/test_fixtures.ts";
import type { Db } from "../src/store/mod.ts";
import { LAST_SUCCESS_SQL } from "../src/executions/repo.ts";
import { lastResultColumns } from "../src/promotion/repo.ts";

/** A finished run of `version` that delivered a result with `columns`, started at `at`. */
async function delivered(
  db: Db,
  ids: Awaited<ReturnType<typeof addRunRows>>,
  version: number,
  at: string,
  columns: string[],
): Promise<void> {
  const repo = new ExecutionRepo(db);
  const record = runningRecord(ids, { pipeline_version: version, started_at: at });
  await repo.insert(record, "instance-a", at);
  const schema = columns.map((name) => ({ name, type: "VARCHAR" }));
  const data = { execution_id: record.execution_id, schema, rows: [] };
  await repo.appendEvent(record.execution_id, { id: 1, event: "data_ready", data }, at);
  await repo.finish(succeeded(record));
}

forEachStore(
  "the last result columns are the newest delivered run's of that version, found by index",
  async (db) => {
    const ids = await addRunRows(db);
    equal(await lastResultColumns(db, ids.pipelineId, 1), null);
    await delivered(db, ids, 1, "2026-11-01T10:00:00.000Z", ["a"]);
    await delivered(db, ids, 1, "2026-11-02T10:00:00.000Z", ["a", "b"]);
    await delivered(db, ids, 2, "2026-11-03T10:00:00.000Z", ["c"]);
    deepEqual(await lastResultColumns(db, ids.pipelineId, 1), [
      { name: "a", type: "VARCHAR" },
      { name: "b", type: "VARCHAR" },
    ]);
    deepEqual(await lastResultColumns(db, ids.pipelineId, 2), [{ name: "c", type: "VARCHAR" }]);
    if (db.dialect === "sqlite") {
      // Every endpoint request adds an execution: this read must not scan them all.
      const plan = await db.query<{ detail: string }>(
        `EXPLAIN QUERY PLAN ${LAST_SUCCESS_SQL}`,
        [ids.pipelineId, 1, false],
      );
      ok(plan.some((p) => /executions_by_pipeline/.test(p.detail)), JSON.stringify(plan));
    }
  },
);
