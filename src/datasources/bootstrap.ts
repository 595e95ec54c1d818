/**
 * The bootstrap datasource file (`service.auth.bootstrap-datasource-file`): datasources created at
 * startup from YAML or JSON, through the same validation as `POST /datasources`, stamped by the
 * system actor. Idempotent by name: an existing datasource is left exactly as it is, so a restart
 * changes nothing and later edits made through the API are never overwritten by the file.
 *
 * Format: `{datasources: [entry…]}` or a bare list; an entry is a create body of `POST
 * /datasources`, global unless it names a `workspace`. A secret may come from the environment
 * instead of the file: `credential.secret_env: NAME` (or top-level `password_env` for the legacy
 * pair).
 */
import { parse as parseYaml } from "yaml";
import { AppError } from "../errors/mod.ts";
import type { Principal } from "../identity/mod.ts";
import type { Logger } from "../lib/log.ts";
import { createDatasource, type RegistryDeps } from "./registry.ts";
import * as repo from "./repo.ts";

/** A bootstrap file that cannot be imported; startup stops with this one line. */
export class BootstrapFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BootstrapFileError";
  }
}

export interface BootstrapOutcome {
  created: string[];
  existing: string[];
  /** Entries naming a workspace that does not exist (yet): retried at the next start. */
  skipped: string[];
}

function entriesOf(doc: unknown, file: string): Record<string, unknown>[] {
  const list = Array.isArray(doc)
    ? doc
    : typeof doc === "object" && doc !== null
    ? (doc as Record<string, unknown>).datasources
    : undefined;
  if (!Array.isArray(list)) {
    throw new BootstrapFileError(`${file}: expected a list of datasources or {datasources: [...]}`);
  }
  return list.map((e, i) => {
    if (typeof e !== "object" || e === null || Array.isArray(e)) {
      throw new BootstrapFileError(`${file}: entry ${i + 1} is not an object`);
    }
    return e as Record<string, unknown>;
  });
}

/** Replaces `*_env` secret references by the environment's values. */
function withSecrets(entry: Record<string, unknown>, env: Record<string, string>, where: string) {
  const read = (name: unknown) => {
    if (typeof name !== "string" || !(name in env)) {
      throw new BootstrapFileError(`${where}: environment variable ${String(name)} is not set`);
    }
    return env[name];
  };
  const out = { ...entry };
  if (out.password_env !== undefined) {
    out.password = read(out.password_env);
    delete out.password_env;
  }
  const cred = out.credential;
  if (typeof cred === "object" && cred !== null && "secret_env" in cred) {
    const { secret_env, ...rest } = cred as Record<string, unknown>;
    out.credential = { ...rest, secret: read(secret_env) };
  }
  return out;
}

/** Imports the file; throws BootstrapFileError (never echoing a secret) on any invalid entry. */
export async function importBootstrapFile(
  deps: RegistryDeps,
  system: Principal,
  file: string,
  env: Record<string, string>,
  logger: Logger,
): Promise<BootstrapOutcome> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    throw new BootstrapFileError(`${file}: cannot be read: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text); // YAML is a superset of JSON
  } catch (e) {
    throw new BootstrapFileError(`${file}: not valid YAML or JSON: ${(e as Error).message}`);
  }
  const outcome: BootstrapOutcome = { created: [], existing: [], skipped: [] };
  for (const [i, raw] of entriesOf(doc, file).entries()) {
    const where = `${file}: entry ${i + 1}${typeof raw.name === "string" ? ` (${raw.name})` : ""}`;
    if (typeof raw.name === "string" && await repo.findByName(deps.db, raw.name)) {
      outcome.existing.push(raw.name);
      continue;
    }
    const entry = withSecrets(raw, env, where);
    let scope = null;
    if (entry.workspace === undefined || entry.workspace === null) {
      entry.global = true; // no workspace named: shared infrastructure
    } else if (typeof entry.workspace === "string") {
      const ws = await deps.findWorkspace(entry.workspace);
      if (!ws) {
        logger.warn("bootstrap datasource skipped: its workspace does not exist yet", {
          datasource: raw.name,
          workspace: entry.workspace,
        });
        outcome.skipped.push(String(raw.name));
        continue;
      }
      scope = { ...ws, flags: { author: true, promoter: true, admin: true }, implicit: true };
    }
    try {
      await createDatasource(deps, system, scope, entry);
    } catch (e) {
      if (e instanceof AppError && e.code === "datasource.validation.duplicate_name") {
        outcome.existing.push(String(raw.name)); // another replica imported it first
        continue;
      }
      if (e instanceof AppError) {
        throw new BootstrapFileError(`${where}: ${e.code}: ${e.message}`);
      }
      throw e;
    }
    outcome.created.push(String(raw.name));
  }
  return outcome;
}
