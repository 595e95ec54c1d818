/**
 * `node_progress` samples of one node attempt (docs/executions.md#how-a-pipeline-runs): a sample at
 * each first entry into a state, then at most one per interval while a count changed, then exactly
 * one terminal sample. Timings are cumulative per state, the open state counting up to the sample's
 * observation. The clock is injected so cadence tests need not depend on real time.
 */
import { isoAt } from "../lib/time.ts";

export type ProgressState =
  | "connecting"
  | "executing"
  | "fetching"
  | "waiting_output"
  | "writing"
  | "finalizing";
export type TerminalState = "completed" | "failed" | "aborted";
export type Operation = "stage" | "ctas" | "materialize" | "writeback" | "statement" | "child";
export type Destination =
  | { kind: "tempdb"; table: string }
  | { kind: "datasource"; datasource: string; table?: string }
  | { kind: "caller" }
  | { kind: "parent" }
  | { kind: "none" };

export interface Counts {
  rows_fetched?: number;
  rows_written?: number;
  batches_written?: number;
}

export interface Evidence {
  committed?: boolean;
  rolled_back?: boolean;
}

export type Clock = () => number;

const DONE: Promise<void> = Promise.resolve();

export interface ProgressIdentity {
  execution_id: string;
  node_id: string;
  attempt: number;
  correlation_id: string;
}

export class NodeProgress {
  readonly #emit: (data: Record<string, unknown>) => Promise<void>;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #identity: ProgressIdentity;
  readonly #operation: Operation;
  readonly #destination: Destination;
  readonly #startedAt: number;
  readonly #startedIso: string;
  readonly #timings = new Map<string, number>();
  readonly #counts: Counts = {};
  #state: ProgressState | undefined;
  #stateSince = 0;
  #sequence = 0;
  #lastSampleAt = -Infinity;
  #changed = false;
  #terminal = false;
  #childExecutionId: string | undefined;

  constructor(options: {
    emit: (data: Record<string, unknown>) => Promise<void>;
    clock: Clock;
    intervalMs: number;
    identity: ProgressIdentity;
    operation: Operation;
    destination: Destination;
  }) {
    this.#emit = options.emit;
    this.#clock = options.clock;
    this.#intervalMs = options.intervalMs;
    this.#identity = options.identity;
    this.#operation = options.operation;
    this.#destination = options.destination;
    this.#startedAt = this.#clock();
    this.#startedIso = isoAt(this.#startedAt);
  }

  get state(): ProgressState | undefined {
    return this.#state;
  }

  get counts(): Readonly<Counts> {
    return this.#counts;
  }

  get ended(): boolean {
    return this.#terminal;
  }

  /**
   * Moves to `state`; the first entry into a state is always sampled. Not async, nor are the
   * other samplers: a node makes a dozen of these calls, and each wrapper promise and its await
   * cost more than the call.
   */
  enter(state: ProgressState): Promise<void> {
    if (this.#terminal || state === this.#state) return DONE;
    const now = this.#clock();
    this.#close(now);
    const first = !this.#timings.has(state);
    this.#state = state;
    this.#stateSince = now;
    if (!first) {
      this.#changed = true;
      return DONE;
    }
    this.#timings.set(state, 0);
    return this.#sample(now);
  }

  /** Adds to the counts; samples when the interval since the last sample has passed. */
  add(delta: Counts): Promise<void> {
    if (this.#terminal) return DONE;
    for (const key in delta) {
      const k = key as keyof Counts;
      this.#counts[k] = (this.#counts[k] ?? 0) + delta[k]!;
    }
    this.#changed = true;
    return this.tick();
  }

  setChild(executionId: string): void {
    this.#childExecutionId = executionId;
    this.#changed = true;
  }

  /** A due periodic sample, if something changed since the last one. */
  tick(): Promise<void> {
    if (this.#terminal || !this.#changed) return DONE;
    const now = this.#clock();
    return now - this.#lastSampleAt >= this.#intervalMs ? this.#sample(now) : DONE;
  }

  /** The one terminal sample; `evidence` only on writes (`committed`, `rolled_back`). */
  async end(state: TerminalState, evidence: Evidence = {}): Promise<void> {
    if (this.#terminal) return;
    const now = this.#clock();
    this.#close(now);
    this.#terminal = true;
    await this.#sample(now, state, evidence);
  }

  #close(now: number): void {
    if (this.#state === undefined) return;
    this.#timings.set(this.#state, this.#timings.get(this.#state)! + (now - this.#stateSince));
    this.#stateSince = now;
  }

  #sample(now: number, terminal?: TerminalState, evidence: Evidence = {}): Promise<void> {
    const timings: Record<string, number> = {};
    for (const [state, ms] of this.#timings) {
      timings[state] = Math.round(
        ms + (!terminal && state === this.#state ? now - this.#stateSince : 0),
      );
    }
    this.#lastSampleAt = now;
    this.#changed = false;
    const data: Record<string, unknown> = {
      ...this.#identity,
      sequence: ++this.#sequence,
      operation: this.#operation,
      destination: this.#destination,
      state: terminal ?? this.#state,
      started_at: this.#startedIso,
      observed_at: isoAt(now),
      elapsed_ms: Math.round(now - this.#startedAt),
      timings_ms: timings,
      ...this.#counts,
    };
    if (terminal && evidence.committed !== undefined) data.committed = evidence.committed;
    if (terminal && evidence.rolled_back) data.rolled_back = true;
    if (this.#childExecutionId) data.child_execution_id = this.#childExecutionId;
    try {
      return this.#emit(data);
    } catch (error) {
      // A refusal surfaces as the rejection an async sampler would give.
      return Promise.reject(error);
    }
  }
}
