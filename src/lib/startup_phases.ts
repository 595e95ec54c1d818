/**
 * Where a start's time goes, for the one debug line `main.ts serve` writes once it listens
 * ("startup phases"): each phase's milliseconds in the order they ran. `module_load_ms` is from
 * the process's start to the first mark: the runtime and the static module graph, which no phase
 * of ours can time from inside.
 */
export class StartupPhases {
  readonly #phases: Record<string, number> = {};
  #last = 0;

  /** Ends the phase running since the previous mark (or since the process started). */
  mark(phase: string): void {
    const now = performance.now();
    this.#phases[`${phase}_ms`] = Math.round(now - this.#last);
    this.#last = now;
  }

  /** Every phase so far, and the total since the process started. */
  summary(): Record<string, number> {
    return { ...this.#phases, total_ms: Math.round(performance.now()) };
  }
}
