/**
 * One execution from `execution_started` to its terminal sequence
 * (docs/executions.md#how-a-pipeline-runs): calculators first, then the DAG with independent
 * branches in parallel (bounded by `settings.max_parallel_nodes`), fail-fast. The first failure, or
 * a cancel, aborts the shared signal: nodes not started get no events, running ones are interrupted
 * on the server and end with a terminal `aborted` sample. A run on the lean path (lean.ts) is this
 * same run with its one node started directly and its frames handed straight to the sink.
 */
import { AppError } from "../errors/mod.ts";
import { newId } from "../lib/ids.ts";
import { inSpan } from "../lib/tracing.ts";
import { isoAt } from "../lib/time.ts";
import { isCallerNode, type PipelineNode, topologicalOrder } from "../pipelines/mod.ts";
import { EventBus } from "./bus.ts";
import { TERMINAL_EVENTS } from "./event_order.ts";
import type { Executor, Prepared, RunOptions } from "./executor.ts";
import { type FailureRecord, failureRecord } from "./failure.ts";
import { keepPayloadJson } from "./frame_json.ts";
import { type FrameOutlet, runsLean, SinkOutlet } from "./lean.ts";
import { runCalculatorNode } from "./nodes/calculator.ts";
import type { CallerOutput, NodeFacts, RunContext } from "./nodes/context.ts";
import { evidenceOf } from "./nodes/writeback.ts";
import { NodeProgress } from "./progress.ts";
import { initialRecord, meterEnded, plan, resultOutput, RUNNERS, stat } from "./run_support.ts";
import { type JsonCell, storageUnavailable, type StoredResult } from "./result_store.ts";
import { EndedElsewhere } from "./sink.ts";
import { DuckdbStaging, type Staging } from "./staging.ts";
import { SqliteStaging } from "./staging_sqlite.ts";
import type {
  AbortReason,
  ExecutionHandle,
  ExecutionRecord,
  ExecutionSink,
  NodeStat,
} from "./types.ts";

export class Execution {
  readonly #executor: Executor;
  readonly #prepared: Prepared;
  readonly #sink: ExecutionSink;
  readonly #options: RunOptions;
  readonly #bus: FrameOutlet;
  /** Set on the lean path (lean.ts): the outlet that hands the frames back whole. */
  readonly #lean: SinkOutlet | undefined;
  readonly #controller = new AbortController();
  readonly #stats = new Map<string, NodeStat>();
  readonly #record: ExecutionRecord;
  readonly #params: Record<string, unknown>;
  #staging: Staging | undefined;
  #failure: { record: FailureRecord; nodeId: string | null } | undefined;
  #abortReason: AbortReason | undefined;
  #stored: StoredResult | undefined;
  /** The stored result's first rows, as the writer stored them (see `ResultWriter.head`). */
  #head: readonly JsonCell[][] = [];
  /** `#head`'s JSON text as stored, reused in data_ready's (see frame_json.ts). */
  #headJson: string | undefined;
  #adopted: EndedElsewhere | undefined;
  /** The final record, once handed to the sink (see `#queueFinish`). */
  #finishing: Promise<void> | undefined;
  readonly #recorded = Promise.withResolvers<void>();

  constructor(executor: Executor, prepared: Prepared, sink: ExecutionSink, options: RunOptions) {
    this.#executor = executor;
    this.#prepared = prepared;
    this.#sink = sink;
    this.#options = options;
    const r = prepared.request;
    const refused = (error: unknown) => {
      if (error instanceof EndedElsewhere) this.#endedElsewhere(error);
    };
    this.#lean = options.lean && runsLean(prepared.body, sink, options.delivery !== undefined)
      ? new SinkOutlet(r.executionId, sink, refused)
      : undefined;
    this.#bus = this.#lean ?? new EventBus(r.executionId, sink, refused);
    this.#params = { ...prepared.parameters };
    this.#record = initialRecord(prepared, this.#iso());
  }

  start(): ExecutionHandle {
    const r = this.#prepared.request;
    // A child of the request's span when started by one; every node's span is a child of this.
    const done = inSpan("execution", {
      "svc.execution_id": r.executionId,
      "svc.pipeline_id": r.pipelineId,
      "svc.trigger": r.triggeredVia,
      "svc.correlation_id": r.correlationId,
    }, () => this.#main());
    const record = () => this.#record;
    return {
      executionId: this.#record.execution_id,
      get record() {
        return record();
      },
      events: () => this.#bus.subscribe(),
      cancel: (reason) => this.#cancel(reason),
      done,
      recorded: this.#recorded.promise,
      // Closed before `done` settles, so these are all the run's frames by then.
      ...(this.#lean ? { settled: done.then(() => this.#lean!.frames) } : {}),
    };
  }

  get #o() {
    return this.#executor.options;
  }

  #now(): number {
    return this.#o.clock();
  }

  #iso(at = this.#now()): string {
    return isoAt(at);
  }

  #emit(event: string, data: Record<string, unknown>): Promise<void> {
    return this.#send(event, {
      execution_id: this.#record.execution_id,
      ...data,
      correlation_id: this.#record.correlation_id,
    });
  }

  /** A frame whose data already names the execution and correlation (a progress sample). */
  #send(event: string, data: Record<string, unknown>): Promise<void> {
    return this.#bus.emit(event, data);
  }

  /**
   * The store already holds this run's ending (another instance reaped it during a stall): the
   * run stops, and that ending is the one its stream and record carry.
   */
  #endedElsewhere(ended: EndedElsewhere): void {
    if (this.#adopted) return;
    this.#adopted = ended;
    this.#abortReason = ended.record.abort_reason ?? "shutdown";
    this.#controller.abort(new DOMException("the execution was ended elsewhere", "AbortError"));
  }

  #cancel(reason: AbortReason): void {
    if (this.#record.status !== "RUNNING" || this.#controller.signal.aborted) return;
    this.#abortReason = reason;
    this.#controller.abort(new DOMException(`execution ${reason}`, "AbortError"));
  }

  /** The first failure wins; it aborts every other node. */
  #fail(record: FailureRecord, nodeId: string | null): void {
    if (this.#failure || this.#abortReason) return;
    this.#failure = { record, nodeId };
    this.#controller.abort(new DOMException("a node failed", "AbortError"));
  }

  #setupFailure(error: unknown): void {
    this.#fail(
      failureRecord(error, {
        detail: this.#o.errorDetail,
        baseUrl: this.#o.baseUrl,
        correlationId: this.#record.correlation_id!,
        values: Object.values(this.#params),
      }),
      null,
    );
  }

  async #main(): Promise<ExecutionRecord> {
    const startedAt = Date.parse(this.#record.started_at);
    this.#o.meter?.executionStarted(this.#record.triggered_via);
    try {
      // A queueing sink stores the record ahead of the frames in the same chain, so the run does
      // not wait for it (docs/decisions.md#every-event-is-durable): a refusal reaches the run
      // through its frames. A caller that hands the id out early awaits `recorded`.
      const recorded = this.#sink.started({ ...this.#record })
        .finally(() => this.#recorded.resolve());
      if (this.#sink.pipelined) recorded.catch(() => {});
      else await recorded;
      await this.#emit("execution_started", {
        pipeline_id: this.#record.pipeline_id,
        pipeline_version: this.#record.pipeline_version,
        started_at: this.#record.started_at,
        parameters: this.#record.parameters,
      });
      if (this.#lean) {
        // One read and nothing else: no calculators, no graph to schedule.
        if (!this.#controller.signal.aborted) await this.#runNode(this.#prepared.body.nodes[0]);
      } else {
        await this.#runCalculators();
        if (!this.#controller.signal.aborted) await this.#runGraph();
      }
      if (!this.#controller.signal.aborted) await this.#complete(startedAt);
    } catch (error) {
      this.#setupFailure(error);
    }
    try {
      if (!this.#adopted && this.#record.status === "RUNNING") await this.#terminal(startedAt);
    } catch (error) {
      // The sink broke while recording the end: the record still says how it ended.
      if (!this.#failure) this.#setupFailure(error);
    } finally {
      await this.#staging?.close().catch(() => {});
      await this.#bus.drain();
      if (this.#adopted) this.#adopt(this.#adopted);
      this.#bus.close();
      await (this.#finishing ?? this.#sink.finished({ ...this.#record })).catch(() => {});
      if (this.#o.meter) meterEnded(this.#o.meter, this.#prepared, this.#record);
    }
    return this.#record;
  }

  async #runCalculators(): Promise<void> {
    const calculators = topologicalOrder(this.#prepared.body.nodes)
      .filter((n) => n.type === "CALCULATOR");
    for (const node of calculators) {
      if (this.#controller.signal.aborted) return;
      const started = this.#now();
      const base = { node_id: node.id, started_at: this.#iso(started) };
      await this.#emit("node_started", { ...base, attempt: 1 });
      try {
        await this.#nodeSpan(
          node,
          // A calculator throws synchronously; the span takes its refusal as a rejection.
          () =>
            Promise.resolve().then(() => runCalculatorNode(node, this.#params, this.#o.today())),
        );
      } catch (error) {
        await this.#nodeFailed(node, started, error, { failed: { id: node.id, type: node.type } });
        return;
      }
      const completed = this.#now();
      await this.#emit("node_completed", {
        ...base,
        completed_at: this.#iso(completed),
        duration_ms: completed - started,
        rows_out: null,
        bytes_out: null,
      });
      this.#stats.set(node.id, stat(node.id, completed - started, null, null, "SUCCESS"));
    }
  }

  async #runGraph(): Promise<void> {
    const nodes = topologicalOrder(this.#prepared.body.nodes).filter((n) =>
      n.type !== "CALCULATOR"
    );
    const succeeded = new Set(this.#stats.keys());
    const waiting = new Map(nodes.map((n) => [n.id, n]));
    const running = new Map<string, Promise<void>>();
    const limit = this.#prepared.body.settings.max_parallel_nodes;
    while (true) {
      if (!this.#controller.signal.aborted) {
        for (const node of waiting.values()) {
          if (running.size >= limit) break;
          if (!(node.depends_on ?? []).every((d) => succeeded.has(d))) continue;
          waiting.delete(node.id);
          const task = this.#runNode(node).then((ok) => {
            running.delete(node.id);
            if (ok) succeeded.add(node.id);
          }, (error) => {
            // Only a broken sink gets here (a node's own errors end in its events).
            running.delete(node.id);
            this.#setupFailure(error);
          });
          running.set(node.id, task);
        }
      }
      if (running.size === 0) break;
      await Promise.race(running.values());
    }
    // Nodes that never started: aborted, with no events of their own.
    for (const node of waiting.values()) {
      this.#stats.set(node.id, stat(node.id, null, null, null, "ABORTED"));
    }
  }

  /** A node's work inside its span (`node DQL`), a child of the execution's. */
  #nodeSpan<T>(node: PipelineNode, fn: () => Promise<T>): Promise<T> {
    const attributes = {
      "svc.node_id": node.id,
      "svc.node_type": node.type,
      "svc.execution_id": this.#record.execution_id,
    };
    return inSpan(`node ${node.type}`, attributes, fn);
  }

  /** Runs one node through its terminal events; true when it succeeded. */
  async #runNode(node: PipelineNode): Promise<boolean> {
    const started = this.#now();
    const base = { node_id: node.id, started_at: this.#iso(started) };
    const facts: NodeFacts = { failed: { id: node.id, type: node.type } };
    let progress: NodeProgress | undefined;
    try {
      await this.#emit("node_started", { ...base, attempt: 1 });
      progress = new NodeProgress({
        // The sample leads with the identity #emit would write (execution_id first,
        // correlation_id among it), so it goes out as built, not copied again.
        emit: (data) => this.#send("node_progress", data),
        clock: this.#o.clock,
        intervalMs: this.#o.progressIntervalSeconds * 1000,
        identity: {
          execution_id: this.#record.execution_id,
          node_id: node.id,
          attempt: 1,
          correlation_id: this.#record.correlation_id!,
        },
        ...plan(node, this.#options.delivery !== undefined),
      });
      const run = RUNNERS[node.type];
      const outcome = await this.#nodeSpan(
        node,
        () => run(this.#context(), node, progress!, facts),
      );
      await progress.end("completed", outcome.evidence ?? {});
      const completed = this.#now();
      await this.#emit("node_completed", {
        ...base,
        completed_at: this.#iso(completed),
        duration_ms: completed - started,
        rows_out: outcome.rows_out,
        bytes_out: outcome.bytes_out,
        ...(outcome.child_execution_id ? { child_execution_id: outcome.child_execution_id } : {}),
      });
      this.#stats.set(
        node.id,
        stat(node.id, completed - started, outcome.rows_out, outcome.bytes_out, "SUCCESS"),
      );
      return true;
    } catch (error) {
      const evidence = evidenceOf(error) ?? facts.evidence ?? {};
      if (this.#controller.signal.aborted) {
        await progress?.end("aborted", evidence).catch(() => {});
        const rows = progress?.counts.rows_written ?? null;
        this.#stats.set(node.id, stat(node.id, this.#now() - started, rows, null, "ABORTED"));
        return false;
      }
      // A sink that broke mid-node fails the run with its own error; the events it could not
      // take still reach live readers.
      await this.#nodeFailed(node, started, error, facts, progress, evidence).catch(() => {});
      return false;
    }
  }

  async #nodeFailed(
    node: PipelineNode,
    started: number,
    error: unknown,
    facts: NodeFacts,
    progress?: NodeProgress,
    evidence: { committed?: boolean; rolled_back?: boolean } = {},
  ): Promise<void> {
    const failure = failureRecord(error, {
      detail: this.#o.errorDetail,
      baseUrl: this.#o.baseUrl,
      correlationId: this.#record.correlation_id!,
      node: facts.failed,
      sql: facts.sql,
      values: Object.values(this.#params),
    });
    // Claimed before any await, so a second failing branch ends as aborted, not failed.
    this.#fail(failure, node.id);
    const failedAt = this.#now();
    this.#stats.set(node.id, {
      ...stat(node.id, failedAt - started, progress?.counts.rows_written ?? null, null, "FAILED"),
      error_code: failure.code,
    });
    // A sink that refuses the sample refuses node_failed too: that emit raises it, after the
    // frame went to live readers and to the sink, which keeps it for the run's stored ending.
    await progress?.end("failed", {
      committed: evidence.committed,
      rolled_back: evidence.rolled_back,
    }).catch(() => {});
    await this.#emit("node_failed", {
      node_id: node.id,
      started_at: this.#iso(started),
      failed_at: this.#iso(failedAt),
      duration_ms: failedAt - started,
      error: failure,
    });
  }

  #context(): RunContext {
    const r = this.#prepared.request;
    return {
      executionId: r.executionId,
      workspaceId: r.workspaceId,
      correlationId: r.correlationId,
      params: this.#params,
      signal: this.#controller.signal,
      connect: this.#o.connect,
      limits: this.#o.limits,
      template: (id, version) => this.#o.catalog.template(r.workspaceId, id, version),
      staging:
        () => (this.#staging ??= this.#prepared.body.settings.staging_engine === "sqlite"
          ? new SqliteStaging(this.#o.stagingPool.sqlite)
          : DuckdbStaging.lease(this.#o.stagingPool, this.#o.limits.duckdbMemoryMb)),
      caller: this.#options.delivery ?? this.#resultOutput(),
      abortReason: () => this.#abortReason ?? "cancelled",
      startChild: (node, params, delivery) => this.#startChild(node, params, delivery),
    };
  }

  #resultOutput(): CallerOutput {
    const r = this.#prepared.request;
    return resultOutput(
      this.#o.results,
      r.executionId,
      r.resultTtlSeconds,
      (stored, head, headJson) => {
        this.#o.meter?.resultStored(stored.size_bytes);
        this.#stored = stored;
        this.#head = head;
        this.#headJson = headJson;
      },
    );
  }

  async #startChild(
    node: PipelineNode,
    params: Record<string, unknown>,
    delivery: CallerOutput,
  ): Promise<ExecutionHandle> {
    const depth = (this.#options.depth ?? 0) + 1;
    if (depth > this.#o.maxDepth) {
      throw new AppError("pipeline.execution.depth_exceeded", {
        node_id: node.id,
        max_depth: this.#o.maxDepth,
      });
    }
    // A child runs whole: a node run (`node`) narrows only the root it was asked of.
    const { node: _, released: _parent, ...r } = this.#prepared.request;
    const prepared = await this.#executor.prepare({
      ...r,
      executionId: newId(),
      pipelineId: node.pipeline!.id,
      version: node.pipeline!.version,
      parameters: params,
      triggeredVia: "PIPELINE",
      parent: {
        executionId: r.executionId,
        nodeId: node.id,
        rootExecutionId: this.#record.root_execution_id,
      },
    }, node.pipeline!.version ?? "current");
    return prepared.run(this.#sink, { depth, delivery });
  }

  /** Success: the result is stored; its first page is read before the terminal sequence. */
  async #complete(startedAt: number): Promise<void> {
    const hasCaller = this.#prepared.body.nodes.some(isCallerNode) && !this.#options.delivery;
    let page: Awaited<ReturnType<Executor["options"]["results"]["page"]>> = null;
    const pageRows = this.#prepared.request.pageRows;
    const stored = this.#stored;
    if (
      hasCaller && stored &&
      (this.#head.length >= pageRows || this.#head.length === stored.row_count)
    ) {
      // The first page is among the rows just stored: the same rows a read back would give.
      // Never changed once stored, so a head that is the whole page goes out as it is.
      const head = this.#head as JsonCell[][];
      page = { result: stored, rows: head.length <= pageRows ? head : head.slice(0, pageRows) };
    } else if (hasCaller && stored) {
      // The shared store failing here is the result's failure, not an unexpected one.
      let failed: unknown;
      page = await this.#o.results.page(
        this.#record.execution_id,
        0,
        this.#prepared.request.pageRows,
      ).catch((e) => (failed = e, null));
      if (!page) throw storageUnavailable(this.#record.execution_id, failed);
    }
    const completed = this.#now();
    Object.assign(this.#record, {
      status: "SUCCESS",
      completed_at: this.#iso(completed),
      duration_ms: completed - startedAt,
      node_stats: this.#nodeStats(),
      result_row_count: this.#stored?.row_count ?? null,
      result_size_bytes: this.#stored?.size_bytes ?? null,
      result_expires_at: this.#stored?.expires_at ?? null,
    });
    // Both frames are handed over together (one batch in a queueing sink); data_ready still
    // reaches readers only after pipeline_completed is stored.
    const completedFrame = this.#emit("pipeline_completed", {
      pipeline_id: this.#record.pipeline_id,
      pipeline_version: this.#record.pipeline_version,
      started_at: this.#record.started_at,
      completed_at: this.#record.completed_at,
      duration_ms: this.#record.duration_ms,
      status: "SUCCESS",
      node_stats: this.#record.node_stats,
    });
    let ready: Promise<void> = Promise.resolve();
    if (page && this.#stored) {
      const total = page.result.row_count;
      const data = {
        execution_id: this.#record.execution_id,
        pipeline_id: this.#record.pipeline_id,
        schema: page.result.schema,
        rows: page.rows,
        row_count: page.rows.length,
        total_rows: total,
        has_more: page.rows.length < total,
        result_url: `/api/v1/executions/${this.#record.execution_id}/result`,
        expires_at: page.result.expires_at,
        ttl_seconds: this.#prepared.request.resultTtlSeconds,
        warnings: [],
        correlation_id: this.#record.correlation_id,
      };
      // The page is the whole first chunk: its rows' text is the one just stored.
      if (page.rows === this.#head && this.#headJson !== undefined) {
        keepPayloadJson(data, "rows", this.#headJson);
      }
      ready = this.#send("data_ready", data);
      ready.catch(() => {}); // the same refusal as pipeline_completed's, raised there
    }
    this.#queueFinish();
    await completedFrame;
    await ready;
  }

  /** The failed or aborted terminal sequence. */
  async #terminal(startedAt: number): Promise<void> {
    const at = this.#now();
    const common = {
      completed_at: this.#iso(at),
      duration_ms: at - startedAt,
      node_stats: this.#nodeStats(),
    };
    if (this.#abortReason && !this.#failure) {
      Object.assign(this.#record, {
        ...common,
        status: "ABORTED",
        abort_reason: this.#abortReason,
      });
      const aborted = this.#emit("execution_aborted", {
        pipeline_id: this.#record.pipeline_id,
        aborted_at: this.#iso(at),
        reason: this.#abortReason,
        status: "ABORTED",
        node_stats: this.#record.node_stats,
      });
      this.#queueFinish();
      await aborted;
      return;
    }
    const failure = this.#failure!;
    Object.assign(this.#record, {
      ...common,
      status: "FAILED",
      error: failure.record,
      failed_node_id: failure.nodeId,
    });
    const failed = this.#emit("pipeline_failed", {
      pipeline_id: this.#record.pipeline_id,
      pipeline_version: this.#record.pipeline_version,
      started_at: this.#record.started_at,
      failed_at: this.#iso(at),
      duration_ms: at - startedAt,
      status: "FAILED",
      failed_node_id: failure.nodeId,
      error: failure.record,
      node_stats: this.#record.node_stats,
    });
    this.#queueFinish();
    await failed;
  }

  /**
   * A queueing sink gets the final record right behind the terminal frames, so one commit stores
   * both and the answer waits for one commit, not two. Safe to write early: the store takes it
   * only while the run is RUNNING there, so a run another instance already ended (whose terminal
   * frame refuses ours) keeps the stored ending. Other sinks get it after the frames (`#main`).
   */
  #queueFinish(): void {
    if (!this.#sink.pipelined || this.#finishing) return;
    this.#finishing = this.#sink.finished({ ...this.#record });
    this.#finishing.catch(() => {});
  }

  /** Takes the stored ending: the record as stored, its terminal frame for live readers. */
  #adopt({ record, terminal }: EndedElsewhere): void {
    Object.assign(this.#record, record);
    if (terminal && TERMINAL_EVENTS.has(terminal.event)) {
      this.#bus.announce(terminal.event, terminal.data);
    }
  }

  /** In body order; nodes the run never reached count as aborted. */
  #nodeStats(): NodeStat[] {
    return this.#prepared.body.nodes.map((n) =>
      this.#stats.get(n.id) ?? stat(n.id, null, null, null, "ABORTED")
    );
  }
}
