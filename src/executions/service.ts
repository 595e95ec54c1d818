/**
 * The executions service around the executor: starting a run under the per-user limits and the
 * Idempotency-Key, history and visibility, replay within the window, cancellation from any
 * instance, the result cursor, and aborting this instance's runs at shutdown. Free of HTTP: the
 * routes translate headers and query strings into these calls.
 */
import { AppError } from "../errors/mod.ts";
import type { BoundedRows, RowCaps } from "../lib/bounded_rows.ts";
import type { Logger } from "../lib/log.ts";
import { newId } from "../lib/ids.ts";
import type { SharedStore } from "../shared/mod.ts";
import type { Db } from "../store/mod.ts";
import type { EventFrame } from "./event_order.ts";
import type { IdempotencyCache } from "./idempotency.ts";
import { inlinePageRows, type ResultLimits, resultTtlSeconds, StreamSlots } from "./limits.ts";
import { type ExecutionFilter, ExecutionRepo, type StoredExecution } from "./repo.ts";
import { abortAbandoned, DEFAULT_STALE_AFTER_MS, type HeldRuns } from "./reaper.ts";
import type { JsonCell, ResultStore, StoredResult } from "./result_store.ts";
import { boundedResultRows, resultPosition } from "./result_rows.ts";
import { type EndingRows, ExecutionJournal, type InsertOptions } from "./journal.ts";
import { type NodeSpan, nodeSpans } from "./node_spans.ts";
import { DurableSink, follow, wakeFollowers } from "./sink.ts";
import type {
  ExecutionHandle,
  ExecutionRecord,
  ExecutionRequest,
  ExecutionSink,
  TriggeredVia,
} from "./types.ts";

/** The executor as this service drives it (built on the `executor` branch). */
export interface ExecutorPort {
  prepare(request: ExecutionRequest): PreparedRun | Promise<PreparedRun>;
}
export interface PreparedRun {
  run(sink: ExecutionSink, options?: { lean?: boolean }): ExecutionHandle;
}

/** Who asks: enough of a principal for ownership and limits. */
export interface Caller {
  userId: string;
  isSuperAdmin: boolean;
}

export interface ExecutionServiceOptions {
  db: Db;
  shared: SharedStore;
  results: ResultStore;
  idempotency: IdempotencyCache;
  logger: Logger;
  executor: ExecutorPort;
  resultLimits: ResultLimits;
  maxConcurrentPerUser: number;
  maxStreamsPerUser: number;
  /** How often a follower rereads stored frames without a wake-up (a lost message's cost). */
  followPollMs: number;
  /** The replay window past completion (one hour, docs/decisions.md#retention). */
  replayWindowMs?: number;
  /** The system actor, who audits ending a run no instance runs any more (see `cancel`). */
  systemActorId?: string;
  /** A RUNNING record not beaten for this long is abandoned (the reaper's limit). */
  staleAfterMs?: number;
  /** The first retry of an ending the store could not take (see settle.ts). */
  endingRetryMs?: number;
  instanceId?: string;
  now?: () => number;
}

export interface ExecuteInput {
  caller: Caller;
  workspaceId: string;
  pipelineId: string;
  version?: number;
  parameters: Record<string, unknown>;
  idempotencyKey?: string;
  ttlHeader?: string | null;
  pageRowsHeader?: string | null;
  correlationId: string;
  triggeredVia: TriggeredVia;
  /** `pipelines_execute_node`: only this node and what it needs; its rows are the result. */
  node?: string;
  /** The released version already read and parsed by the caller (see `ExecutionRequest`). */
  released?: ExecutionRequest["released"];
  /**
   * False when the caller answers only once the run ends (an endpoint, a tool that waits): then
   * nothing waits for the record's write before the run starts, and a run that ends before its
   * first commit is written once, final (docs/decisions.md#every-event-is-durable). A caller that
   * hands the execution id out early awaits `recorded` first.
   */
  liveReader?: boolean;
  /**
   * With `liveReader: false`: a pipeline that is one read runs on the lean path (lean.ts), its
   * frames handed back whole in `settled`. The endpoint server asks for it.
   */
  lean?: boolean;
  /**
   * Rows stored in the same transaction as the run's final record (an endpoint's
   * `endpoint.served` row; see `EndingRows`).
   */
  ending?: EndingRows;
}

export interface StartedStream {
  executionId: string;
  frames: AsyncIterable<EventFrame>;
  /** True when an Idempotency-Key retry got the original execution back. */
  replayed: boolean;
  /** Settles once the execution's record is stored (readable by id). */
  recorded: Promise<void>;
  /** A run on the lean path: its frames, whole, once its final record is stored. */
  settled?: Promise<readonly EventFrame[]>;
  /** Gives the stream slot back; call once when the response body ends. */
  release(): Promise<void>;
  /**
   * The consumer went away: a run this request started is cancelled with `client_disconnect`
   * unless it ends within `graceMs`; a retry's follower just stops.
   */
  disconnected(graceMs: number): void;
}

export const REPLAY_WINDOW_MS = 3_600_000;
const CANCEL_CHANNEL = "executions:cancel";

export class ExecutionService {
  readonly repo: ExecutionRepo;
  readonly instanceId: string;
  readonly #o: ExecutionServiceOptions;
  readonly #now: () => number;
  readonly #running = new Map<string, ExecutionHandle>();
  /** Runs of this instance by owner, from the limit check until they settle. */
  readonly #owners = new Map<string, string>();
  /** How many of `#owners` each user has: counted on claim, not by a walk over every run. */
  readonly #ownedBy = new Map<string, number>();
  readonly #slots: StreamSlots;
  /** One group commit for every run of this instance (see journal.ts). */
  readonly #journal: ExecutionJournal;
  #unsubscribe?: () => Promise<void>;
  #closing = false;

  constructor(options: ExecutionServiceOptions) {
    this.#o = options;
    this.repo = new ExecutionRepo(options.db);
    this.instanceId = options.instanceId ?? newId();
    this.#now = options.now ?? Date.now;
    this.#slots = new StreamSlots(options.shared, options.maxStreamsPerUser);
    this.#journal = new ExecutionJournal(options.db, wakeFollowers(options.shared), {
      logger: options.logger,
      retryDelayMs: options.endingRetryMs,
    });
  }

  /** The runs this instance holds (runs, or keeps the ending of): its heartbeat's list. */
  get runs(): HeldRuns {
    return this.#journal;
  }

  /** Listens for cancels published by other instances. */
  async open(): Promise<void> {
    this.#unsubscribe = await this.#o.shared.subscribe(CANCEL_CHANNEL, (message) => {
      const { execution_id: id, reason } = JSON.parse(message);
      this.#running.get(id)?.cancel(reason);
      // A run that ended here while the store was out: its ending is what a cancel can give.
      if (this.#journal.pending(id)) this.#journal.settle(id).catch(() => {});
    });
  }

  /** Runs started here and not yet settled. */
  get runningHere(): string[] {
    return [...this.#running.keys()];
  }

  /** Accepts a run (or finds the one an Idempotency-Key names) and gives its stream. */
  async execute(input: ExecuteInput): Promise<StartedStream> {
    // Draining: a run started now would outlive the shutdown that ends every other one.
    if (this.#closing) throw new AppError("service.unavailable", { reason: "draining" });
    const { caller } = input;
    const release = await this.#slots.take(caller.userId);
    try {
      return await this.#execute(input, release);
    } catch (e) {
      await release();
      throw e;
    }
  }

  async #execute(input: ExecuteInput, release: () => Promise<void>): Promise<StartedStream> {
    const { caller } = input;
    let executionId = newId();
    if (input.idempotencyKey) {
      const asked = {
        pipeline_id: input.pipelineId,
        version: input.version ?? null,
        parameters: input.parameters,
        ...(input.node === undefined ? {} : { node: input.node }),
      };
      const claim = await this.#o.idempotency.claim(
        caller.userId,
        input.idempotencyKey,
        asked,
        executionId,
        this.#now(),
      );
      if (!claim.fresh) {
        // The run went with a purged draft: there is nothing to follow, and never will be.
        const id = claim.executionId;
        if (await this.#o.idempotency.forgotten(id) && !await this.repo.get(id)) {
          throw new AppError("result.execution_not_found", { execution_id: id });
        }
        if (await this.#claimAbandoned(caller.userId, input.idempotencyKey, claim)) {
          return await this.#execute(input, release);
        }
        return this.#replayed(id, release);
      }
      executionId = claim.executionId;
    }
    try {
      const executor = this.#o.executor;
      // This instance's runs count from memory, claimed before the first await so two requests
      // racing here cannot both pass; other instances' runs count from their stored records.
      const mine = this.#claimLocal(executionId, caller.userId);
      const elsewhere = await this.repo.countRunning(caller.userId, this.instanceId);
      const running = mine + elsewhere - 1;
      const limit = this.#o.maxConcurrentPerUser;
      if (running >= limit) {
        throw new AppError("pipeline.execution.concurrency_limit", { running, limit }, {
          "Retry-After": "5",
        });
      }
      const prepared = await executor.prepare({
        executionId,
        workspaceId: input.workspaceId,
        pipelineId: input.pipelineId,
        version: input.version,
        parameters: input.parameters,
        triggeredBy: caller.userId,
        triggeredVia: input.triggeredVia,
        correlationId: input.correlationId,
        ...(input.node === undefined ? {} : { node: input.node }),
        ...(input.released === undefined ? {} : { released: input.released }),
        resultTtlSeconds: resultTtlSeconds(input.ttlHeader, this.#o.resultLimits),
        pageRows: inlinePageRows(input.pageRowsHeader, this.#o.resultLimits),
      });
      const handle = prepared.run(
        this.sink({ hold: input.liveReader === false, ending: input.ending }),
        { lean: input.lean === true && input.liveReader === false },
      );
      this.#running.set(executionId, handle);
      handle.done.finally(() => {
        this.#running.delete(executionId);
        this.#unclaimLocal(executionId);
      });
      // The answer names the execution (a stream's SVC-Execution-Id header): once it is out, a
      // client may read the record at once, so it goes out after the record is stored.
      if (input.liveReader !== false) await handle.recorded;
      return {
        executionId,
        frames: untilStored(handle),
        replayed: false,
        recorded: handle.recorded,
        ...(handle.settled ? { settled: handle.settled } : {}),
        release,
        disconnected: (graceMs) => {
          const timer = setTimeout(() => handle.cancel("client_disconnect"), graceMs);
          handle.done.finally(() => clearTimeout(timer));
        },
      };
    } catch (e) {
      this.#unclaimLocal(executionId);
      // Refused before acceptance: the key may be used again for a corrected request.
      if (input.idempotencyKey) {
        await this.#o.idempotency.release(caller.userId, input.idempotencyKey);
      }
      throw e;
    }
  }

  /** Claims a local slot for `executionId`; returns this user's local runs, the new one included. */
  #claimLocal(executionId: string, userId: string): number {
    this.#owners.set(executionId, userId);
    const n = (this.#ownedBy.get(userId) ?? 0) + 1;
    this.#ownedBy.set(userId, n);
    return n;
  }

  /** Gives a claimed local slot back (once: a second call finds no owner). */
  #unclaimLocal(executionId: string): void {
    const userId = this.#owners.get(executionId);
    if (userId === undefined) return;
    this.#owners.delete(executionId);
    const n = this.#ownedBy.get(userId)! - 1;
    if (n > 0) this.#ownedBy.set(userId, n);
    else this.#ownedBy.delete(userId);
  }

  /** An Idempotency-Key retry: the original run's frames, live or replayed, from any instance. */
  /**
   * Whether a retry's claim names a run that will never be recorded: a claim is written before
   * its run's record, so a claimant that died in between leaves a key no record follows. While
   * the claim is younger than the reaper's window its record may still come; past it the claim
   * is taken over (by one instance) and the retry runs as a first request would
   * (docs/operations.md#faults-and-the-soak).
   */
  async #claimAbandoned(
    userId: string,
    key: string,
    claim: { executionId: string; claimedAt?: number },
  ): Promise<boolean> {
    const staleAfter = this.#o.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    for (;;) {
      if (claim.claimedAt === undefined || await this.repo.get(claim.executionId)) return false;
      if (this.#now() - claim.claimedAt >= staleAfter) {
        // Lost to another instance's take-over: give it a moment to claim the key again.
        if (!await this.#o.idempotency.takeOver(userId, key, claim.executionId)) {
          await new Promise((r) => setTimeout(r, 100));
        }
        return true;
      }
      await new Promise((r) => setTimeout(r, Math.min(this.#o.followPollMs, 1_000)));
    }
  }

  #replayed(executionId: string, release: () => Promise<void>): StartedStream {
    const stop = new AbortController();
    return {
      executionId,
      frames: follow(this.repo, this.#o.shared, executionId, {
        pollMs: this.#o.followPollMs,
        signal: stop.signal,
      }),
      replayed: true,
      // Found by its stored record.
      recorded: Promise.resolve(),
      release,
      // A retry's consumer leaving does not cancel the run it did not start.
      disconnected: () => stop.abort(),
    };
  }

  /** The sink the executor writes to on this instance. */
  sink(options: InsertOptions = {}): ExecutionSink {
    return new DurableSink(
      this.repo,
      this.#o.shared,
      this.instanceId,
      this.#now,
      this.#journal,
      options,
    );
  }

  /** An execution the caller may see in this workspace; 404 otherwise (no existence leak). */
  async visible(caller: Caller, workspaceId: string, executionId: string) {
    const stored = await this.repo.get(executionId);
    if (
      !stored || stored.record.workspace_id !== workspaceId ||
      (!caller.isSuperAdmin && stored.record.triggered_by !== caller.userId)
    ) {
      throw new AppError("result.execution_not_found", { execution_id: executionId });
    }
    return stored.record;
  }

  /**
   * A page of the history. A super admin sees every execution in the workspace and may narrow it
   * to one user's (`triggeredBy`); anyone else sees only their own, whatever they ask for.
   */
  async list(
    caller: Caller,
    filter: ExecutionFilter,
    offset: number,
    limit: number,
  ) {
    return await this.repo.list(
      { ...filter, triggeredBy: caller.isSuperAdmin ? filter.triggeredBy : caller.userId },
      offset,
      limit,
    );
  }

  /** The caller's newest `limit` visible executions (by `list`'s rule), none of them counted. */
  async latest(caller: Caller, filter: ExecutionFilter, limit: number) {
    return await this.repo.latest(
      { ...filter, triggeredBy: caller.isSuperAdmin ? filter.triggeredBy : caller.userId },
      limit,
    );
  }

  /** Whether the caller may see any execution that matches (by the same rule as `list`). */
  async any(caller: Caller, filter: ExecutionFilter): Promise<boolean> {
    return await this.repo.exists({
      ...filter,
      triggeredBy: caller.isSuperAdmin ? filter.triggeredBy : caller.userId,
    });
  }

  /**
   * Every run the PIPELINE nodes of `parentIds` started, at any depth, that the caller may see:
   * the history and a run's view nest them under their parent node.
   */
  async descendants(
    caller: Caller,
    parentIds: readonly string[],
  ): Promise<ExecutionRecord[]> {
    const out: ExecutionRecord[] = [];
    const only = caller.isSuperAdmin ? undefined : caller.userId;
    // A child's depth is capped by the executor (DEFAULT_MAX_DEPTH); the bound only guards a loop.
    for (let ids = parentIds, depth = 0; ids.length > 0 && depth < 16; depth++) {
      const found = await this.repo.children(ids, only);
      out.push(...found);
      ids = found.map((r) => r.execution_id);
    }
    return out;
  }

  /**
   * When each node started and ended, from the durable events (kept for the event retention,
   * longer than the replay window); empty when they are gone.
   */
  async nodeSpans(caller: Caller, workspaceId: string, executionId: string): Promise<NodeSpan[]> {
    await this.visible(caller, workspaceId, executionId);
    return nodeSpans(await this.repo.events(executionId));
  }

  /** Until when a finished run's stored stream can be replayed; null while it runs. */
  replayableUntil(record: ExecutionRecord): string | null {
    if (!record.completed_at) return null;
    const window = this.#o.replayWindowMs ?? REPLAY_WINDOW_MS;
    return new Date(Date.parse(record.completed_at) + window).toISOString();
  }

  /** Whose executions the caller may filter the history by: everyone's for a super admin. */
  async triggerers(caller: Caller, workspaceId: string): Promise<string[]> {
    return caller.isSuperAdmin ? await this.repo.triggerers(workspaceId) : [caller.userId];
  }

  /** The record; `result_url` and `result_expires_at` only while the result is readable. */
  async view(caller: Caller, workspaceId: string, executionId: string, baseUrl: string) {
    const record = await this.visible(caller, workspaceId, executionId);
    const result = record.status === "SUCCESS" ? await this.#o.results.describe(executionId) : null;
    const { result_expires_at: _, ...rest } = record;
    return result
      ? {
        ...rest,
        result_url: `${baseUrl}/api/v1/executions/${executionId}/result`,
        result_expires_at: result.expires_at,
      }
      : rest;
  }

  /**
   * The stored stream for replay: a running execution is followed live; a finished one is
   * replayable until the window past completion elapses, then 410 `result.expired`.
   */
  async replay(
    caller: Caller,
    workspaceId: string,
    executionId: string,
    signal?: AbortSignal,
  ): Promise<{ live: boolean; frames: AsyncIterable<EventFrame> }> {
    const record = await this.visible(caller, workspaceId, executionId);
    if (record.completed_at) {
      const window = this.#o.replayWindowMs ?? REPLAY_WINDOW_MS;
      if (Date.parse(record.completed_at) + window <= this.#now()) {
        throw new AppError("result.expired", { execution_id: executionId });
      }
      const frames = await this.repo.events(executionId);
      return {
        live: false,
        frames: (async function* () {
          yield* frames;
        })(),
      };
    }
    return {
      live: true,
      frames: follow(this.repo, this.#o.shared, executionId, {
        pollMs: this.#o.followPollMs,
        signal,
      }),
    };
  }

  /** A per-user stream slot for a replay stream; the returned function gives it back. */
  async streamSlot(caller: Caller): Promise<() => Promise<void>> {
    return await this.#slots.take(caller.userId);
  }

  /** Stored frames so far (the JSON form of replay). */
  async replayFrames(caller: Caller, workspaceId: string, executionId: string) {
    const { live, frames } = await this.replay(caller, workspaceId, executionId);
    if (live) return await this.repo.events(executionId);
    const out: EventFrame[] = [];
    for await (const f of frames) out.push(f);
    return out;
  }

  /**
   * Cancels a RUNNING execution: here when this instance runs it, else by a message the running
   * instance acts on; the terminal frame marks completion. A run that already ended here but
   * whose ending waits for the store (an outage) gets it written now, and the answer is 409
   * `pipeline.execution.not_running` with that status (503 while the store still refuses it). A
   * record no instance runs any more (its own instance gave it up, or stopped beating for it) is
   * ended here and now, ABORTED `cancelled`, as the reaper would end it.
   */
  async cancel(caller: Caller, workspaceId: string, executionId: string): Promise<void> {
    const record = await this.visible(caller, workspaceId, executionId);
    const notRunning = (status: string) =>
      new AppError("pipeline.execution.not_running", { execution_id: executionId, status });
    if (record.status !== "RUNNING") throw notRunning(record.status);
    const local = this.#running.get(executionId);
    if (local && local.record.status === "RUNNING") return local.cancel("cancelled");
    if (this.#journal.pending(executionId)) {
      await this.#journal.settle(executionId);
      const ended = await this.repo.get(executionId);
      if (ended && ended.record.status !== "RUNNING") throw notRunning(ended.record.status);
    }
    const stored = await this.repo.get(executionId);
    if (!stored || stored.record.status !== "RUNNING") {
      throw notRunning(stored?.record.status ?? record.status);
    }
    if (this.#abandoned(stored)) {
      const systemActor = this.#o.systemActorId;
      const ended = await abortAbandoned(this.#o.db, this.#o.shared, stored, {
        reason: "cancelled",
        by: caller.userId,
        systemActor: systemActor!,
        at: this.#now(),
      });
      if (ended) return;
      throw notRunning((await this.repo.get(executionId))?.record.status ?? "unknown");
    }
    await this.#o.shared.publish(
      CANCEL_CHANNEL,
      JSON.stringify({ execution_id: executionId, reason: "cancelled" }),
    );
  }

  /** No instance runs this RUNNING record: this one does not hold its own, or the owner is gone. */
  #abandoned(stored: StoredExecution): boolean {
    if (this.#o.systemActorId === undefined) return false;
    if (stored.instanceId === this.instanceId) {
      return !this.#journal.holds(stored.record.execution_id);
    }
    const staleAfter = this.#o.staleAfterMs ?? DEFAULT_STALE_AFTER_MS;
    return Date.parse(stored.heartbeatAt) < this.#now() - staleAfter;
  }

  /** A page of the result, or the refusal that says why there is none. */
  async page(
    caller: Caller,
    workspaceId: string,
    executionId: string,
    offset: number,
    limit: number,
  ): Promise<{ result: StoredResult; rows: JsonCell[][] }> {
    await this.#readable(caller, workspaceId, executionId);
    const page = await this.#o.results.page(executionId, offset, limit);
    if (!page) throw new AppError("result.expired", { execution_id: executionId });
    return page;
  }

  /**
   * `executions_get_result`: a page of the result in the tools' rows shape under `caps`, from an
   * execution id (its first page) or a `next_cursor`, `limit` rows at most (else the cursor's, else
   * the cap); never more than `caps.maxRows + 1` rows read.
   */
  async resultRows(
    caller: Caller,
    workspaceId: string,
    ref: { execution_id?: string; cursor?: string; limit?: number },
    caps: RowCaps,
  ): Promise<BoundedRows<JsonCell>> {
    const started = performance.now();
    const at = resultPosition(ref);
    const position = ref.limit === undefined ? at : { ...at, limit: ref.limit };
    const read = (o: number, l: number) => this.page(caller, workspaceId, at.executionId, o, l);
    return await boundedResultRows(read, position, caps, started);
  }

  /** The whole result as CSV, with the run it came from (a download names itself after it). */
  async csv(caller: Caller, workspaceId: string, executionId: string) {
    const record = await this.#readable(caller, workspaceId, executionId);
    const body = await this.#o.results.csv(executionId);
    if (!body) throw new AppError("result.expired", { execution_id: executionId });
    return { body, record };
  }

  async #readable(caller: Caller, workspaceId: string, executionId: string) {
    const record = await this.visible(caller, workspaceId, executionId);
    if (record.status === "RUNNING") {
      throw new AppError("result.execution_incomplete", { execution_id: executionId });
    }
    // A run that failed, was aborted, or succeeded without a caller node has nothing to read.
    if (record.status !== "SUCCESS" || record.result_expires_at === null) {
      throw new AppError("result.execution_failed", {
        execution_id: executionId,
        status: record.status,
      });
    }
    return record;
  }

  /**
   * The first step of a drain: waits up to `ms` for the runs of this instance to end on their own,
   * runs started meanwhile (by requests already in flight) included. Cancels nothing.
   */
  async runsEnded(ms: number): Promise<void> {
    const until = performance.now() + ms;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const out = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
    try {
      while (this.#running.size > 0 && performance.now() < until) {
        const ended = Promise.all([...this.#running.values()].map((h) => h.done.catch(() => {})));
        await Promise.race([ended, out]);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Shutdown: every run of this instance is aborted with reason `shutdown`, then awaited. */
  async close(graceMs: number): Promise<void> {
    this.#closing = true;
    const unsubscribe = this.#unsubscribe;
    this.#unsubscribe = undefined;
    await unsubscribe?.();
    const handles = [...this.#running.values()];
    for (const h of handles) h.cancel("shutdown");
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(handles.map((h) => h.done)),
      new Promise((resolve) => timer = setTimeout(resolve, graceMs)),
    ]);
    clearTimeout(timer);
    if (this.#running.size > 0) {
      this.#o.logger.warn("executions still running at shutdown", { ids: this.runningHere });
    }
    await this.#journal.close();
    this.#slots.close();
  }
}

/**
 * The run's frames, ending only once its final record is stored: the executor closes its stream
 * before `finished` has written the record, and a client that reads the terminal frame and then
 * asks for the record or the result must not find it still RUNNING.
 */
function untilStored(handle: ExecutionHandle): AsyncIterableIterator<EventFrame> {
  const frames = handle.events()[Symbol.asyncIterator]();
  // The last frame passes at once; the end waits for the stored record.
  const stored = (
    end: IteratorResult<EventFrame>,
  ): IteratorResult<EventFrame> | Promise<IteratorResult<EventFrame>> =>
    end.done ? handle.done.then(() => end) : end;
  const reader: AsyncIterableIterator<EventFrame> = {
    next: () => frames.next().then(stored),
    return: (value?: unknown) => {
      frames.return?.();
      return Promise.resolve({ value, done: true });
    },
    [Symbol.asyncIterator]: () => reader,
  };
  return reader;
}

export type { ExecutionRecord };
