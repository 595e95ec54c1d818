/**
 * Serve timeouts on one timer per distinct length instead of one per request: a timer is a
 * Node `Timeout` object here (the npm compatibility layer owns the global), which costs a served
 * request more than its whole frame loop. Deadlines of the same length fall in arrival order, so
 * each length is a queue whose oldest live entry alone needs timing. No timer is left armed once
 * every deadline has expired or been cancelled.
 */
interface Entry {
  at: number;
  expired: () => void;
}

class Queue {
  readonly entries = new Set<Entry>();
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** The timer functions, injectable so a test can see what stays armed. */
export interface Timers {
  set(fire: () => void, ms: number): ReturnType<typeof setTimeout>;
  clear(timer: ReturnType<typeof setTimeout>): void;
}

const GLOBAL_TIMERS: Timers = {
  set: (fire, ms) => setTimeout(fire, ms),
  clear: (timer) => clearTimeout(timer),
};

export class Deadlines {
  readonly #queues = new Map<number, Queue>();
  readonly #now: () => number;
  readonly #timers: Timers;

  constructor(now: () => number = () => performance.now(), timers: Timers = GLOBAL_TIMERS) {
    this.#now = now;
    this.#timers = timers;
  }

  /** Calls `expired` once `ms` have passed, unless the returned function cancels it first. */
  after(ms: number, expired: () => void): () => void {
    let queue = this.#queues.get(ms);
    if (!queue) this.#queues.set(ms, queue = new Queue());
    const entry: Entry = { at: this.#now() + ms, expired };
    queue.entries.add(entry);
    if (queue.timer === undefined) this.#arm(queue, ms);
    return () => {
      if (!queue.entries.delete(entry) || queue.entries.size > 0) return;
      this.#timers.clear(queue.timer!);
      queue.timer = undefined;
    };
  }

  #arm(queue: Queue, delay: number): void {
    queue.timer = this.#timers.set(() => this.#fire(queue), delay);
  }

  #fire(queue: Queue): void {
    queue.timer = undefined;
    const now = this.#now();
    const due: Entry[] = [];
    for (const entry of queue.entries) {
      // The head may have been cancelled since the timer was set for it: wait for the next.
      if (entry.at > now) {
        this.#arm(queue, Math.max(1, entry.at - now));
        break;
      }
      queue.entries.delete(entry);
      due.push(entry);
    }
    for (const entry of due) entry.expired();
  }
}
