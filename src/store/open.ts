import { tracing } from "../lib/tracing.ts";
import { PostgresDb } from "./postgres.ts";
import { SqliteDb } from "./sqlite.ts";
import { tracedDb } from "./traced.ts";
import type { Db } from "./types.ts";

/** Opens the metadata store named by `service.store.url`; with spans when traces are exported. */
export async function openDb(url: string, options: { poolSize?: number } = {}): Promise<Db> {
  const db = url.startsWith("sqlite:") ? await SqliteDb.open(url) : new PostgresDb(url, options);
  return tracing ? tracedDb(db) : db;
}
