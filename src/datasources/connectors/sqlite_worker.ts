/// <reference lib="deno.worker" />
/**
 * One SQLite connection on its own thread (see `sqlite_thread.ts`). node:sqlite is synchronous:
 * here a long statement holds only this worker, never the server's event loop, and the main
 * thread ends it by terminating the worker. Requests are handled one at a time, in order; a read
 * advances only when asked for its next batch, so the rows in flight stay bounded.
 */
import { setPriority } from "node:os";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { type Raw, readRows, type SqliteRows } from "./sqlite_rows.ts";
import { sqliteConverter, sqliteWireType, storageClassType } from "./sqlite_types.ts";
import type { ColumnSchema, WireValue } from "./types.ts";
import { type Phase, refusal } from "./sqlite_policy.ts";
import type { NextBatch, SqliteRequest, WorkerError } from "./sqlite_thread.ts";
import { BATCH_BYTES } from "./value_bounds.ts";

/**
 * node:sqlite's confinement API as Deno 2.9 implements it; the node:sqlite types a worker graph
 * is checked with predate it (the main graph's @types/node has it).
 */
interface Confinable {
  limits: { attach: number; length: number };
  setAuthorizer(
    callback: (action: number, arg1: string | null, arg2: string | null) => number,
  ): void;
}

/**
 * Below the server's own thread: when SQLite work and a request compete for the CPU, the
 * request goes first (`/health` stays within its 100 ms while statements run). On Linux a nice
 * value is per thread, so this is this worker's alone; elsewhere it would be the whole process's.
 */
const WORKER_NICE = 19;
if (Deno.build.os === "linux") setPriority(0, WORKER_NICE);

let db: DatabaseSync | undefined;
let phase: Phase = "system";
let refused: string | undefined;
type Convert = (rows: Raw[][]) => WireValue[][];
const cursors = new Map<number, { rows: SqliteRows; phase: Phase; convert: Convert }>();
let lastCursor = 0;

function open(path: string, readOnly: boolean, busyTimeout: number): void {
  // The file must exist: opening a mistyped path must not create an empty database.
  if (path !== ":memory:") Deno.statSync(path);
  const options = { readOnly, allowExtension: false, defensive: true };
  db = new DatabaseSync(path, options);
  const confinable = db as unknown as Confinable;
  // No second database on this connection, whatever asks (ATTACH, VACUUM INTO): the engine's
  // own limit, under the authorizer's refusal.
  confinable.limits.attach = 0;
  db.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeout)}`);
  if (readOnly) db.exec("PRAGMA query_only = ON");
  confinable.setAuthorizer((action, arg1, arg2) => {
    const why = refusal(phase, action, arg1, arg2);
    if (why === undefined) return 0; // SQLITE_OK
    refused ??= why;
    return 1; // SQLITE_DENY
  });
}

function database(): DatabaseSync {
  if (!db) throw new Error("the SQLite connection is not open");
  return db;
}

/** Runs `fn` with the authorizer in `p`, back to `system` after. */
function as<T>(p: Phase, fn: () => T): T {
  phase = p;
  try {
    return fn();
  } finally {
    phase = "system";
  }
}

/** The executor's own repeated statements (a staging table's full-batch INSERT), kept prepared. */
const statements = new Map<string, StatementSync>();
function prepared(d: DatabaseSync, sql: string): StatementSync {
  let stmt = statements.get(sql);
  if (!stmt) {
    if (statements.size >= 16) statements.clear();
    stmt = d.prepare(sql);
    statements.set(sql, stmt);
  }
  return stmt;
}

function handle(request: SqliteRequest): unknown {
  switch (request.op) {
    case "open":
      return open(request.path, request.readOnly, request.busyTimeout);
    case "query": {
      const p: Phase = request.readOnly ? "read" : "author";
      // The engine refuses any string or blob over it, before it reaches this thread's heap
      // (one byte more: SQLite's string builders count their terminating NUL against it).
      (database() as unknown as Confinable).limits.length = request.maxCellBytes + 1;
      return as(p, () => {
        const rows = readRows(database(), request.sql, request.values);
        const first = rows.next(request.batchRows, BATCH_BYTES);
        // Wire types and values are made here, off the server's thread.
        const schema: ColumnSchema[] = rows.columns.map((col, i) => {
          if (col.type) {
            return { name: col.name, type: sqliteWireType(col.type).type, source_type: col.type };
          }
          const sample = first.find((row) => row[i] !== null)?.[i] ?? null;
          const inferred = storageClassType(sample);
          return { name: col.name, type: inferred.type, source_type: inferred.source };
        });
        const converters = schema.map((c) => sqliteConverter(c.type));
        const convert: Convert = (batch) => batch.map((row) => row.map((v, i) => converters[i](v)));
        const ended = rows.ended;
        const cursor = ended ? 0 : ++lastCursor;
        if (ended) rows.close();
        else cursors.set(cursor, { rows, phase: p, convert });
        return { cursor, schema, rows: convert(first) };
      });
    }
    case "next": {
      const open = cursors.get(request.cursor);
      if (!open) return { rows: [], ended: true } satisfies NextBatch;
      try {
        const batch = as(open.phase, () => open.rows.next(request.rows, BATCH_BYTES));
        const ended = open.rows.ended;
        if (ended) cursors.delete(request.cursor);
        return { rows: open.convert(batch), ended } satisfies NextBatch;
      } catch (error) {
        cursors.delete(request.cursor);
        throw error;
      }
    }
    case "close":
      cursors.get(request.cursor)?.rows.close();
      cursors.delete(request.cursor);
      return undefined;
    case "exec":
      return database().exec(request.sql);
    case "run":
      return as(
        "author",
        () => Number(database().prepare(request.sql).run(...request.values).changes),
      );
    case "all":
      return database().prepare(request.sql).all(...request.values);
    case "batch": {
      // One transaction: the executor's own statements (staging inserts), all or none.
      const d = database();
      d.exec("BEGIN");
      try {
        for (const s of request.statements) prepared(d, s.sql).run(...s.values);
        d.exec("COMMIT");
      } catch (error) {
        if (d.isTransaction) d.exec("ROLLBACK");
        throw error;
      }
      return undefined;
    }
    case "shut":
      for (const c of cursors.values()) c.rows.close();
      cursors.clear();
      statements.clear();
      if (db?.isOpen) db.close();
      return undefined;
  }
}

function describe(error: unknown): WorkerError {
  const e = error as Partial<WorkerError> & { name?: string };
  // The authorizer refused part of the statement: SQLite reports SQLITE_AUTH, or SQLITE_ERROR
  // ("not authorized to use function") for a refused function; either is the refusal.
  const authDenied = refused !== undefined && (e?.errcode === 23 || e?.errcode === 1);
  const errcode = authDenied ? 23 : e?.errcode;
  return {
    name: typeof e?.name === "string" ? e.name : "Error",
    message: authDenied ? `not authorized: ${refused}` : String(e?.message ?? error),
    ...(typeof e?.code === "string" ? { code: e.code } : {}),
    ...(typeof errcode === "number" ? { errcode } : {}),
    ...(typeof e?.errstr === "string" ? { errstr: e.errstr } : {}),
    ...(authDenied ? { refused } : {}),
  };
}

self.onmessage = (event: MessageEvent<SqliteRequest & { id: number }>) => {
  const { id } = event.data;
  refused = undefined;
  try {
    const value = handle(event.data);
    self.postMessage({ id, ok: true, value, tx: db?.isOpen ? db.isTransaction : false });
  } catch (error) {
    self.postMessage({
      id,
      ok: false,
      error: describe(error),
      tx: db?.isOpen ? db.isTransaction : false,
    });
  }
};
