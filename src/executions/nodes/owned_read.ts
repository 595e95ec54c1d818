/**
 * A read a node owns from the moment its connector hands it over. A connector gives its
 * connection back when iteration ends, fails or is broken off; a consumer that refuses before
 * taking the first row (a staged table the staging engine cannot create, a writeback target
 * that is read-only, an abort before the first batch) never iterates, and without `release()`
 * the pooled connection would stay leased for good.
 */
export class OwnedRead<T> implements AsyncIterable<T> {
  #started = false;
  /** The source's own error, when the read failed on its side rather than its consumer's. */
  failure: unknown;

  constructor(private readonly source: AsyncIterable<T> & { close?(): Promise<void> }) {}

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    this.#started = true;
    const iterator = this.source[Symbol.asyncIterator]();
    try {
      for (;;) {
        let next: IteratorResult<T>;
        try {
          next = await iterator.next();
        } catch (error) {
          this.failure = error;
          throw error;
        }
        if (next.done) return;
        yield next.value;
      }
    } finally {
      // Broken off by the consumer: the source ends its read (and releases) on return.
      await iterator.return?.();
    }
  }

  /** Gives the connection back if iteration never started; once started, iteration does. */
  async release(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    if (this.source.close) return await this.source.close();
    // No close of its own: start the iteration and break it off at once, which ends a read for
    // every connector (the first batch is already in memory once a read is handed over).
    const iterator = this.source[Symbol.asyncIterator]();
    try {
      await iterator.next();
    } catch {
      return;
    }
    await iterator.return?.().catch(() => {});
  }
}
