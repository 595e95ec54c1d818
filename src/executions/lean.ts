/**
 * The lean path of a run (docs/executions.md#the-lean-path): a root run nobody follows live whose
 * pipeline is one DQL read delivering to the caller (the common published endpoint). It is the
 * same `Execution` (run.ts) as every other run, so its frames, record, ordering and failures are
 * made by the same code; it differs in the two places where a one-node read needs less:
 * - no scheduling: the node runs directly, without the calculator pass, the graph loop and its
 *   race over running nodes (and, reading no `tempdb`, it never leases a staging database);
 * - frames go straight to the queueing sink (`SinkOutlet`), not through the event bus: no promise
 *   chain per frame, no live publication, no reader per frame. The run's frames are handed over
 *   whole once its final record is stored (`ExecutionHandle.settled`), which is all a caller that
 *   answers at the end needs.
 * `data_ready`'s payload text is made once either way (frame_json.ts): from the rows' text the
 * result store stored, kept for the journal's frames row and the endpoint's response body.
 */
import { isCallerNode, type PipelineBody, STAGING } from "../pipelines/mod.ts";
import { type EventBus, SinkFeed } from "./bus.ts";
import { type EventFrame, TERMINAL_EVENTS } from "./event_order.ts";
import { EndedElsewhere } from "./sink.ts";
import type { ExecutionSink } from "./types.ts";

/** What a run emits through: the event bus, or the lean path's `SinkOutlet`. */
export type FrameOutlet = Pick<EventBus, "emit" | "announce" | "drain" | "close" | "subscribe">;

/**
 * True when a run asked to be lean can be: a root (no parent to deliver to) writing to a queueing
 * sink, whose one node is a DQL read of a datasource delivering to the caller.
 */
export function runsLean(body: PipelineBody, sink: ExecutionSink, toParent: boolean): boolean {
  if (toParent || !sink.pipelined || body.nodes.length !== 1) return false;
  const node = body.nodes[0];
  return node.type === "DQL" && isCallerNode(node) && node.source !== STAGING;
}

/** What a frame handed to the sink resolves with: one promise for all of them. */
const HANDED_OVER: Promise<void> = Promise.resolve();

/**
 * Frames of a lean run, handed to a queueing sink as they are emitted (the sink keeps their order,
 * see `ExecutionSink.pipelined`) and kept for the end. As on the bus, ids are assigned here in
 * emission order, a terminal frame and those after it count only once stored (a store that already
 * holds another ending keeps them out: the run adopts that one), and a refusal surfaces on a later
 * emit, seen by `refused` first.
 */
export class SinkOutlet extends SinkFeed implements FrameOutlet {
  readonly #frames: EventFrame[] = [];
  /** Terminal frames (and what follows them) until every frame handed over has settled. */
  readonly #held: EventFrame[] = [];
  readonly #closed = Promise.withResolvers<void>();
  #isClosed = false;
  #holding = false;
  #pending = 0;
  #settledAll: PromiseWithResolvers<void> | undefined;
  readonly #stored = () => this.#settle();
  readonly #refusal = (error: unknown) => {
    this.refuse(error);
    this.#settle();
  };

  emit(event: string, data: Record<string, unknown>): Promise<void> {
    if (this.#isClosed) throw new Error(`event ${event} after the stream closed`);
    const frame = this.frame(event, data);
    const held = this.#holding ||= TERMINAL_EVENTS.has(event);
    if (held) this.#held.push(frame);
    else this.#frames.push(frame);
    this.#pending++;
    this.sink.event(this.executionId, frame).then(this.#stored, this.#refusal);
    if (!held) return this.sinkError !== undefined ? this.reject() : HANDED_OVER;
    // A terminal frame waits for every frame before it, as the bus's chain makes it wait.
    return this.drain().then(() => {
      if (this.sinkError !== undefined) return this.reject();
    });
  }

  #settle(): void {
    if (--this.#pending > 0) return;
    // Not when the store holds another ending: the run adopts that one instead.
    if (!(this.sinkError instanceof EndedElsewhere)) this.#frames.push(...this.#held);
    this.#held.length = 0;
    this.#settledAll?.resolve();
    this.#settledAll = undefined;
  }

  /** An ending the store already holds (see `EndedElsewhere`), for the frames handed back. */
  announce(event: string, data: Record<string, unknown>): void {
    if (this.#isClosed) throw new Error(`event ${event} after the stream closed`);
    this.#frames.push(this.frame(event, data));
  }

  /** Waits until every frame handed over has settled. */
  drain(): Promise<void> {
    if (this.#pending === 0) return HANDED_OVER;
    return (this.#settledAll ??= Promise.withResolvers()).promise;
  }

  close(): void {
    this.#isClosed = true;
    this.#closed.resolve();
  }

  /** The run's frames, whole, once the run closed its stream. */
  get frames(): Promise<readonly EventFrame[]> {
    return this.#closed.promise.then(() => this.#frames);
  }

  /** A reader of the whole stream: nothing is followed live on this path. */
  subscribe(): AsyncIterableIterator<EventFrame> {
    const frames = this.frames;
    let next = 0;
    let ended = false;
    const reader: AsyncIterableIterator<EventFrame> = {
      next: () =>
        frames.then((all) =>
          !ended && next < all.length
            ? { value: all[next++], done: false }
            : (ended = true, { value: undefined, done: true })
        ),
      return: (value?: unknown) => {
        ended = true;
        return Promise.resolve({ value, done: true });
      },
      [Symbol.asyncIterator]: () => reader,
    };
    return reader;
  }
}
