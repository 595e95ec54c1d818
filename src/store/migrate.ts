/**
 * Versioned, checksummed migrations: `migrations/<dialect>/NNNN_name.sql`, applied in order inside
 * one transaction under the store-wide migration lock, recorded in `schema_migrations`. An applied
 * file whose checksum changed, or an applied version this build does not know, refuses startup.
 */
import { type Assets, assets } from "../lib/assets.ts";
import { sha256Hex } from "../lib/hashing.ts";
import type { Db, Dialect } from "./types.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

/** Raised when the database and this build's migrations disagree; startup must stop. */
export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MigrationError";
  }
}

const FILE_RE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** Reads and orders one dialect's migration files: `migrations/` of the shipped assets. */
export async function loadMigrations(
  dialect: Dialect,
  from: Assets = assets,
): Promise<Migration[]> {
  const dir = `migrations/${dialect}/`;
  const out: Migration[] = [];
  for (const name of await from.files(dir)) {
    const m = FILE_RE.exec(name);
    if (!m) throw new MigrationError(`${dir}${name}: name must be NNNN_name.sql`);
    const sql = await from.readText(dir + name);
    out.push({
      version: Number(m[1]),
      name,
      sql,
      checksum: `sha256:${await sha256Hex(sql)}`,
    });
  }
  out.sort((a, b) => a.version - b.version);
  out.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new MigrationError(`migrations/${dialect}: expected version ${i + 1}, found ${m.name}`);
    }
  });
  return out;
}

const LEDGER: Record<Dialect, string> = {
  sqlite: `CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  postgres: `CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`,
};

/** Applies every pending migration; returns the names applied by this call. */
export async function migrate(db: Db, migrations?: Migration[]): Promise<string[]> {
  const files = migrations ?? await loadMigrations(db.dialect);
  return await db.withMigrationLock(async (tx) => {
    await tx.script(LEDGER[db.dialect]);
    const applied = await tx.query<{ version: number; name: string; checksum: string }>(
      "SELECT version, name, checksum FROM schema_migrations ORDER BY version",
    );
    const byVersion = new Map(files.map((f) => [f.version, f]));
    for (const row of applied) {
      const file = byVersion.get(Number(row.version));
      if (!file) {
        throw new MigrationError(
          `the database has migration ${row.name}, which this build does not ship; run a newer build`,
        );
      }
      if (file.checksum !== row.checksum) {
        throw new MigrationError(
          `migration ${file.name} changed after it was applied (applied ${row.checksum}, file ${file.checksum}); restore the original file and add a new migration instead`,
        );
      }
    }
    const done = new Set(applied.map((r) => Number(r.version)));
    const ran: string[] = [];
    for (const file of files) {
      if (done.has(file.version)) continue;
      await tx.script(file.sql);
      await tx.execute(
        "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)",
        [file.version, file.name, file.checksum, new Date().toISOString()],
      );
      ran.push(file.name);
    }
    return ran;
  });
}
