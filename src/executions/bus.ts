/**
 * The in-process event bus of one execution (docs/architecture.md#how-a-run-flows): the executor
 * emits, the sink (durable log) and any number of live readers (the SSE writer) follow. Ids are
 * assigned here, in emission order, and the sink is called strictly in that order, so a reader, a
 * replay and the durable log see one sequence.
 */
import { type EventFrame, TERMINAL_EVENTS } from "./event_order.ts";
import { EndedElsewhere } from "./sink.ts";
import type { ExecutionSink } from "./types.ts";

const TERMINAL = new Set(["pipeline_failed", "execution_aborted"]);
/** What a frame handed to a queueing sink resolves with: one promise for all of them. */
const HANDED_OVER: Promise<void> = Promise.resolve();

/**
 * What the event bus and the lean path's outlet (lean.ts) share: the run's sink, frame ids in
 * emission order, and the sink's first refusal, which surfaces on a later emit.
 */
export abstract class SinkFeed {
  protected readonly executionId: string;
  protected readonly sink: ExecutionSink;
  readonly #refused: (error: unknown) => void;
  #nextId = 1;
  #sinkError: unknown;

  /** `refused` sees the sink's error before an emit rejects with it. */
  constructor(
    executionId: string,
    sink: ExecutionSink,
    refused: (error: unknown) => void = () => {},
  ) {
    this.executionId = executionId;
    this.sink = sink;
    this.#refused = refused;
  }

  /** The first error the sink raised, if any; the run fails on it. */
  get sinkError(): unknown {
    return this.#sinkError;
  }

  /** Keeps the sink's first error; later ones add nothing. */
  protected refuse(error: unknown): void {
    this.#sinkError ??= error;
  }

  /** The next frame, its id in emission order. */
  protected frame(event: string, data: Record<string, unknown>): EventFrame {
    return { id: this.#nextId++, event, data };
  }

  /** The sink's error, seen by `refused` before the emitter resumes (as a `.catch` of its own). */
  protected reject(): Promise<never> {
    const rejected = Promise.reject(this.#sinkError);
    rejected.catch(this.#refused);
    return rejected;
  }
}

export class EventBus extends SinkFeed {
  readonly #frames: EventFrame[] = [];
  readonly #waiters = new Set<() => void>();
  #closed = false;
  #holding = false;
  /** Sink calls chain on this, so a slow sink never reorders frames. */
  #tail: Promise<void> = Promise.resolve();

  get frames(): readonly EventFrame[] {
    return this.#frames;
  }

  /**
   * Appends a frame and hands it to the sink. Resolves once the sink has taken it (and every
   * frame before it); rejects with the sink's error, which the caller turns into a failure.
   */
  emit(event: string, data: Record<string, unknown>): Promise<void> {
    if (this.#closed) throw new Error(`event ${event} after the stream closed`);
    const frame = this.frame(event, data);
    // A terminal frame reaches live readers only once stored: the stored ending and the streamed
    // one must be the same, and the store may already hold another (a reaped run).
    // Frames after it wait their turn, so readers still see emission order.
    const held = this.#holding || TERMINAL_EVENTS.has(event);
    this.#holding = held;
    if (!held) this.#publish(frame);
    const id = this.executionId;
    if (this.sink.pipelined) {
      // A queueing sink keeps the order itself: every frame is handed over at once (a run's
      // frames share a batch), a held one is published once stored, and a refusal surfaces on
      // a later emit (the terminal one waits for every frame before it). Frames after a refusal
      // are handed over too: the durable sink keeps what the store refused and writes the whole
      // ending once it can (journal.ts).
      const stored = this.sink.event(id, frame).catch((error) => this.refuse(error));
      if (!held) {
        this.#tail = this.#tail.then(() => stored);
        return this.sinkError !== undefined ? this.reject() : HANDED_OVER;
      }
      this.#tail = this.#tail.then(() => stored).then(() => {
        if (!(this.sinkError instanceof EndedElsewhere)) this.#publish(frame);
      });
      return this.#tail.then(() => {
        if (this.sinkError !== undefined) return this.reject();
      });
    }
    this.#tail = this.#tail.then(async () => {
      // After a sink failure later frames still reach live readers, not the broken sink.
      if (this.sinkError === undefined) {
        try {
          await this.sink.event(id, frame);
        } catch (error) {
          this.refuse(error);
        }
      }
      // Not when the store holds another ending: the run adopts that one instead.
      if (held && !(this.sinkError instanceof EndedElsewhere)) this.#publish(frame);
    });
    return this.#tail.then(() => {
      if (this.sinkError !== undefined) return this.reject();
    });
  }

  /** A frame for live readers only: an ending the store already holds (see `EndedElsewhere`). */
  announce(event: string, data: Record<string, unknown>): void {
    if (this.#closed) throw new Error(`event ${event} after the stream closed`);
    this.#publish(this.frame(event, data));
  }

  #publish(frame: EventFrame): void {
    this.#frames.push(frame);
    for (const wake of this.#waiters) wake();
  }

  /** Waits for every pending sink call. */
  async drain(): Promise<void> {
    await this.#tail;
  }

  /** The stream is complete: readers end after the last frame (drain first: endings are held). */
  close(): void {
    this.#closed = true;
    for (const wake of this.#waiters) wake();
  }

  /**
   * A fresh reader: what was emitted so far, then live frames, ending when the bus closes.
   * Written out rather than an async generator: a run's dozen frames each cost a generator
   * resumption and its extra promise turns, for every reader.
   */
  subscribe(): AsyncIterableIterator<EventFrame> {
    let next = 0;
    let ended = false;
    const waiting = new Set<() => void>();
    const read = (): IteratorResult<EventFrame> | undefined => {
      if (!ended && next < this.#frames.length) return { value: this.#frames[next++], done: false };
      if (ended || this.#closed) {
        ended = true;
        return { value: undefined, done: true };
      }
      return undefined;
    };
    const reader: AsyncIterableIterator<EventFrame> = {
      next: () => {
        const now = read();
        if (now) return Promise.resolve(now);
        return new Promise((resolve) => {
          const wake = () => {
            const woken = read();
            if (!woken) return; // another reader's call took the frame first: wait on
            this.#waiters.delete(wake);
            waiting.delete(wake);
            resolve(woken);
          };
          this.#waiters.add(wake);
          waiting.add(wake);
        });
      },
      // Broken off: a call still waiting ends too.
      return: (value?: unknown) => {
        ended = true;
        for (const wake of waiting) wake();
        return Promise.resolve({ value, done: true });
      },
      [Symbol.asyncIterator]: () => reader,
    };
    return reader;
  }

  /** True once a terminal event other than pipeline_completed was emitted. */
  get failedOrAborted(): boolean {
    return this.#frames.some((f) => TERMINAL.has(f.event));
  }
}
