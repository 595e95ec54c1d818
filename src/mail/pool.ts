/**
 * A bounded work pool: a fixed number of workers and a fixed-size queue. When both are full,
 * `offer` says no and the caller runs the task itself (a caller-runs policy), so a flood of
 * notices slows the requests that raise them instead of growing memory without bound.
 */

export type Task = () => Promise<unknown>;

export class BoundedPool {
  readonly #workers: number;
  readonly #capacity: number;
  readonly #queue: Task[] = [];
  #running = 0;
  #idle: (() => void)[] = [];

  constructor(workers: number, capacity: number) {
    this.#workers = workers;
    this.#capacity = capacity;
  }

  /** Starts or queues `task`; false when both workers and queue are full (the caller runs it). */
  offer(task: Task): boolean {
    if (this.#running < this.#workers) {
      this.#start(task);
      return true;
    }
    if (this.#queue.length < this.#capacity) {
      this.#queue.push(task);
      return true;
    }
    return false;
  }

  /** Tasks running and waiting. */
  get size(): { running: number; queued: number } {
    return { running: this.#running, queued: this.#queue.length };
  }

  /** Resolves once nothing runs and nothing waits. */
  idle(): Promise<void> {
    if (this.#running === 0 && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Removes and returns the tasks not yet started (shutdown past its deadline). */
  drop(): Task[] {
    return this.#queue.splice(0);
  }

  #start(task: Task): void {
    this.#running++;
    // A task reports its own failures; one that throws anyway must not stop the worker.
    task().catch(() => {}).finally(() => {
      this.#running--;
      const next = this.#queue.shift();
      if (next) return this.#start(next);
      if (this.#running === 0) {
        for (const resolve of this.#idle.splice(0)) resolve();
      }
    });
  }
}
