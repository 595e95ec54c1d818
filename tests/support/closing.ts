/** Scoped resources for tests: whatever a test opens is closed however the test ends. */

/** Runs `fn` on what `opening` makes, closed however `fn` ends. */
export async function closing<T extends { close(): Promise<unknown> }>(
  opening: Promise<T>,
  fn: (made: T) => void | Promise<void>,
): Promise<void> {
  const made = await opening;
  try {
    await fn(made);
  } finally {
    await made.close();
  }
}
