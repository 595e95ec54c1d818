/**
 * The metadata-store rows of one published-endpoint serve, as every serve keeps them
 * (docs/endpoints.md#what-a-serve-costs): a run's record, its eleven frames (six progress samples
 * and a `data_ready` with the first page), its final record and its `endpoint.served` audit row,
 * queued through the store's group commit in the order and phases a real serve queues them. Shared
 * by the probes that price these writes (`serve_writes.ts`, `floor_with_rows.ts`).
 */
import { auditRow } from "../src/audit/mod.ts";
import type { ExecutionJournal } from "../src/executions/journal.ts";
import { frameJson, payloadJson } from "../src/executions/frame_json.ts";
import { type addRunRows, runningRecord } from "../src/executions/test_fixtures.ts";
import type { EventFrame } from "../src/executions/event_order.ts";
import type { ExecutionRecord } from "../src/executions/types.ts";
import { type Db, groupCommit, type Queryable } from "../src/store/mod.ts";

type Store = Queryable & Partial<Pick<Db, "transaction">>;
type RunRowIds = Awaited<ReturnType<typeof addRunRows>>;

/**
 * A store that writes nothing and reads nothing: a probe's floor, or its ablation of the writes.
 * Its transaction runs the work against itself.
 */
export const NO_STORE = {
  dialect: "sqlite" as const,
  execute: () => Promise.resolve(1),
  query: () => Promise.resolve([]),
  first: () => Promise.resolve(undefined),
  transaction: <T>(fn: (q: Queryable) => Promise<T>): Promise<T> => fn(NO_STORE),
};

/** Rows in the shape of the issue-13 query's, for a probe that runs no query. */
export const ORDER_ROWS = Array.from({ length: 50 }, (_, i) => ({
  order_id: 1000000 + i * 20000,
  customer_id: 42,
  placed_at: new Date(Date.now() - i * 60_000).toISOString(),
  status: "paid",
  amount: "12.34",
}));

/** The frames the issue-13 endpoint's run emits, in its shapes and sizes. */
function frames(r: ExecutionRecord, rows: unknown[]): EventFrame[] {
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
    rows_out: rows.length,
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
        rows_out: rows.length,
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
        rows,
        row_count: rows.length,
        total_rows: rows.length,
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

export interface ServeRowsTarget {
  /** Where the rows go (the store, or a stand-in that writes nothing). */
  store: Store;
  journal: ExecutionJournal;
  ids: RunRowIds;
  /** Each phase's frames as one row of an `execution_chunks` table the caller made. */
  chunked?: boolean;
}

const now = () => new Date().toISOString();

function finalRecord(record: ExecutionRecord, fs: EventFrame[], rows: unknown[]) {
  return {
    ...record,
    status: "SUCCESS" as const,
    completed_at: now(),
    duration_ms: 48,
    node_stats: fs[9].data.node_stats as ExecutionRecord["node_stats"],
    result_row_count: rows.length,
    result_size_bytes: 2893,
    result_expires_at: now(),
  };
}

function served(t: ServeRowsTarget, executionId: string): Promise<number> {
  return groupCommit(t.store).insert(auditRow({
    event: "endpoint.served",
    userId: t.ids.userId,
    provider: "local",
    workspaceId: t.ids.workspaceId,
    details: {
      key_id: "svc_k_0123456789",
      endpoint: "/orders/{customer_id}",
      execution_id: executionId,
      outcome: "ok",
    },
  }));
}

/**
 * One serve's writes, phase by phase (each phase's frames awaited before the next is queued),
 * with `rows` as the first page `data_ready` carries.
 */
export async function serveRows(t: ServeRowsTarget, rows: unknown[]): Promise<void> {
  const { ids, journal, chunked } = t;
  const record = runningRecord(ids, { triggered_via: "ENDPOINT", parameters: { customer_id: 42 } });
  const id = record.execution_id;
  const fs = frames(record, rows);
  await journal.insert(record, "instance-a", now());
  for (const phase of [[0, 1], [2, 3], [4, 5], [6, 7, 8], [9, 10]]) {
    if (chunked) {
      const text = phase.map((i) =>
        `{"id":${fs[i].id},"event":${JSON.stringify(fs[i].event)},"data":${frameJson(fs[i])}}`
      );
      await groupCommit(t.store).insert({
        table: "execution_chunks",
        columns: "execution_id, first_event_id, last_event_id, frames, observed_at",
        values: [id, fs[phase[0]].id, fs[phase.at(-1)!].id, `[${text.join(",")}]`, now()],
      }, { chain: id, follows: true });
    } else await Promise.all(phase.map((i) => journal.event(id, fs[i], now())));
  }
  await journal.finish(finalRecord(record, fs, rows));
  await served(t, id);
}

/**
 * One serve around `read`, waiting where a serve waits: its record is stored before the first
 * frame; the frames before the read (the run's start, the node's start, its first two samples)
 * and after it are queued without waiting; the answer waits for the final record, queued behind
 * the last frame, then for the `endpoint.served` row. Answers `data_ready`'s payload as JSON
 * text, made once for the journal and the answer, as the endpoint does.
 */
export async function serveAround(
  t: ServeRowsTarget,
  read: () => Promise<unknown[]>,
): Promise<string> {
  const record = runningRecord(t.ids, {
    triggered_via: "ENDPOINT",
    parameters: { customer_id: 42 },
  });
  const id = record.execution_id;
  await t.journal.insert(record, "instance-a", now());
  const queued = frames(record, []).slice(0, 4).map((f) => t.journal.event(id, f, now()));
  const rows = await read();
  const fs = frames(record, rows);
  for (const f of fs.slice(4)) queued.push(t.journal.event(id, f, now()));
  await Promise.all([...queued, t.journal.finish(finalRecord(record, fs, rows))]);
  await served(t, id);
  return payloadJson(fs[10].data);
}
