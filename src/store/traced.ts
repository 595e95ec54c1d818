/**
 * The metadata store with a span around every statement and transaction, for traces
 * (src/lib/tracing.ts). `openDb` wraps the store in it only when this process exports traces, so
 * an instance without them pays nothing. The statement's text is ours (values are bound, never in
 * it), so the span names it, cut short.
 */
import { inSpan } from "../lib/tracing.ts";
import type { Db, Queryable, Row, SqlValue } from "./types.ts";

function attributes(q: Queryable, sql: string) {
  return {
    "db.system.name": q.dialect === "sqlite" ? "sqlite" : "postgresql",
    "db.query.text": sql.length > 300 ? sql.slice(0, 300) + "…" : sql,
  };
}

function tracedQueries(q: Queryable): Queryable {
  return {
    dialect: q.dialect,
    query: <T = Row>(sql: string, params?: SqlValue[]) =>
      inSpan("store.query", attributes(q, sql), () => q.query<T>(sql, params)),
    first: <T = Row>(sql: string, params?: SqlValue[]) =>
      inSpan("store.query", attributes(q, sql), () => q.first<T>(sql, params)),
    execute: (sql: string, params?: SqlValue[]) =>
      inSpan("store.execute", attributes(q, sql), () => q.execute(sql, params)),
  };
}

/** `db` with spans; everything else (ping, close, migrations) passes straight through. */
export function tracedDb(db: Db): Db {
  const system = { "db.system.name": db.dialect === "sqlite" ? "sqlite" : "postgresql" };
  return {
    ...tracedQueries(db),
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      inSpan("store.transaction", system, () => db.transaction((tx) => fn(tracedQueries(tx)))),
    withMigrationLock: (fn) => db.withMigrationLock(fn),
    ping: () => db.ping(),
    close: () => db.close(),
  };
}
