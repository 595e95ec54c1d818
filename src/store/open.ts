import { PostgresDb } from "./postgres.ts";
import { SqliteDb } from "./sqlite.ts";
import type { Db } from "./types.ts";

/** Opens the metadata store named by `service.store.url`. */
export async function openDb(url: string, options: { poolSize?: number } = {}): Promise<Db> {
  if (url.startsWith("sqlite:")) return await SqliteDb.open(url);
  return new PostgresDb(url, options);
}
