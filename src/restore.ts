/**
 * `main.ts restore --from FILE`: unpacks a backup (src/backup.ts) into an empty data directory,
 * then proves the result starts before it says so:
 *   1. the database file is the one backed up (size and SHA-256) and SQLite finds it sound;
 *   2. the service's own startup runs on it (migrations checked and applied, seeds, stores
 *      opened) and the instance would be ready;
 *   3. every stored datasource secret opens under the encryption key the service will use.
 * A refusal at any step removes what the restore wrote, so a second attempt finds the directory
 * empty again; the backup file itself is only read.
 */
import { createHash } from "node:crypto";
import {
  type ResolvedConfig,
  SECRET_NAMES,
  type SecretName,
  secretProblem,
  StartupError,
  writeSecretFile,
} from "./config/mod.ts";
import {
  BACKUP_FORMAT,
  BACKUP_FORMAT_VERSION,
  type BackupManifest,
  DATABASE_ENTRY,
  embeddedStorePath,
  MANIFEST_ENTRY,
} from "./backup.ts";
import { createLogger, type Logger } from "./lib/log.ts";
import { TarReader } from "./lib/tar.ts";
import { createRuntime } from "./runtime.ts";
import { MigrationError, SqliteDb } from "./store/mod.ts";

export interface RestoreReport {
  data_dir: string;
  backup_created_at: string;
  database_bytes: number;
  schema_version: number;
  sealed_datasources_checked: number;
  /**
   * Secrets set in the environment to another value than the backup's: the service reads the
   * environment first, so those win (a different JWT secret ends every earlier session).
   */
  overridden_by_environment: SecretName[];
  /** File datasources still naming files under the backed-up data directory (another path). */
  datasources_under_source_dir: string[];
  ms: number;
}

const MANIFEST_MAX_BYTES = 64 * 1024;

/** A fresh filesystem's own `lost+found` does not make its mount point a used data directory. */
async function isEmptyOrAbsent(dir: string): Promise<"absent" | "empty" | "not empty"> {
  try {
    for await (const e of Deno.readDir(dir)) if (e.name !== "lost+found") return "not empty";
    return "empty";
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return "absent";
    throw e;
  }
}

function refused(message: string): never {
  throw new StartupError(message);
}

function parseManifest(bytes: Uint8Array): BackupManifest {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return refused("manifest.json is not JSON; is this a backup of this service?");
  }
  if (manifest?.format !== BACKUP_FORMAT) refused("not a backup of this service (format)");
  if (manifest.format_version !== BACKUP_FORMAT_VERSION) {
    refused(`backup format version ${manifest.format_version}; this build reads version 1`);
  }
  return manifest;
}

/** Unpacks the file's entries into place; returns the manifest. */
async function unpack(
  from: string,
  dataDir: string,
  dbPath: string,
  env: Record<string, string>,
): Promise<BackupManifest & { overridden: SecretName[] }> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(from);
  } catch (e) {
    return refused(`${from} cannot be read: ${(e as Error).message}`);
  }
  const tar = new TarReader(file.readable);
  try {
    const first = await tar.next();
    if (!first || first.name !== MANIFEST_ENTRY || first.size > MANIFEST_MAX_BYTES) {
      refused(`${from} does not begin with a ${MANIFEST_ENTRY}; is it a backup of this service?`);
    }
    const manifest = parseManifest(await tar.bytes(first.size));
    const expected = new Map<string, SecretName>(
      Object.entries(manifest.secrets).map(([name, s]) => [s.entry, name as SecretName]),
    );
    const seen = new Set<string>();
    const overridden: SecretName[] = [];
    for (let entry = await tar.next(); entry; entry = await tar.next()) {
      const secret = expected.get(entry.name);
      if (secret && secret in SECRET_NAMES && entry.size <= 1024) {
        const text = new TextDecoder().decode(await tar.bytes(entry.size)).trim();
        const problem = secretProblem(secret, text);
        if (problem) refused(`the backup's ${problem}`);
        await writeSecretFile(dataDir, secret, text);
        const set = env[SECRET_NAMES[secret]];
        if (set && set.trim() !== text) overridden.push(secret);
      } else if (entry.name === DATABASE_ENTRY) {
        const hash = createHash("sha256");
        const out = await Deno.open(dbPath, { createNew: true, write: true, mode: 0o600 });
        try {
          await tar.pipeTo(entry.size, async (chunk) => {
            hash.update(chunk);
            let at = 0;
            while (at < chunk.length) at += await out.write(chunk.subarray(at));
          });
          await out.syncData();
        } finally {
          out.close();
        }
        if (
          entry.size !== manifest.database.bytes || hash.digest("hex") !== manifest.database.sha256
        ) {
          refused("the database in the file does not match its manifest (damaged file?)");
        }
      } else {
        refused(`unexpected entry ${entry.name} in the backup`);
      }
      seen.add(entry.name);
    }
    for (const name of [DATABASE_ENTRY, ...expected.keys()]) {
      if (!seen.has(name)) refused(`the backup lacks ${name} (truncated file?)`);
    }
    return { ...manifest, overridden };
  } catch (e) {
    if (e instanceof StartupError) throw e;
    return refused(`${from}: ${(e as Error).message}`);
  } finally {
    await tar.cancel();
  }
}

/** Steps 1 to 3 of the module comment; refuses with the first failure. */
async function check(
  config: ResolvedConfig,
  env: Record<string, string>,
  logger: Logger,
  sourceDir: string,
): Promise<{ sealed: number; underSource: string[] }> {
  const db = await SqliteDb.open(config.store.url);
  try {
    const problems = await db.integrityCheck();
    if (problems.join() !== "ok") refused(`SQLite finds the database unsound: ${problems[0]}`);
  } finally {
    await db.close();
  }
  const runtime = await createRuntime(config, { env, logger });
  try {
    runtime.health.markStarted();
    const ready = await runtime.health.readiness();
    if (!ready.ready) refused(`the restored instance would not be ready: ${ready.reason}`);
    const sealed = await runtime.datasources.checkSealedSecrets();
    if (sealed.unreadable.length > 0) {
      const from = env.SERVICE_ENCRYPTION_KEY
        ? "SERVICE_ENCRYPTION_KEY from the environment, which differs from the backup's"
        : "the restored encryption key";
      refused(
        `the secrets of datasources ${sealed.unreadable.join(", ")} do not open under ${from}`,
      );
    }
    const here = await Deno.realPath(config.dataDir);
    const underSource = here === sourceDir ? [] : (await runtime.db.query<{ name: string }>(
      "SELECT name FROM datasources WHERE instr(jdbc_url, $1) > 0 ORDER BY name",
      [`${sourceDir}/`],
    )).map((r) => r.name);
    return { sealed: sealed.checked, underSource };
  } finally {
    await runtime.close();
  }
}

/** Removes what a refused restore wrote: the directory it made, or the entries it put in one. */
async function undo(dataDir: string, made: boolean, dbPath: string) {
  if (made) {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  } else {
    for await (const entry of Deno.readDir(dataDir)) {
      if (entry.name === "lost+found") continue;
      await Deno.remove(`${dataDir}/${entry.name}`, { recursive: true }).catch(() => {});
    }
  }
  for (const f of [dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) await Deno.remove(f).catch(() => {});
}

/** Restores `from` into the configured (empty) data directory; see the module comment. */
export async function restoreBackup(
  config: ResolvedConfig,
  env: Record<string, string>,
  from: string,
  logger: Logger = createLogger(config.log.level),
): Promise<RestoreReport> {
  const started = performance.now();
  const dbPath = embeddedStorePath(config, "restore");
  const dataDir = config.dataDir;
  const state = await isEmptyOrAbsent(dataDir);
  if (state === "not empty") {
    refused(
      `the data directory ${dataDir} is not empty; restore only into an empty or absent one ` +
        `(move the old one aside first)`,
    );
  }
  if (await Deno.lstat(dbPath).then(() => true, () => false)) {
    refused(`${dbPath} exists; restore never writes over a database`);
  }
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  try {
    const manifest = await unpack(from, dataDir, dbPath, env);
    const checked = await check(config, env, logger, manifest.source_data_dir);
    return {
      data_dir: await Deno.realPath(dataDir),
      backup_created_at: manifest.created_at,
      database_bytes: manifest.database.bytes,
      schema_version: manifest.schema_version,
      sealed_datasources_checked: checked.sealed,
      overridden_by_environment: manifest.overridden,
      datasources_under_source_dir: checked.underSource,
      ms: Math.round(performance.now() - started),
    };
  } catch (e) {
    await undo(dataDir, state === "absent", dbPath);
    // A backup of a newer build (MigrationError) is refused like any other check.
    if (e instanceof StartupError || e instanceof MigrationError) {
      throw new StartupError(`${e.message}; nothing was left in ${dataDir}`);
    }
    throw e;
  }
}
