/**
 * `main.ts backup --to FILE`: the embedded store and the secrets that open it, in one file.
 *
 * The file is a POSIX tar (docs/operations.md, "Backup and restore"), mode 0600, with, in order:
 *   manifest.json              what the file is: format, versions, sizes, the database's SHA-256
 *   secrets/jwt_secret         base64, as in `<data-dir>/secrets/`
 *   secrets/encryption_key     base64, as in `<data-dir>/secrets/`
 *   service.db                 a consistent snapshot of the metadata store (`VACUUM INTO`)
 *
 * The secrets are write-only everywhere else in the product; this file is the one place they
 * leave, so it is created readable by its owner only, is never written over unless asked, and
 * nothing here logs a secret.
 */
import { createHash } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import {
  readSecrets,
  type ResolvedConfig,
  SECRET_NAMES,
  type SecretName,
  secretProblem,
  StartupError,
} from "./config/mod.ts";
import { readBuildInfo } from "./health/mod.ts";
import { exists } from "./lib/exists.ts";
import { TarWriter } from "./lib/tar.ts";
import { SqliteDb } from "./store/mod.ts";

export const BACKUP_FORMAT = "svc-backup";
export const BACKUP_FORMAT_VERSION = 1;
export const DATABASE_ENTRY = "service.db";
export const MANIFEST_ENTRY = "manifest.json";

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: typeof BACKUP_FORMAT_VERSION;
  created_at: string;
  service_version: string;
  /** The highest migration applied to the snapshot. */
  schema_version: number;
  /** The data directory backed up (absolute): file datasources may name files under it. */
  source_data_dir: string;
  database: { entry: typeof DATABASE_ENTRY; bytes: number; sha256: string };
  /** Where each secret came from when the backup was taken; restore writes both as files. */
  secrets: Record<SecretName, { entry: string; from: "environment" | "file" }>;
}

export interface BackupReport {
  file: string;
  bytes: number;
  database_bytes: number;
  schema_version: number;
  ms: number;
}

/** The store's file path on the embedded store; refuses PostgreSQL with where to look instead. */
export function embeddedStorePath(config: ResolvedConfig, command: string): string {
  if (config.store.kind !== "sqlite") {
    throw new StartupError(
      `${command} is for the embedded store; service.store.url names PostgreSQL: use pg_dump ` +
        `and pg_restore (docs/operations.md, "Backup and restore")`,
    );
  }
  const path = config.store.url.slice("sqlite:".length);
  if (path === ":memory:") throw new StartupError("an in-memory store has no file to back up");
  return path;
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of (await Deno.open(path)).readable) hash.update(chunk);
  return hash.digest("hex");
}

function schemaVersion(snapshot: string): number {
  const db = new DatabaseSync(snapshot, { readOnly: true });
  try {
    const row = db.prepare("SELECT max(version) AS v FROM schema_migrations").get();
    return Number(row?.v ?? 0);
  } finally {
    db.close();
  }
}

/** Writes the backup file; see the module comment. Refusals are StartupErrors (exit code 2). */
export async function writeBackup(
  config: ResolvedConfig,
  env: Record<string, string>,
  to: string,
  options: { force?: boolean } = {},
): Promise<BackupReport> {
  const started = performance.now();
  const dbPath = embeddedStorePath(config, "backup");
  if (!(await exists(dbPath))) {
    throw new StartupError(`no database at ${dbPath}; is service.data-dir right?`);
  }
  const secrets = await readSecrets(config, env);
  for (const name of Object.keys(SECRET_NAMES) as SecretName[]) {
    const found = secrets[name];
    if (!found) {
      throw new StartupError(
        `${name} is neither set (${SECRET_NAMES[name]}) nor in ${config.dataDir}/secrets/; ` +
          `a backup without it could not be opened`,
      );
    }
    const problem = secretProblem(name, found.text);
    if (problem) throw new StartupError(problem);
  }
  const parent = to.includes("/") ? to.slice(0, to.lastIndexOf("/")) || "/" : ".";
  if (!(await Deno.stat(parent).then((s) => s.isDirectory, () => false))) {
    throw new StartupError(`${parent} is not a directory; create it first`);
  }
  if (!options.force && (await exists(to))) {
    throw new StartupError(`${to} exists; name a new file, or pass --force to replace it`);
  }

  // Beside the target, so the snapshot lands on the filesystem that must hold the backup anyway.
  const tag = crypto.randomUUID().slice(0, 8);
  const snapshot = `${to}.${tag}.snapshot`;
  const partial = `${to}.${tag}.partial`;
  try {
    // Created empty and private first: the copy holds every sealed secret and password hash.
    (await Deno.open(snapshot, { createNew: true, write: true, mode: 0o600 })).close();
    const live = await SqliteDb.open(config.store.url);
    try {
      await live.snapshotInto(snapshot);
    } finally {
      await live.close();
    }
    const databaseBytes = (await Deno.stat(snapshot)).size;
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      created_at: new Date().toISOString(),
      service_version: (await readBuildInfo()).version,
      schema_version: schemaVersion(snapshot),
      source_data_dir: await Deno.realPath(config.dataDir).catch(() => config.dataDir),
      database: { entry: DATABASE_ENTRY, bytes: databaseBytes, sha256: await fileSha256(snapshot) },
      secrets: {
        jwt_secret: { entry: "secrets/jwt_secret", from: secrets.jwt_secret!.from },
        encryption_key: { entry: "secrets/encryption_key", from: secrets.encryption_key!.from },
      },
    };

    const out = await Deno.open(partial, { createNew: true, write: true, mode: 0o600 });
    const mtime = Date.now() / 1000;
    const tar = new TarWriter(out.writable);
    const text = (s: string) => new TextEncoder().encode(s);
    const manifestBytes = text(JSON.stringify(manifest, null, 2) + "\n");
    await tar.add(
      { name: MANIFEST_ENTRY, size: manifestBytes.length, mode: 0o600, mtime },
      manifestBytes,
    );
    for (const name of Object.keys(SECRET_NAMES) as SecretName[]) {
      const body = text(secrets[name]!.text + "\n");
      await tar.add({ name: `secrets/${name}`, size: body.length, mode: 0o600, mtime }, body);
    }
    await tar.add(
      { name: DATABASE_ENTRY, size: databaseBytes, mode: 0o600, mtime },
      (await Deno.open(snapshot)).readable,
    );
    await tar.finish();
    // On disk before it is published under its name.
    const written = await Deno.open(partial, { read: true });
    await written.syncData().finally(() => written.close());

    if (options.force) {
      await Deno.rename(partial, to);
    } else {
      // A link, unlike a rename, refuses a name someone took meanwhile.
      try {
        await Deno.link(partial, to);
      } catch (e) {
        if (e instanceof Deno.errors.AlreadyExists) {
          throw new StartupError(`${to} exists; name a new file, or pass --force`);
        }
        throw e;
      }
    }
    await Deno.chmod(to, 0o600);
    return {
      file: to,
      bytes: (await Deno.stat(to)).size,
      database_bytes: databaseBytes,
      schema_version: manifest.schema_version,
      ms: Math.round(performance.now() - started),
    };
  } finally {
    for (const leftover of [snapshot, partial]) {
      await Deno.remove(leftover).catch(() => {});
    }
  }
}
