/**
 * Where an execution's traces go (the `ExecutionSink` of types.ts): the record on start, one
 * durable row per event in emission order, the final record on finish; and live fan-out over the
 * shared store's pub/sub, so a consumer on another instance can follow a run it did not start.
 * `follow()` is that consumer: it replays the stored frames, then the live ones, and ends after
 * the run is terminal. Stored rows are the truth; messages only wake followers early, so a lost
 * message costs latency, never a frame.
 */
import { toAppError } from "../errors/mod.ts";
import { isoAt } from "../lib/time.ts";
import type { SharedStore } from "../shared/mod.ts";
import type { EventFrame } from "./event_order.ts";
import { ExecutionJournal, type InsertOptions, type StoredListener } from "./journal.ts";
import type { ExecutionRepo } from "./repo.ts";
import type { ExecutionRecord, ExecutionSink } from "./types.ts";

export const eventsChannel = (executionId: string) => `execution:${executionId}:events`;

type Message = { stored: true } | { finished: true };
const STORED = JSON.stringify({ stored: true } satisfies Message);
const FINISHED = JSON.stringify({ finished: true } satisfies Message);
const ignore = () => {};

export class DurableSink implements ExecutionSink {
  readonly #journal: ExecutionJournal;

  /**
   * `journal`: the instance's group commit, shared by its runs (one of its own otherwise);
   * `options`: how the run started through this sink is stored (its child runs are not held).
   */
  constructor(
    private readonly repo: ExecutionRepo,
    private readonly shared: SharedStore,
    private readonly instanceId: string,
    private readonly now: () => number = Date.now,
    journal?: ExecutionJournal,
    private readonly options: InsertOptions = {},
  ) {
    this.#journal = journal ?? new ExecutionJournal(repo.db, wakeFollowers(shared));
  }

  async started(record: ExecutionRecord): Promise<void> {
    await this.#journal.insert(record, this.instanceId, isoAt(this.now()), this.options);
  }

  /** Frames are queued in call order on the instance's group commit (see journal.ts). */
  readonly pipelined = true;

  /**
   * Resolves once the frame is stored; a refusal of an earlier frame of the run is raised, as
   * the run's own failure: the stored ending of another instance (`EndedElsewhere`), or the
   * store's error as the front ends answer it (an outage is `service.unavailable`).
   */
  event(executionId: string, frame: EventFrame): Promise<void> {
    // Not an async function: a frame's wrapper promise and its await cost as much as the rest.
    // Frames stored together share the journal's promise (one run's, journal.ts), and so this.
    const stored = this.#journal.event(executionId, frame, isoAt(this.now()));
    if (stored === this.#lastStored) return this.#lastOutcome!;
    this.#lastStored = stored;
    return this.#lastOutcome = stored.catch((error) => this.#refusal(executionId, error));
  }

  #lastStored: Promise<void> | undefined;
  #lastOutcome: Promise<void> | undefined;

  /** What a refusal means, decided once per error (a run's later frames share its first one). */
  readonly #refusals = new WeakMap<object, Promise<unknown>>();
  #refusal(executionId: string, error: unknown): Promise<never> {
    const key = typeof error === "object" && error !== null ? error : undefined;
    let meaning = key && this.#refusals.get(key);
    if (!meaning) {
      meaning = this.#endedElsewhere(executionId).then((ended) => ended ?? toAppError(error));
      if (key) this.#refusals.set(key, meaning);
    }
    return meaning.then((e) => {
      throw e;
    });
  }

  async finished(record: ExecutionRecord): Promise<void> {
    await this.#journal.finish(record);
  }

  /**
   * A frame the store refused because the run is already terminal there: the reaper of another
   * instance took this one for dead (a stall past the stale limit) and wrote its ending, whose
   * frame holds the id this one wanted.
   */
  async #endedElsewhere(executionId: string): Promise<EndedElsewhere | undefined> {
    const stored = await this.repo.get(executionId).catch(() => undefined);
    if (!stored || stored.record.status === "RUNNING") return undefined;
    const terminal = (await this.repo.events(executionId).catch(() => [])).at(-1);
    return new EndedElsewhere(stored.record, terminal);
  }
}

/**
 * Wakes followers once per run and batch. Messages only wake followers early (stored rows are
 * the truth), so a shared store that cannot take one costs followers a poll interval, never the
 * run.
 */
export function wakeFollowers(shared: SharedStore): StoredListener {
  const publish = (id: string, message: string) =>
    shared.publish(eventsChannel(id), message).catch(ignore);
  return (events, finished) => {
    for (const id of events) if (!finished.has(id)) publish(id, STORED);
    for (const id of finished) publish(id, FINISHED);
  };
}

/** The stored record says the run already ended (reaped); its ending is the one that stands. */
export class EndedElsewhere extends Error {
  constructor(readonly record: ExecutionRecord, readonly terminal: EventFrame | undefined) {
    super(`execution ${record.execution_id} already ended as ${record.status}`);
    this.name = "EndedElsewhere";
  }
}

export interface FollowOptions {
  /** Without a message for this long, the stored rows are read again (a lost message's cost). */
  pollMs: number;
  /** Stops following (the consumer went away). */
  signal?: AbortSignal;
}

/**
 * The stream of one execution from its first frame: stored frames, then live ones, ending once
 * the record is terminal and every stored frame was yielded. Works on any instance.
 */
export async function* follow(
  repo: ExecutionRepo,
  shared: SharedStore,
  executionId: string,
  options: FollowOptions,
): AsyncGenerator<EventFrame> {
  let wake: (() => void) | undefined;
  let pending = false;
  const signalled = () => {
    pending = true;
    wake?.();
  };
  const unsubscribe = await shared.subscribe(eventsChannel(executionId), signalled);
  options.signal?.addEventListener("abort", signalled);
  let lastId = -1;
  try {
    for (;;) {
      // Read the status before the frames: a run that is terminal now has stored all its frames.
      const stored = await repo.get(executionId);
      const terminal = stored !== undefined && stored.record.status !== "RUNNING";
      for (const frame of await repo.events(executionId, lastId)) {
        lastId = frame.id;
        yield frame;
      }
      if (terminal || options.signal?.aborted) return;
      if (!pending) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      wake = undefined;
      pending = false;
    }
  } finally {
    options.signal?.removeEventListener("abort", signalled);
    await unsubscribe();
  }
}
