/**
 * The metadata-store writes of one published-endpoint serve, alone: a run's record, its eleven
 * frames (six progress samples, a ~4 KB data_ready), its final record and its `endpoint.served`
 * audit row, through the instance's group commit on a fresh SQLite (or PostgreSQL) store, waves
 * of `concurrency` runs at once so a batch holds several runs' rows as under load. Prints CPU ms
 * per run: an A/B probe for the write path, steadier than the whole serve (bench/endpoint_cpu.ts).
 * Environment, for experiments: SETUP (statements run first, `;`-separated, e.g. a DROP INDEX),
 * NOOP=1 (a store that writes nothing: the probe's own floor), CHUNK=1 (each phase's frames as one
 * row of an `execution_chunks` table the probe makes: what a chunked journal could save at most,
 * since it skips the per-frame queue entries too). On SQLite it also prints the database's pages.
 *
 *   deno run -A bench/serve_writes.ts [runs] [concurrency] [sqlite|postgres]
 */
import process from "node:process";
import { auditRow } from "../src/audit/mod.ts";
import { ExecutionJournal } from "../src/executions/journal.ts";
import { frameJson } from "../src/executions/frame_json.ts";
import { addRunRows, runningRecord } from "../src/executions/test_fixtures.ts";
import type { EventFrame } from "../src/executions/event_order.ts";
import type { ExecutionRecord } from "../src/executions/types.ts";
import { groupCommit, migrate } from "../src/store/mod.ts";
import { freshStore, type StoreKind } from "../tests/stores.ts";

const runs = Number(Deno.args[0] ?? 3000);
const concurrency = Number(Deno.args[1] ?? 24);
const kind = (Deno.args[2] ?? "sqlite") as StoreKind;

const store = await freshStore(kind);
const db = await store.open();
await migrate(db);
const ids = await addRunRows(db);
for (const q of (Deno.env.get("SETUP") ?? "").split(";").filter(Boolean)) await db.execute(q);
// CHUNK=1, an experiment: the frames of one phase (one batch) as one row of a chunk table.
const chunked = Boolean(Deno.env.get("CHUNK"));
if (chunked) {
  await db.execute(`CREATE TABLE execution_chunks (
    execution_id TEXT NOT NULL REFERENCES executions (id) ON DELETE CASCADE,
    first_event_id INTEGER NOT NULL, last_event_id INTEGER NOT NULL, frames TEXT NOT NULL,
    observed_at TEXT NOT NULL, PRIMARY KEY (execution_id, first_event_id))`);
}
const noop = {
  dialect: "sqlite" as const,
  execute: () => Promise.resolve(1),
  query: () => Promise.resolve([]),
  first: () => Promise.resolve(undefined),
  transaction: <T>(fn: (q: never) => Promise<T>) => fn(noop as never),
};
const target = Deno.env.get("NOOP") ? noop : db;
const journal = new ExecutionJournal(target, () => {});

const ROWS = Array.from({ length: 50 }, (_, i) => ({
  order_id: 1000000 + i * 20000,
  customer_id: 42,
  placed_at: new Date(Date.now() - i * 60_000).toISOString(),
  status: "paid",
  amount: "12.34",
}));

/** The frames the issue-13 endpoint's run emits, in its shapes and sizes. */
function frames(r: ExecutionRecord): EventFrame[] {
  const base = { execution_id: r.execution_id };
  const correlation_id = r.correlation_id;
  const at = () => new Date().toISOString();
  const node = { ...base, node_id: "orders", attempt: 1, correlation_id };
  const states = [
    "connecting",
    "executing",
    "fetching",
    "waiting_output",
    "finalizing",
    "completed",
  ];
  const timings: Record<string, number> = {};
  const out: EventFrame[] = [
    {
      id: 1,
      event: "execution_started",
      data: {
        ...base,
        pipeline_id: r.pipeline_id,
        pipeline_version: 1,
        started_at: r.started_at,
        parameters: r.parameters,
        correlation_id,
      },
    },
    { id: 2, event: "node_started", data: { ...node, started_at: at() } },
  ];
  states.forEach((state, i) => {
    timings[state] = i * 3;
    out.push({
      id: 3 + i,
      event: "node_progress",
      data: {
        ...node,
        sequence: i + 1,
        operation: "materialize",
        destination: { kind: "caller" },
        state,
        started_at: r.started_at,
        observed_at: at(),
        elapsed_ms: i * 5,
        timings_ms: { ...timings },
        ...(i >= 2 ? { rows_fetched: 50, rows_written: 50, batches_written: 1 } : {}),
      },
    });
  });
  const stats = [{
    node_id: "orders",
    duration_ms: 43,
    rows_out: 50,
    bytes_out: 2893,
    status: "SUCCESS",
  }];
  out.push(
    {
      id: 9,
      event: "node_completed",
      data: {
        ...node,
        started_at: at(),
        completed_at: at(),
        duration_ms: 43,
        rows_out: 50,
        bytes_out: 2893,
      },
    },
    {
      id: 10,
      event: "pipeline_completed",
      data: {
        ...base,
        pipeline_id: r.pipeline_id,
        pipeline_version: 1,
        started_at: r.started_at,
        completed_at: at(),
        duration_ms: 48,
        status: "SUCCESS",
        node_stats: stats,
        correlation_id,
      },
    },
    {
      id: 11,
      event: "data_ready",
      data: {
        ...base,
        pipeline_id: r.pipeline_id,
        schema: ["order_id", "customer_id", "placed_at", "status", "amount"].map((name) => ({
          name,
          type: "string",
        })),
        rows: ROWS,
        row_count: 50,
        total_rows: 50,
        has_more: false,
        result_url: `/api/v1/executions/${r.execution_id}/result`,
        expires_at: at(),
        ttl_seconds: 300,
        warnings: [],
        correlation_id,
      },
    },
  );
  return out;
}

/** One serve's writes, phase by phase as the executor and the serve route issue them. */
async function serve(): Promise<void> {
  const record = runningRecord(ids, { triggered_via: "ENDPOINT", parameters: { customer_id: 42 } });
  const id = record.execution_id;
  const fs = frames(record);
  const now = () => new Date().toISOString();
  await journal.insert(record, "instance-a", now());
  for (const phase of [[0, 1], [2, 3], [4, 5], [6, 7, 8], [9, 10]]) {
    if (chunked) {
      const text = phase.map((i) =>
        `{"id":${fs[i].id},"event":${JSON.stringify(fs[i].event)},"data":${frameJson(fs[i])}}`
      );
      await groupCommit(target).insert({
        table: "execution_chunks",
        columns: "execution_id, first_event_id, last_event_id, frames, observed_at",
        values: [id, fs[phase[0]].id, fs[phase.at(-1)!].id, `[${text.join(",")}]`, now()],
      }, { chain: id, follows: true });
    } else await Promise.all(phase.map((i) => journal.event(id, fs[i], now())));
  }
  await journal.finish({
    ...record,
    status: "SUCCESS",
    completed_at: now(),
    duration_ms: 48,
    node_stats: fs[9].data.node_stats,
    result_row_count: 50,
    result_size_bytes: 2893,
    result_expires_at: now(),
  });
  await groupCommit(target).insert(auditRow({
    event: "endpoint.served",
    userId: ids.userId,
    provider: "local",
    workspaceId: ids.workspaceId,
    details: {
      key_id: "svc_k_0123456789",
      endpoint: "/orders/{customer_id}",
      execution_id: id,
      outcome: "ok",
    },
  }));
}

async function wave(n: number) {
  await Promise.all(Array.from({ length: n }, serve));
}

try {
  for (let i = 0; i < 20; i++) await wave(concurrency);
  const before = process.cpuUsage();
  const t0 = performance.now();
  for (let done = 0; done < runs; done += concurrency) await wave(concurrency);
  const cpu = process.cpuUsage(before);
  const ms = performance.now() - t0;
  console.log(
    `${kind}: ${((cpu.user + cpu.system) / 1000 / runs).toFixed(3)} ms CPU per serve (user ${
      (cpu.user / 1000 / runs).toFixed(3)
    }, system ${(cpu.system / 1000 / runs).toFixed(3)}), ${(ms / runs).toFixed(3)} ms wall ` +
      `(window ${t0.toFixed(0)}-${(t0 + ms).toFixed(0)} ms for cpuprofile_top.ts)`,
  );
  if (kind === "sqlite") {
    const pages = await db.first<{ n: number }>("SELECT page_count AS n FROM pragma_page_count");
    console.log(`database: ${pages?.n} pages`);
  }
} finally {
  await store.dispose();
}
