/**
 * Every row of a SQLite read, or its error. Deno's node:sqlite `iterate()` ends quietly when
 * stepping fails (malformed JSON in json_extract, an integer overflow, a function's error,
 * SQLITE_BUSY), so a read cut short looks complete; only `all()` and `get()` throw.
 *
 * So the statement is stepped as `SELECT * FROM (<sql>) UNION ALL SELECT <token>, NULL, ...`:
 * SQLite runs the token row only after the statement's last row, so a read that ends without it
 * was cut short, and `get()` at that position (which throws) recovers SQLite's own error. This
 * costs one row, where paging with LIMIT/OFFSET re-sorts and re-skips per batch and a verifying
 * second pass re-runs the whole statement (docs/datasources.md, SQLITE; measured in `deno task bench`).
 *
 * Row order: SQLite keeps a FROM-clause subquery's ORDER BY unless the outer query has its own
 * ORDER BY or is a join, which this one never is. SQLite documents no such promise, so the tests
 * compare wrapped reads with `all()` over ordered shapes, and a token that is not the last row
 * fails the read instead of passing silently. Whichever rows a missing token leaves unread, the
 * read fails: re-reading only chooses the message.
 *
 * A statement that cannot be a subquery (PRAGMA, EXPLAIN, RETURNING, one without result columns)
 * is read whole with `all()`: those results are small, and `all()` does throw.
 */
import type { DatabaseSync, SQLInputValue, StatementColumnMetadata } from "node:sqlite";
import { rowBytes } from "./value_bounds.ts";

export type Raw = bigint | number | string | Uint8Array | null;

export interface SqliteRows {
  readonly columns: StatementColumnMetadata[];
  /**
   * Up to `n` rows, and fewer once they hold `maxBytes` of values (at least one row) or at the
   * end (`ended`). Throws the statement's error.
   */
  next(n: number, maxBytes?: number): Raw[][];
  /** The last row has been read. */
  readonly ended: boolean;
  /** Stops a read before its end and frees the statement. */
  close(): void;
}

const TOKEN = crypto.getRandomValues(new Uint8Array(16));
const TOKEN_SQL = `X'${Array.from(TOKEN, (b) => b.toString(16).padStart(2, "0")).join("")}'`;

function isToken(value: Raw): boolean {
  return value instanceof Uint8Array && value.length === TOKEN.length &&
    value.every((b, i) => b === TOKEN[i]);
}

type Prepared = ReturnType<DatabaseSync["prepare"]>;

/**
 * Rows as arrays of raw values. `setReturnArrays` is missing from the node:sqlite types a worker
 * graph is checked with (the main graph's @types/node has it).
 */
function rawRows(stmt: Prepared): void {
  stmt.setReadBigInts(true);
  (stmt as unknown as { setReturnArrays(on: boolean): void }).setReturnArrays(true);
}

/** Prepares and starts `sql` on `db`; prepare errors throw here, as before. */
export function readRows(db: DatabaseSync, sql: string, values: SQLInputValue[]): SqliteRows {
  const stmt = db.prepare(sql);
  const columns = stmt.columns();
  // sourceSQL is the first statement only, with its `;`, which a subquery cannot hold.
  const inner = `${stmt.sourceSQL.trimEnd().replace(/;$/, "")}\n`;
  let wrapped;
  try {
    if (columns.length === 0) throw new Error("no result columns");
    const nulls = columns.slice(1).map(() => ", NULL").join("");
    wrapped = db.prepare(`SELECT * FROM (${inner}) UNION ALL SELECT ${TOKEN_SQL}${nulls}`);
  } catch {
    return whole(stmt, columns, values);
  }
  rawRows(wrapped);
  const iterator = wrapped.iterate(...values);
  let read = 0;
  let ended = false;
  return {
    columns,
    get ended() {
      return ended;
    },
    next(n, maxBytes = Infinity) {
      const rows: Raw[][] = [];
      let bytes = 0;
      while (!ended && rows.length < n && bytes < maxBytes) {
        const step = iterator.next();
        if (step.done) throw cutShort(db, inner, values, read);
        const row = step.value as unknown as Raw[];
        if (isToken(row[0])) {
          ended = true;
          if (!iterator.next().done) {
            throw new Error("SQLite returned rows after the end-of-read marker");
          }
          break;
        }
        rows.push(row);
        read++;
        if (maxBytes !== Infinity) bytes += rowBytes(row);
      }
      return rows;
    },
    close() {
      if (!ended) iterator.return?.();
      ended = true;
    },
  };
}

/**
 * The error that cut a read short after `read` rows: the statement is run again up to that row
 * with `get()`, which throws what stepping hit. A failure that does not come back (a lock since
 * released) still fails the read, never passes it.
 */
function cutShort(db: DatabaseSync, inner: string, values: SQLInputValue[], read: number): Error {
  try {
    db.prepare(`SELECT * FROM (${inner}) LIMIT 1 OFFSET ${read}`).get(...values);
  } catch (error) {
    return error as Error;
  }
  return Object.assign(
    new Error(
      `SQLite stopped the read after ${read} rows without reporting why, and reading again ` +
        "did not fail",
    ),
    { code: "ERR_SQLITE_ERROR" },
  );
}

function whole(
  stmt: Prepared,
  columns: StatementColumnMetadata[],
  values: SQLInputValue[],
): SqliteRows {
  rawRows(stmt);
  let rows = stmt.all(...values) as unknown as Raw[][];
  let at = 0;
  return {
    columns,
    get ended() {
      return at >= rows.length;
    },
    next(n) {
      const batch = rows.slice(at, at + n);
      at += batch.length;
      return batch;
    },
    close() {
      rows = [];
    },
  };
}
