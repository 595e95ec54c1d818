import { tracing } from "../lib/tracing.ts";
import { SqliteDb } from "./sqlite.ts";
import { tracedDb } from "./traced.ts";
import type { Db } from "./types.ts";
import type { PostgresOptions } from "./postgres.ts";

/**
 * Opens the metadata store named by `service.store.url`; with spans when traces are exported.
 * The PostgreSQL store (and postgres.js under it) is loaded only when the URL names one, so the
 * embedded default never pays for it at startup.
 */
export async function openDb(url: string, options: PostgresOptions = {}): Promise<Db> {
  const db = url.startsWith("sqlite:")
    ? await SqliteDb.open(url)
    : new (await import("./postgres.ts")).PostgresDb(url, options);
  return tracing ? tracedDb(db) : db;
}
