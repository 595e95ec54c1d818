/**
 * The event order of a run (docs/executions.md#how-a-pipeline-runs) as a checker: feed it the
 * frames of one execution's stream in the order they arrived; it throws on the first violation and
 * `end()` checks the stream closed on a complete terminal sequence. Every execution test runs its
 * streams through it, and the executor's own tests use it to prove the event bus never reorders.
 */

export interface EventFrame {
  id: number;
  event: string;
  // deno-lint-ignore no-explicit-any
  data: Record<string, any>;
}

export const NODE_STATES = [
  "connecting",
  "executing",
  "fetching",
  "waiting_output",
  "writing",
  "finalizing",
  "completed",
  "failed",
  "aborted",
] as const;
const TERMINAL_STATES = new Set(["completed", "failed", "aborted"]);
/** The events that end an execution's stream. */
export const TERMINAL_EVENTS = new Set([
  "pipeline_completed",
  "pipeline_failed",
  "execution_aborted",
]);
const NODE_EVENTS = new Set(["node_started", "node_progress", "node_completed", "node_failed"]);
const KNOWN = new Set([
  "execution_started",
  ...NODE_EVENTS,
  ...TERMINAL_EVENTS,
  "data_ready",
]);

/** Where one node (one attempt) stands. */
interface NodeTrack {
  started: boolean;
  lastSequence: number;
  terminalSample?: string;
  finished?: "node_completed" | "node_failed";
}

export class EventOrderViolation extends Error {
  constructor(frame: EventFrame | undefined, rule: string) {
    super(frame ? `frame ${frame.id} (${frame.event}): ${rule}` : rule);
    this.name = "EventOrderViolation";
  }
}

export class EventOrderChecker {
  readonly #expectDataReady: boolean | undefined;
  #lastId = -Infinity;
  #started = false;
  #terminal?: string;
  #dataReady = false;
  #nodes = new Map<string, NodeTrack>();
  readonly frames: EventFrame[] = [];

  /**
   * `expectDataReady`: true when the pipeline has a caller node (a successful run must end with
   * `data_ready`), false when it has none, undefined to accept either.
   */
  constructor(options: { expectDataReady?: boolean } = {}) {
    this.#expectDataReady = options.expectDataReady;
  }

  push(frame: EventFrame): void {
    const fail = (rule: string): never => {
      throw new EventOrderViolation(frame, rule);
    };
    this.frames.push(frame);
    if (!KNOWN.has(frame.event)) fail("unknown event type");
    if (!Number.isInteger(frame.id) || frame.id <= this.#lastId) {
      fail(`id must increase (previous ${this.#lastId})`);
    }
    this.#lastId = frame.id;
    if (typeof frame.data?.correlation_id !== "string") fail("payload lacks correlation_id");
    if (typeof frame.data?.execution_id !== "string") fail("payload lacks execution_id");

    if (frame.event === "execution_started") {
      if (this.#started) fail("a second execution_started");
      this.#started = true;
      return;
    }
    if (!this.#started) fail("execution_started must come first");
    if (frame.event === "data_ready") {
      if (this.#terminal !== "pipeline_completed" || this.#dataReady) {
        fail("data_ready only once, right after pipeline_completed");
      }
      if (this.#expectDataReady === false) fail("data_ready from a pipeline without a caller node");
      this.#dataReady = true;
      return;
    }
    if (this.#terminal) fail(`nothing may follow ${this.#terminal}`);
    if (TERMINAL_EVENTS.has(frame.event)) {
      this.#terminal = frame.event;
      return;
    }
    this.#node(frame, fail);
  }

  /** The stream closed: it must have ended on one complete terminal sequence. */
  end(): void {
    if (!this.#started) throw new EventOrderViolation(undefined, "no execution_started");
    if (!this.#terminal) {
      throw new EventOrderViolation(undefined, "closed without a terminal event");
    }
    if (
      this.#terminal === "pipeline_completed" && this.#expectDataReady === true && !this.#dataReady
    ) {
      throw new EventOrderViolation(undefined, "pipeline_completed without data_ready");
    }
  }

  #node(frame: EventFrame, fail: (rule: string) => never): void {
    const { node_id: nodeId, attempt } = frame.data;
    if (typeof nodeId !== "string") fail("node event without node_id");
    // node_completed and node_failed carry no attempt: they close the latest attempt.
    const key = `${nodeId}#${attempt ?? this.#latestAttempt(nodeId)}`;
    const track = this.#nodes.get(key) ?? { started: false, lastSequence: -Infinity };
    this.#nodes.set(key, track);
    if (track.finished) fail(`node ${nodeId} already ended with ${track.finished}`);
    switch (frame.event) {
      case "node_started":
        if (track.started) fail(`node ${nodeId} started twice`);
        track.started = true;
        return;
      case "node_progress": {
        if (!track.started) fail(`progress of node ${nodeId} before node_started`);
        if (track.terminalSample) fail(`progress of node ${nodeId} after its terminal sample`);
        const { sequence, state } = frame.data;
        if (!Number.isInteger(sequence) || sequence <= track.lastSequence) {
          fail(`sequence must increase per node attempt (previous ${track.lastSequence})`);
        }
        track.lastSequence = sequence;
        if (!(NODE_STATES as readonly string[]).includes(state)) fail(`unknown state ${state}`);
        if (TERMINAL_STATES.has(state)) track.terminalSample = state;
        return;
      }
      default: {
        if (!track.started) fail(`${frame.event} of node ${nodeId} before node_started`);
        const expected = frame.event === "node_completed" ? "completed" : "failed";
        if (track.lastSequence > -Infinity && track.terminalSample !== expected) {
          fail(`${frame.event} must follow the node's terminal "${expected}" sample`);
        }
        track.finished = frame.event as "node_completed" | "node_failed";
      }
    }
  }

  #latestAttempt(nodeId: string): number {
    let latest = 1;
    for (const key of this.#nodes.keys()) {
      const [id, attempt] = key.split("#");
      if (id === nodeId) latest = Math.max(latest, Number(attempt));
    }
    return latest;
  }
}

/** Runs every frame through a fresh checker and checks the end; returns the frames by type. */
export function checkEventOrder(
  frames: EventFrame[],
  options: { expectDataReady?: boolean } = {},
): Map<string, EventFrame[]> {
  const checker = new EventOrderChecker(options);
  for (const frame of frames) checker.push(frame);
  checker.end();
  const byType = new Map<string, EventFrame[]>();
  for (const f of frames) byType.set(f.event, [...(byType.get(f.event) ?? []), f]);
  return byType;
}
