/**
 * The embedded store gives freed pages back to the file system only in auto_vacuum INCREMENTAL
 * mode (the retention sweeps then run `PRAGMA incremental_vacuum`, executions/retention.ts). A
 * database created by this build has it from its first page (SqliteDb sets it before anything is
 * written); one created before needs a VACUUM to switch, which rewrites the whole file.
 *
 * The switch runs once, at `serve` startup after migrations and before the listener opens: no
 * request waits on it, the file is rewritten in one transaction (a crash leaves the old file
 * whole), and it needs free disk about the database's size. Other commands (backup, restore)
 * never start it. PostgreSQL: nothing to do.
 */
import type { Queryable } from "./types.ts";

const INCREMENTAL = 2;

/** Switches an older embedded store to incremental vacuum; true when it rewrote the file. */
export async function ensureIncrementalVacuum(db: Queryable): Promise<boolean> {
  if (db.dialect !== "sqlite") return false;
  const mode = await db.first<{ auto_vacuum: number }>("PRAGMA auto_vacuum");
  if (Number(mode?.auto_vacuum) === INCREMENTAL) return false;
  await db.execute("PRAGMA auto_vacuum = INCREMENTAL");
  await db.execute("VACUUM");
  return true;
}
