/**
 * Runs on the world's store through the real `DurableSink`, so a test checks what was stored as
 * well as what streamed: the stored record equals the live one, the stored frames equal the
 * streamed ones, and both pass the event-order checker. Also the assertion every failure-mode test
 * makes: one failure record in `node_failed`, `pipeline_failed` and the stored record.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { MemoryStore } from "../shared/mod.ts";
import { checkEventOrder, type EventFrame } from "./event_order.ts";
import type { Executor } from "./executor.ts";
import { drainStream, request, type World } from "./executor_fixtures.ts";
import type { FailureRecord } from "./failure.ts";
import { ExecutionRepo } from "./repo.ts";
import { DurableSink } from "./sink.ts";
import type { ExecutionHandle, ExecutionRecord, ExecutionRequest } from "./types.ts";

export interface StoredRun {
  frames: EventFrame[];
  byType: Map<string, EventFrame[]>;
  record: ExecutionRecord;
}

export class StoredRuns {
  readonly repo: ExecutionRepo;
  readonly sink: DurableSink;
  readonly #shared = new MemoryStore();

  constructor(readonly w: World) {
    this.repo = new ExecutionRepo(w.db);
    this.sink = new DurableSink(this.repo, this.#shared, "instance-test");
  }

  /** Prepares and starts a run; `executor` overrides the world's executor options. */
  async start(
    pipelineId: string,
    extra: Partial<ExecutionRequest> = {},
    executor?: Executor,
  ): Promise<ExecutionHandle> {
    const prepared = await (executor ?? this.w.executor()).prepare(
      request(this.w, pipelineId, extra),
    );
    return prepared.run(this.sink);
  }

  /** Drains a started run and checks the stored record and frames against the live ones. */
  async finish(
    handle: ExecutionHandle,
    options: { expectDataReady?: boolean; ms?: number } = {},
  ): Promise<StoredRun> {
    const live = await drainStream(handle, options);
    const stored = await this.repo.get(handle.executionId);
    ok(stored, "the record was stored");
    deepEqual(stored.record, live.record);
    const frames = await this.repo.events(handle.executionId);
    deepEqual(frames, live.frames);
    checkEventOrder(frames, { expectDataReady: options.expectDataReady });
    return { ...live, record: stored.record };
  }

  async run(
    pipelineId: string,
    extra: Partial<ExecutionRequest> = {},
    options: { expectDataReady?: boolean; ms?: number; executor?: Executor } = {},
  ): Promise<StoredRun> {
    return await this.finish(await this.start(pipelineId, extra, options.executor), options);
  }

  /** Runs a pipeline that must succeed and returns the rows its `data_ready` delivered. */
  async rows(
    pipelineId: string,
    extra: Partial<ExecutionRequest> = {},
    options: { ms?: number; executor?: Executor } = {},
  ): Promise<unknown[][]> {
    const run = await this.run(pipelineId, extra, { ...options, expectDataReady: true });
    equal(run.record.status, "SUCCESS", JSON.stringify(run.record.error));
    return run.byType.get("data_ready")![0].data.rows;
  }

  /** A child execution's stored record and ordered frames. */
  async child(executionId: string): Promise<{ record: ExecutionRecord; frames: EventFrame[] }> {
    const stored = await this.repo.get(executionId);
    ok(stored, `child ${executionId} was stored`);
    const frames = await this.repo.events(executionId);
    checkEventOrder(frames, { expectDataReady: false });
    return { record: stored.record, frames };
  }

  async close(): Promise<void> {
    await this.#shared.close();
  }
}

/**
 * The run failed with `code`: the same failure record in `pipeline_failed`, the stored record,
 * and (for a node failure) that node's `node_failed` and its `node_stats` row.
 */
export function assertFailed(run: StoredRun, code: string, nodeId: string | null): FailureRecord {
  equal(run.record.status, "FAILED", `expected FAILED with ${code}`);
  const failed = run.byType.get("pipeline_failed")![0].data;
  equal(failed.error.code, code, JSON.stringify(failed.error));
  equal(failed.failed_node_id, nodeId);
  deepEqual(run.record.error, failed.error);
  equal(run.record.failed_node_id, nodeId);
  deepEqual(failed.node_stats, run.record.node_stats);
  const nodeFailed = run.byType.get("node_failed") ?? [];
  if (nodeId === null) {
    equal(nodeFailed.length, 0, "a setup failure has no node_failed");
  } else {
    equal(nodeFailed.length, 1);
    equal(nodeFailed[0].data.node_id, nodeId);
    deepEqual(nodeFailed[0].data.error, failed.error);
    const stat = run.record.node_stats!.find((s) => s.node_id === nodeId)!;
    equal(stat.status, "FAILED");
    equal(stat.error_code, code);
  }
  return failed.error as FailureRecord;
}
