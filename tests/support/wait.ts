/** What {@link eventually} waits for, how long, and how often it looks. */
export interface EventuallyOptions {
  /** Named in the failure: "the pool to retire". */
  what?: string;
  /** The deadline (default 5000). */
  ms?: number;
  /** The pause between looks (default 10). */
  intervalMs?: number;
}

/**
 * Polls until `check` returns a truthy value, and returns it; tests wait on outcomes with a
 * deadline, never for a fixed time. The one polling loop of the test suite.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  options: number | EventuallyOptions = {},
): Promise<T> {
  const { what = "condition", ms = 5000, intervalMs = 10 } = typeof options === "number"
    ? { ms: options }
    : options;
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
