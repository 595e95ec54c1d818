/**
 * The metadata store as repositories see it. SQL is written once with `$1, $2…` placeholders; the
 * SQLite adapter renumbers them. Values bind as string, number, boolean, null, Date or Uint8Array.
 */

export type Row = Record<string, unknown>;
export type SqlValue = string | number | boolean | null | undefined | Date | Uint8Array | bigint;

export type Dialect = "sqlite" | "postgres";

/** What a repository needs: run a statement, read rows. */
export interface Queryable {
  readonly dialect: Dialect;
  /** All rows of a query. */
  query<T = Row>(sql: string, params?: SqlValue[]): Promise<T[]>;
  /** The first row, or undefined. */
  first<T = Row>(sql: string, params?: SqlValue[]): Promise<T | undefined>;
  /** Runs a statement; returns the number of rows it changed. */
  execute(sql: string, params?: SqlValue[]): Promise<number>;
}

export interface Db extends Queryable {
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. Nested
   * calls are not supported; pass the `tx` down instead.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Runs a multi-statement script while holding the store-wide migration lock (PostgreSQL
   * advisory lock, SQLite write lock), inside one transaction.
   */
  withMigrationLock<T>(
    fn: (tx: Queryable & { script(sql: string): Promise<void> }) => Promise<T>,
  ): Promise<T>;
  /** Cheap round trip; throws when the store is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** True when an error is a unique-constraint violation on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errcode?: string; message?: string };
  return e?.code === "23505" || e?.errcode === "23505" ||
    /UNIQUE constraint failed/.test(String(e?.message ?? ""));
}

/** Reads a boolean column stored as 0/1 (SQLite) or boolean (PostgreSQL). */
export function bool(value: unknown): boolean {
  return value === true || value === 1 || value === "1" || value === "t";
}
