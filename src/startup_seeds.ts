/**
 * What a boot seeds before the instance serves: the bootstrap or quick-start admin, the bootstrap
 * admin's placeholder row, and the demo content. Each is idempotent: a restart changes nothing.
 */
import {
  type BootstrapDatasource,
  readBootstrapDatasources,
  type ResolvedConfig,
} from "./config/mod.ts";
import { type DemoSeedDeps, seedDemoContent } from "./demo/mod.ts";
import { AppError } from "./errors/mod.ts";
import { ensureBootstrapPlaceholder, type LocalAccounts } from "./identity/mod.ts";
import type { Db } from "./store/mod.ts";

const QUICK_START_ADMIN = "admin@localhost.localdomain";

/**
 * The demo content, unless switched off or under the hardened posture (where authoring is off
 * and content arrives by promotion). A failure is logged, never fatal: the instance still serves,
 * and the next boot tries again because nothing marked the content seeded.
 */
export async function seedDemo(config: ResolvedConfig, deps: DemoSeedDeps): Promise<void> {
  if (!config.demo.enabled || !config.deployment.authoringEnabled) return;
  try {
    await seedDemoContent(deps);
  } catch (e) {
    deps.logger.error("demo content not seeded", {
      error: e instanceof AppError ? e.code : e instanceof Error ? e.message : String(e),
    });
  }
}

/**
 * A bootstrap datasource file (docs/access.md#bootstrap-admin): keeps its entries and pre-creates
 * the bootstrap admin's placeholder row (the refusals already checked the file and the email).
 */
export async function seedBootstrapPlaceholder(
  config: ResolvedConfig,
  db: Db,
): Promise<BootstrapDatasource[]> {
  const path = config.auth.bootstrapDatasourceFile;
  const email = config.auth.bootstrapAdminEmail;
  if (!path || !email) return [];
  const entries = readBootstrapDatasources(path);
  await ensureBootstrapPlaceholder(db, email);
  return entries;
}

/**
 * The bootstrap seed (docs/access.md#local-accounts) when configured; else, for the quick start
 * only, a first admin with a generated one-time password, returned so main.ts can print it once on
 * the terminal.
 */
export async function seedAccounts(
  config: ResolvedConfig,
  local: LocalAccounts,
  quickStart: boolean,
): Promise<{ email: string; password: string } | undefined> {
  const { bootstrapPassword, bootstrapPasswordHash, enabled } = config.auth.local;
  const email = config.auth.bootstrapAdminEmail;
  if (email && (bootstrapPassword || bootstrapPasswordHash)) {
    await local.seedBootstrap(email, { password: bootstrapPassword, hash: bootstrapPasswordHash });
    return undefined;
  }
  if (!quickStart || !enabled || email || config.store.kind !== "sqlite") return undefined;
  const bytes = crypto.getRandomValues(new Uint8Array(15));
  const password = btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
  const outcome = await local.seedBootstrap(QUICK_START_ADMIN, { password });
  return outcome === "created" ? { email: QUICK_START_ADMIN, password } : undefined;
}
