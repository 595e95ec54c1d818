/**
 * `deno task growth:long [RUNS] [SAMPLES]`: what a long run with many progress samples leaves in
 * the executions tables, on SQLite and on PostgreSQL: RUNS runs of one node through the real
 * durable sink (journal, group commit, store), each emitting SAMPLES `node_progress` samples made
 * by the real sampler, a second apart on the run's clock. Each sample is awaited before the next,
 * as a second between samples makes them: one commit batch per sample, each written into the run's
 * last frames row while that row is small (frame_batch.ts).
 * Prints rows and bytes per run just stored, as docs/operations.md and docs/benchmarks.md quote.
 */
import { MemoryStore } from "../src/shared/mod.ts";
import { migrate } from "../src/store/mod.ts";
import { NodeProgress } from "../src/executions/progress.ts";
import { ExecutionRepo } from "../src/executions/repo.ts";
import { DurableSink } from "../src/executions/sink.ts";
import { addRunRows, runningRecord, succeeded } from "../src/executions/test_fixtures.ts";
import { freshStore, STORE_KINDS } from "../tests/support/stores.ts";
import type { Db } from "../src/store/mod.ts";

const runs = Number(Deno.args[0] ?? 20);
const samples = Number(Deno.args[1] ?? 300);

async function tableBytes(db: Db): Promise<number> {
  const n = async (sql: string) => Number((await db.first<{ n: unknown }>(sql))?.n ?? 0);
  if (db.dialect === "postgres") {
    await db.execute("VACUUM FULL execution_events");
    await db.execute("VACUUM FULL executions");
    return await n(
      `SELECT pg_total_relation_size('executions') + pg_total_relation_size('execution_events') AS n`,
    );
  }
  await db.query("PRAGMA wal_checkpoint(TRUNCATE)");
  return await n(`SELECT SUM(pgsize - unused) AS n FROM dbstat WHERE name IN (
    SELECT name FROM sqlite_master WHERE tbl_name IN ('executions', 'execution_events'))`);
}

async function measure(kind: (typeof STORE_KINDS)[number]) {
  const store = await freshStore(kind);
  const shared = new MemoryStore();
  try {
    const db = await store.open();
    await migrate(db);
    const ids = await addRunRows(db);
    const before = await tableBytes(db);
    const sink = new DurableSink(new ExecutionRepo(db), shared, "growth");
    let clock = Date.now();
    for (let r = 0; r < runs; r++) {
      const record = runningRecord(ids);
      const id = record.execution_id;
      const base = { execution_id: id, correlation_id: record.correlation_id };
      let next = 1;
      const emit = (event: string, data: Record<string, unknown>) =>
        sink.event(id, { id: next++, event, data });
      await sink.started(record);
      await emit("execution_started", {
        execution_id: id,
        pipeline_id: record.pipeline_id,
        pipeline_version: 1,
        started_at: record.started_at,
        parameters: {},
        correlation_id: record.correlation_id,
      });
      await emit("node_started", {
        execution_id: id,
        node_id: "load",
        started_at: record.started_at,
        attempt: 1,
        correlation_id: record.correlation_id,
      });
      const progress = new NodeProgress({
        emit: (data) => emit("node_progress", data),
        clock: () => clock,
        intervalMs: 1000,
        identity: { ...base, node_id: "load", attempt: 1, correlation_id: record.correlation_id! },
        operation: "materialize",
        destination: { kind: "tempdb", table: "load" },
      });
      await progress.enter("executing");
      for (let s = 0; s < samples - 2; s++) {
        clock += 1000;
        await progress.add({ rows_fetched: 10_000, rows_written: 10_000, batches_written: 1 });
      }
      await progress.end("completed", { committed: true });
      await emit("node_completed", {
        execution_id: id,
        node_id: "load",
        rows_out: 10_000 * samples,
        correlation_id: record.correlation_id,
      });
      await emit("pipeline_completed", {
        execution_id: id,
        pipeline_id: record.pipeline_id,
        pipeline_version: 1,
        status: "SUCCESS",
        node_stats: [],
        correlation_id: record.correlation_id,
      });
      await sink.finished(succeeded(record));
    }
    const rows = Number(
      (await db.first<{ n: unknown }>("SELECT COUNT(*) AS n FROM execution_events"))?.n,
    );
    const bytes = await tableBytes(db);
    console.log(
      `| ${kind} | ${runs} | ${samples} | ${(rows / runs).toFixed(1)} | ` +
        `${((bytes - before) / runs / 1024).toFixed(1)} KB | ` +
        `${((bytes - before) / runs / samples).toFixed(0)} B |`,
    );
  } finally {
    await shared.close();
    await store.dispose();
  }
}

console.log("| store | runs | samples per run | event rows per run | bytes per run | per sample |");
console.log("|---|---|---|---|---|---|");
for (const kind of STORE_KINDS) await measure(kind);
