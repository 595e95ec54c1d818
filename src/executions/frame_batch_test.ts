/**
 * A run's frames are stored without the ids every payload repeats (frame_batch.ts), and every
 * reader gets them back as they were streamed: the same keys, in the same order, the same JSON
 * text. Rows written before the cut (the previous release, migration 0016) read as before.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { MemoryStore } from "../shared/mod.ts";
import { forEachStore } from "../../tests/support/stores.ts";
import type { EventFrame } from "./event_order.ts";
import { FrameBatch, frameTuple, parseBatch, type RunConstants } from "./frame_batch.ts";
import { keepPayloadJson } from "./frame_json.ts";
import { ExecutionRepo } from "./repo.ts";
import { DurableSink } from "./sink.ts";
import { addRunRows, runningRecord, succeeded } from "./test_fixtures.ts";
import type { ExecutionRecord } from "./types.ts";

const AT = "2026-11-28T10:00:00.000Z";

/** Payloads of every shape a run streams, and a few it never does but a reader must survive. */
function frames(r: ExecutionRecord): EventFrame[] {
  const e = r.execution_id;
  const c = r.correlation_id;
  const p = r.pipeline_id;
  const ready: Record<string, unknown> = {
    execution_id: e,
    pipeline_id: p,
    schema: [{ name: "n", type: "INTEGER" }],
    rows: [[1], [2]],
    row_count: 2,
    result_url: `/api/v1/executions/${e}/result`,
    correlation_id: c,
  };
  keepPayloadJson(ready, "rows", JSON.stringify(ready.rows));
  const failure = { code: "pipeline.node.sql_error", correlation_id: c, message: `"${c}"` };
  const data: Record<string, unknown>[] = [
    {
      execution_id: e,
      pipeline_id: p,
      pipeline_version: 1,
      parameters: { q: c },
      correlation_id: c,
    },
    { execution_id: e, node_id: "a", started_at: AT, attempt: 1, correlation_id: c },
    // A progress sample: correlation_id among the identity, nested objects after it.
    {
      execution_id: e,
      node_id: 'a,"correlation_id":"x"',
      attempt: 1,
      correlation_id: c,
      destination: { kind: "tempdb", table: "t" },
      timings_ms: { executing: 3 },
    },
    // A nested object naming the same correlation before the top-level one: kept whole there.
    { execution_id: e, node_id: "a", error: failure, correlation_id: c, failed_at: AT },
    { execution_id: e, node_id: "a", error: failure, after: 1, correlation_id: c, x: [1] },
    // Not the run's values: stored as they are.
    { execution_id: crypto.randomUUID(), pipeline_id: "other", correlation_id: "other" },
    { correlation_id: c },
    { pipeline_id: p, execution_id: e },
    {},
    ready,
  ];
  return data.map((d, i) => ({
    id: i + 1,
    event: i === 9 ? "data_ready" : "node_progress",
    data: d,
  }));
}

Deno.test("a cut payload is put back to the same JSON text", () => {
  const r = runningRecord({
    workspaceId: crypto.randomUUID(),
    pipelineId: crypto.randomUUID(),
    userId: crypto.randomUUID(),
  });
  const run: RunConstants = {
    execution_id: r.execution_id,
    pipeline_id: r.pipeline_id,
    correlation_id: r.correlation_id,
  };
  const all = frames(r);
  const whole = `[${all.map((f) => frameTuple(f, AT)).join(",")}]`;
  const cut = `[${all.map((f) => frameTuple(f, AT, run)).join(",")}]`;
  ok(cut.length < whole.length - 8 * 36, `${cut.length} < ${whole.length}`);
  for (const text of [whole, cut]) {
    const back = parseBatch(text, run);
    deepEqual(back.map((f) => JSON.stringify(f.data)), all.map((f) => JSON.stringify(f.data)));
    deepEqual(back.map((f) => f.observedAt), all.map(() => AT));
  }
});

forEachStore(
  "replayed frames are the streamed ones, key for key, in the cut layout and in the one before",
  async (db) => {
    const repo = new ExecutionRepo(db);
    const shared = new MemoryStore();
    try {
      const ids = await addRunRows(db);
      // Through the journal: the cut layout.
      const cutRun = runningRecord(ids);
      const sink = new DurableSink(repo, shared, "instance-a");
      await sink.started(cutRun);
      const streamed = frames(cutRun);
      for (const f of streamed) await sink.event(cutRun.execution_id, f);
      await sink.finished(succeeded(cutRun));
      // As the release before stored them: whole payloads.
      const oldRun = runningRecord(ids);
      await repo.insert(oldRun, "instance-a", AT);
      const oldFrames = frames(oldRun);
      const batch = new FrameBatch(oldRun.execution_id);
      for (const f of oldFrames) batch.add(f.id, frameTuple(f, AT), AT);
      const row = batch.row();
      await db.execute(
        `INSERT INTO execution_events (${row.columns}) VALUES ($1, $2, $3, $4, $5, $6)`,
        row.values,
      );
      const text = (fs: EventFrame[]) =>
        fs.map((f) => `${f.id} ${f.event} ${JSON.stringify(f.data)}`);
      for (const [run, sent] of [[cutRun, streamed], [oldRun, oldFrames]] as const) {
        deepEqual(text(await repo.events(run.execution_id)), text(sent));
        deepEqual(text(await repo.events(run.execution_id, 4)), text(sent.slice(4)));
      }
      const size = async (id: string) =>
        (await db.first<{ data: string }>(
          `SELECT data FROM execution_events WHERE execution_id = $1`,
          [id],
        ))!.data.length;
      const [cut, whole] = [await size(cutRun.execution_id), await size(oldRun.execution_id)];
      ok(cut < whole - 8 * 36, `${cut} < ${whole}`);
      equal(await repo.lastEventId(cutRun.execution_id), streamed.length);
    } finally {
      await shared.close();
    }
  },
);
