/** Configuration: schema, sources, refusals → ResolvedConfig. */
import { resolveConfig, type ResolvedConfig } from "./resolve.ts";
import { readSources, StartupError } from "./sources.ts";

export { type Leaf, leaves } from "./leaves.ts";
export { type BootstrapDatasource, readBootstrapDatasources } from "./bootstrap_datasources.ts";
export { mailEnabled, OBSOLETE_KEYS, type Refusal, REFUSALS } from "./refusals.ts";
export { type ResolvedConfig, type StoreKind } from "./resolve.ts";
export { configSchema } from "./schema.ts";
export {
  type FoundSecret,
  readSecrets,
  resolveSecrets,
  SECRET_NAMES,
  type SecretName,
  secretProblem,
  type Secrets,
  writeSecretFile,
} from "./secrets.ts";
export { readSources, StartupError } from "./sources.ts";

/**
 * Loads the configuration: `base`, then the file named by `configPath` or `SERVICE_CONFIG`
 * (optional), then the environment on top. Throws StartupError with one line on any refusal.
 */
export async function loadConfig(
  env: Record<string, string>,
  configPath?: string,
  /** Defaults under the file and the environment (the quick start's). */
  base: Record<string, unknown> = {},
): Promise<ResolvedConfig> {
  const path = configPath ?? env.SERVICE_CONFIG;
  let file: { name: string; text: string } | undefined;
  if (path) {
    try {
      file = { name: path, text: await Deno.readTextFile(path) };
    } catch (e) {
      throw new StartupError(`config file ${path}: cannot be read: ${(e as Error).message}`);
    }
  }
  return resolveConfig(readSources(env, file, base), env);
}
