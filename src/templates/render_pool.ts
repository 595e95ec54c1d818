/**
 * Liquid runs in a small pool of workers, never on the event loop (issue 11 item 4). liquidjs's
 * own time limit is only checked between tags, so one filter over a large range (a `where_exp`
 * over millions of items) holds its thread for seconds: in a worker that costs only the render,
 * and the pool's deadline terminates the worker and starts a fresh one. An abort (execution
 * cancel) terminates it too.
 *
 * A worker is sent the body, the parameters, the pinned imports already read and the limits; it
 * asks back for an import of an import, which only the caller can read, and the deadline pauses
 * while the caller reads it. Workers stay up between renders (their liquidjs is loaded once) and
 * are closed after a minute idle, so a script that rendered still exits.
 */
import { AppError, type ErrorCode, type ErrorDetails, reviveAppError } from "../errors/mod.ts";
import { assets } from "../lib/assets.ts";
import type { ImportLoader, RenderedSql, RenderRequest } from "./render.ts";

/** What the pool adds to a render request: when to give up on it. */
export interface PoolOptions {
  signal?: AbortSignal;
}

/** A job as the worker reads it: a render request without its loader, or a syntax check. */
export type WorkerJob =
  | { kind: "render"; request: Omit<RenderRequest, "loadImport">; canLoad: boolean }
  | { kind: "check"; request: SyntaxCheck };

export interface SyntaxCheck {
  template: { id: string; version?: number | null };
  body: string;
  imports: readonly { alias: string; id: string; version: number }[];
}

/** Host → worker. */
export type ToWorker =
  | { type: "job"; job: WorkerJob }
  | { type: "import"; ok: true; body: string; imports: unknown } // a loaded import
  | { type: "import"; ok: false }; // the caller's loader failed; the caller keeps its error

/** Worker → host. */
export type FromWorker =
  | { type: "ready" } // the worker's modules are loaded
  | { type: "done"; result: RenderedSql | null }
  | { type: "failed"; error: SentError }
  | { type: "load"; id: string; version: number };

/** An error as it crosses to the host: a catalogue error, the loader's own, or anything else. */
export type SentError =
  | { kind: "app"; code: ErrorCode; details: ErrorDetails }
  | { kind: "loader" }
  | { kind: "other"; name: string; message: string };

/** Time a render may take past its `max_time_ms` before its worker is terminated. */
export const DEADLINE_GRACE_MS = 250;
const IDLE_CLOSE_MS = 60_000;

interface Job {
  message: WorkerJob;
  maxTimeMs: number;
  loadImport?: ImportLoader;
  signal?: AbortSignal;
  resolve(value: RenderedSql | null): void;
  reject(error: unknown): void;
  onAbort(): void;
  /** The loader's own failure, thrown to the caller unchanged. */
  loaderError?: unknown;
}

class Slot {
  readonly worker: Worker;
  job: Job | null = null;
  /** Loading a worker's modules (type-checked on a cold `deno test`) is not the render's time. */
  #ready = false;
  #budget = 0;
  #since = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly pool: RenderPool) {
    this.worker = new Worker(assets.url("src/templates/render_worker.ts"), {
      type: "module",
    });
    this.worker.onmessage = (e: MessageEvent<FromWorker>) => this.#onMessage(e.data);
    this.worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.pool.fail(this, new Error(`the render worker failed: ${e.message}`));
    };
  }

  start(job: Job): void {
    this.job = job;
    this.#budget = job.maxTimeMs + DEADLINE_GRACE_MS;
    if (this.#ready) this.#run();
    this.worker.postMessage({ type: "job", job: job.message } satisfies ToWorker);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.job = null;
  }

  #run(): void {
    this.#since = performance.now();
    this.#timer = setTimeout(() => {
      const job = this.job;
      if (!job) return;
      this.pool.fail(
        this,
        new AppError("template.render.limit_exceeded", { limit: "time", max: job.maxTimeMs }),
      );
    }, Math.max(0, this.#budget));
  }

  /** The deadline counts the worker's time only: it pauses while the caller reads an import. */
  #pause(): void {
    clearTimeout(this.#timer);
    this.#budget -= performance.now() - this.#since;
  }

  #onMessage(message: FromWorker): void {
    if (message.type === "ready") {
      this.#ready = true;
      if (this.job) this.#run();
      return;
    }
    const job = this.job;
    if (!job) return;
    if (message.type === "load") {
      this.#pause();
      void this.#answerLoad(job, message.id, message.version);
    } else if (message.type === "done") {
      this.pool.finish(this, () => job.resolve(message.result));
    } else {
      this.pool.finish(this, () => job.reject(received(message.error, job)));
    }
  }

  async #answerLoad(job: Job, id: string, version: number): Promise<void> {
    let answer: ToWorker;
    try {
      const source = await job.loadImport!(id, version);
      answer = { type: "import", ok: true, body: source?.body, imports: source?.imports };
    } catch (error) {
      job.loaderError = error;
      answer = { type: "import", ok: false };
    }
    if (this.job !== job) return;
    this.#run();
    try {
      this.worker.postMessage(answer);
    } catch (error) {
      // An import that cannot cross to the worker (it came from the caller's loader).
      this.pool.fail(this, error);
    }
  }
}

/** The error a worker reported, as the caller would have seen it from an in-process render. */
function received(error: SentError, job: Job): unknown {
  if (error.kind === "app") return reviveAppError(error.code, error.details);
  if (error.kind === "loader") return job.loaderError;
  const out = new Error(error.message);
  out.name = error.name;
  return out;
}

export class RenderPool {
  readonly #size: number;
  readonly #slots = new Set<Slot>();
  readonly #idle: Slot[] = [];
  readonly #queue: Job[] = [];
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Workers terminated mid-render (deadline, abort or crash); tests read it. */
  replaced = 0;

  constructor(size: number) {
    this.#size = size;
  }

  run(
    message: WorkerJob,
    maxTimeMs: number,
    loadImport: ImportLoader | undefined,
    signal: AbortSignal | undefined,
  ): Promise<RenderedSql | null> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const job: Job = {
        message,
        maxTimeMs,
        loadImport,
        signal,
        resolve,
        reject,
        onAbort: () => this.#abort(job),
      };
      signal?.addEventListener("abort", job.onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** Workers currently up (busy or idle). */
  get workers(): number {
    return this.#slots.size;
  }

  /** Workers running a render now. */
  get busy(): number {
    return [...this.#slots].filter((slot) => slot.job !== null).length;
  }

  /** Terminates every worker; queued and running renders fail. */
  close(): void {
    clearTimeout(this.#idleTimer);
    for (const job of this.#queue.splice(0)) job.reject(new Error("the render pool closed"));
    for (const slot of [...this.#slots]) {
      slot.job?.reject(new Error("the render pool closed"));
      this.#drop(slot);
    }
  }

  /** A job ended with an answer from its worker: the worker is free again. */
  finish(slot: Slot, settle: () => void): void {
    const job = slot.job!;
    slot.stop();
    this.#forget(job);
    settle();
    this.#idle.push(slot);
    this.#pump();
  }

  /** The job's worker must go (deadline, crash): it is terminated and the job fails. */
  fail(slot: Slot, error: unknown): void {
    const job = slot.job;
    this.replaced++;
    this.#drop(slot);
    if (job) {
      this.#forget(job);
      job.reject(error);
    }
    this.#pump();
  }

  #abort(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      this.#forget(job);
      job.reject(job.signal!.reason);
      return;
    }
    for (const slot of this.#slots) if (slot.job === job) this.fail(slot, job.signal!.reason);
  }

  #forget(job: Job): void {
    job.signal?.removeEventListener("abort", job.onAbort);
  }

  #drop(slot: Slot): void {
    slot.stop();
    slot.worker.terminate();
    this.#slots.delete(slot);
    const idle = this.#idle.indexOf(slot);
    if (idle >= 0) this.#idle.splice(idle, 1);
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      let slot = this.#idle.pop();
      if (!slot && this.#slots.size < this.#size) {
        slot = new Slot(this);
        this.#slots.add(slot);
      }
      if (!slot) break;
      const job = this.#queue.shift()!;
      try {
        slot.start(job);
      } catch (error) {
        // A request that cannot cross to the worker fails alone; the worker stays free.
        slot.stop();
        this.#forget(job);
        job.reject(error);
        this.#idle.push(slot);
      }
    }
    this.#scheduleIdleClose();
  }

  #scheduleIdleClose(): void {
    clearTimeout(this.#idleTimer);
    if (this.#queue.length > 0 || this.#idle.length === 0) return;
    const timer = setTimeout(() => {
      for (const slot of this.#idle.splice(0)) this.#drop(slot);
    }, IDLE_CLOSE_MS);
    Deno.unrefTimer(timer);
    this.#idleTimer = timer;
  }
}

let shared: RenderPool | undefined;

/** The process's pool: a worker per core but one (left to the event loop), at most four. */
export function renderPool(): RenderPool {
  shared ??= new RenderPool(Math.max(1, Math.min(4, navigator.hardwareConcurrency - 1)));
  return shared;
}
