/**
 * The transactional write every connector runs (`Connector.write`): BEGIN, the statements in
 * order (an abort between two stops the write), COMMIT; on any failure a ROLLBACK, and a
 * `WriteError` carrying what the transaction proved. A driver adapter (`DriverWrite`) runs each
 * step on its leased connection and gives the connection back.
 */
import type { Translated } from "./placeholders.ts";
import { WriteError, type WriteOutcome } from "./types.ts";

export interface DriverWrite {
  /** Opens the transaction (absent where the caller opened it). */
  begin?(): Promise<unknown>;
  /** Runs one statement; the rows it affected, where the driver reports them. */
  run(statement: Translated): Promise<number | null>;
  commit(): Promise<unknown>;
  /** Ends a failed write: true once the ROLLBACK is confirmed. */
  rollback(): Promise<boolean>;
  /** The write's signal aborted: stop the statement running. */
  cancel?(): void;
  /**
   * Gives the connection back; `clean` says the transaction ended (COMMIT or ROLLBACK
   * confirmed), else the connection holds an unknown state.
   */
  release(clean: boolean): Promise<void> | void;
}

export async function runWrite(
  statements: Translated[],
  write: DriverWrite,
  signal?: AbortSignal,
): Promise<WriteOutcome> {
  const rows_affected: (number | null)[] = [];
  const cancel = () => write.cancel?.();
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    await write.begin?.();
    for (const statement of statements) {
      signal?.throwIfAborted();
      rows_affected.push(await write.run(statement));
    }
    signal?.throwIfAborted();
    await write.commit();
    await write.release(true);
    return { committed: true, rolled_back: false, rows_affected };
  } catch (error) {
    const rolledBack = await write.rollback();
    await write.release(rolledBack);
    // An abort's reason stands in for the driver error it caused.
    throw new WriteError(
      rolledBack
        ? { committed: false, rolled_back: true, rows_affected }
        : { rolled_back: false, rows_affected },
      signal?.aborted ? signal.reason : error,
    );
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
}
