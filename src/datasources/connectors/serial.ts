/**
 * One task at a time, in arrival order: an embedded datasource's writes. Its reads run side by
 * side on the pool's connections; two writing transactions would conflict in DuckDB or wait on
 * SQLite's file lock (docs/datasources.md#embedded-pools).
 */
export class Serial {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => {});
    return result;
  }
}
