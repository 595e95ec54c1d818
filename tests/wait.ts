/** Polls until `check` holds; tests wait on outcomes with a deadline, never for a fixed time. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms = 5000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
