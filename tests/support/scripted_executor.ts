/**
 * A stand-in for the executor (built on the `executor` branch) for the executions service's own
 * tests: it honours the contract of src/executions/types.ts — record to `started`, every frame in
 * order to `event`, the final record to `finished`, a handle whose `events()` replays then follows
 * — and runs a one-node pipeline whose caller result goes to the real result store. Each run
 * holds at its node until the test opens `release(id)` or the run is cancelled, so tests decide
 * when a run ends without sleeping. Replace with the real executor once it is merged.
 */
import { AppError } from "../../src/errors/mod.ts";
import type { EventFrame } from "../../src/executions/event_order.ts";
import type { ResultStore } from "../../src/executions/result_store.ts";
import type { ExecutorPort, PreparedRun } from "../../src/executions/service.ts";
import type {
  AbortReason,
  ExecutionHandle,
  ExecutionRecord,
  ExecutionRequest,
  ExecutionSink,
} from "../../src/executions/types.ts";
import type { Db } from "../../src/store/mod.ts";

export class ScriptedExecutor implements ExecutorPort {
  /** Filled in after the runtime exists (the result store is built by it). */
  results?: ResultStore;
  db?: Db;
  readonly requests: ExecutionRequest[] = [];
  readonly #gates = new Map<string, () => void>();
  readonly #waiting = new Map<string, Promise<void>>();
  /** Rows each run delivers to the caller. */
  rows: (bigint | string | number)[][] = [[1n, "a", 1.5], [2n, "b,c", 2.5], [3n, 'q"d', 3.5]];

  #gate(id: string): Promise<void> {
    let p = this.#waiting.get(id);
    if (!p) {
      p = new Promise<void>((resolve) => this.#gates.set(id, resolve));
      this.#waiting.set(id, p);
    }
    return p;
  }

  /** Lets run `id` finish (before or after it reached its node). */
  release(id: string): void {
    void this.#gate(id);
    this.#gates.get(id)!();
  }

  async prepare(request: ExecutionRequest): Promise<PreparedRun> {
    const row = await this.db!.first<{ id: string }>(
      `SELECT id FROM pipelines WHERE id = $1 AND workspace_id = $2`,
      [request.pipelineId, request.workspaceId],
    );
    if (!row) {
      throw new AppError("pipeline.not_found", {
        pipeline_id: request.pipelineId,
        reason: "no such pipeline in this workspace",
      });
    }
    this.requests.push(request);
    return { run: (sink) => this.#run(request, sink) };
  }

  #run(req: ExecutionRequest, sink: ExecutionSink): ExecutionHandle {
    const frames: EventFrame[] = [];
    let ended = false;
    let wake: (() => void)[] = [];
    let cancelled: AbortReason | undefined;
    let onCancel: () => void = () => {};
    const cancelledSignal = new Promise<void>((resolve) => onCancel = resolve);
    const base = { execution_id: req.executionId, correlation_id: req.correlationId };
    const started = new Date().toISOString();
    const record: ExecutionRecord = {
      execution_id: req.executionId,
      workspace_id: req.workspaceId,
      pipeline_id: req.pipelineId,
      pipeline_version: req.version ?? 1,
      status: "RUNNING",
      draft_run: false,
      parameters: req.parameters,
      started_at: started,
      completed_at: null,
      duration_ms: null,
      node_stats: null,
      error: null,
      failed_node_id: null,
      correlation_id: req.correlationId,
      triggered_by: req.triggeredBy,
      triggered_via: req.triggeredVia,
      result_row_count: null,
      result_size_bytes: null,
      result_expires_at: null,
      parent_execution_id: null,
      parent_node_id: null,
      root_execution_id: req.executionId,
      abort_reason: null,
    };
    let id = 0;
    const emit = async (event: string, data: Record<string, unknown>) => {
      const frame = { id: ++id, event, data: { ...base, ...data } };
      await sink.event(req.executionId, frame);
      frames.push(frame);
      for (const w of wake) w();
      wake = [];
    };
    const recorded = Promise.withResolvers<void>();
    const run = async (): Promise<ExecutionRecord> => {
      await sink.started(record).finally(() => recorded.resolve());
      await emit("execution_started", {
        pipeline_id: req.pipelineId,
        pipeline_version: record.pipeline_version,
        started_at: started,
        parameters: req.parameters,
      });
      await emit("node_started", { node_id: "report", attempt: 1, started_at: started });
      const progress = (sequence: number, state: string) =>
        emit("node_progress", {
          node_id: "report",
          attempt: 1,
          sequence,
          state,
          operation: "stage",
          destination: { kind: "caller" },
          observed_at: new Date().toISOString(),
        });
      await progress(1, "executing");
      await Promise.race([
        this.#gate(req.executionId),
        cancelledSignal,
      ]);
      const completedAt = new Date().toISOString();
      const duration = Date.now() - Date.parse(started);
      if (cancelled) {
        await progress(2, "aborted");
        const stats = [{
          node_id: "report",
          duration_ms: duration,
          rows_out: null,
          bytes_out: null,
          status: "ABORTED" as const,
        }];
        await emit("execution_aborted", {
          pipeline_id: req.pipelineId,
          aborted_at: completedAt,
          reason: cancelled,
          status: "ABORTED",
          node_stats: stats,
        });
        return {
          ...record,
          status: "ABORTED",
          completed_at: completedAt,
          duration_ms: duration,
          node_stats: stats,
          abort_reason: cancelled,
        };
      }
      const writer = this.results!.writer(req.executionId, [
        { name: "id", type: "bigint", source_type: "BIGINT", nullable: false },
        { name: "label", type: "string", source_type: "VARCHAR", nullable: true },
        { name: "amount", type: "double", source_type: "DOUBLE", nullable: true },
      ], req.resultTtlSeconds);
      await writer.append(this.rows);
      const result = await writer.finish();
      await progress(2, "completed");
      const stats = [{
        node_id: "report",
        duration_ms: duration,
        rows_out: result.row_count,
        bytes_out: result.size_bytes,
        status: "SUCCESS" as const,
      }];
      await emit("node_completed", { node_id: "report", rows_out: result.row_count });
      await emit("pipeline_completed", {
        pipeline_id: req.pipelineId,
        status: "SUCCESS",
        node_stats: stats,
      });
      const page = await this.results!.page(req.executionId, 0, req.pageRows);
      await emit("data_ready", {
        pipeline_id: req.pipelineId,
        schema: result.schema,
        rows: page!.rows,
        row_count: page!.rows.length,
        total_rows: result.row_count,
        has_more: page!.rows.length < result.row_count,
        result_url: `/api/v1/executions/${req.executionId}/result`,
        expires_at: result.expires_at,
        ttl_seconds: req.resultTtlSeconds,
        warnings: [],
      });
      return {
        ...record,
        status: "SUCCESS",
        completed_at: completedAt,
        duration_ms: duration,
        node_stats: stats,
        result_row_count: result.row_count,
        result_size_bytes: result.size_bytes,
        result_expires_at: result.expires_at,
      };
    };
    const close = () => {
      ended = true;
      for (const w of wake) w();
    };
    // Like the real executor: the stream closes first, the final record is written after.
    const done = run().then(async (final) => {
      close();
      await sink.finished(final);
      return final;
    }).finally(close);
    return {
      executionId: req.executionId,
      record,
      done,
      recorded: recorded.promise,
      cancel(reason) {
        if (ended || cancelled) return;
        cancelled = reason;
        onCancel();
      },
      async *events() {
        let next = 0;
        for (;;) {
          while (next < frames.length) yield frames[next++];
          if (ended) return;
          await new Promise<void>((resolve) => wake.push(resolve));
        }
      },
    };
  }
}
