/**
 * Startup refusals: rules the schema alone cannot say. Each returns the one line that explains the
 * refusal, or undefined. Later issues add their rules to these two lists and nowhere else.
 */
import { hasTenantTemplate } from "../lib/issuer.ts";
import { readBootstrapDatasources } from "./bootstrap_datasources.ts";
import type { ResolvedConfig } from "./resolve.ts";

/** Keys that once existed; naming one is refused with the reason. */
export const OBSOLETE_KEYS: Record<string, string> = {
  "service.auth.workspace-provisioning.mode":
    "workspace provisioning modes no longer exist; super admins create workspaces",
  "service.auth.workspace-provisioning.default-workspace":
    "workspace provisioning modes no longer exist; super admins create workspaces",
};

export interface RefusalContext {
  config: ResolvedConfig;
  env: Record<string, string>;
}

export type Refusal = (ctx: RefusalContext) => string | undefined;

/**
 * Mail is on exactly when both the SMTP host and the sender are configured (docs/access.md#mail).
 */
export function mailEnabled(config: ResolvedConfig): boolean {
  return config.mail.host !== undefined && config.mail.from !== undefined;
}

const RESERVED_PROVIDERS = new Set(["bootstrap", "local", "system"]);

function base64Bytes(value: string): number | undefined {
  try {
    return atob(value.trim()).length;
  } catch {
    return undefined;
  }
}

export const REFUSALS: Refusal[] = [
  ({ config }) =>
    config.metrics.enabled && config.metrics.token === undefined
      ? "service.metrics.token: required when service.metrics.enabled is true (at least 32 characters)"
      : undefined,
  ({ config }) => {
    const taken = config.auth.oidc.providers.find((p) => RESERVED_PROVIDERS.has(p.name));
    return taken &&
      `service.auth.oidc.providers: the provider name '${taken.name}' is reserved (bootstrap, local, system)`;
  },
  ({ config }) => {
    const names = config.auth.oidc.providers.map((p) => p.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    return dup && `service.auth.oidc.providers: the provider name '${dup}' is configured twice`;
  },
  ({ config }) => {
    const multi = config.auth.oidc.providers.find((p) => hasTenantTemplate(p.issuerUri));
    return multi &&
      `service.auth.oidc.providers: the issuer-uri of '${multi.name}' is a multi-tenant template; name the tenant's own issuer`;
  },
  ({ config }) =>
    config.auth.oidc.providers.length > 0 && !config.auth.baseUrl
      ? "service.auth.base-url: required when an OIDC provider is configured"
      : undefined,
  ({ config, env }) => {
    if (config.store.kind !== "postgres") return undefined;
    const missing = ["SERVICE_JWT_SECRET", "SERVICE_ENCRYPTION_KEY"].filter((n) => !env[n]);
    return missing.length > 0
      ? `${
        missing.join(" and ")
      }: required with a PostgreSQL store (secrets are generated only for the embedded store)`
      : undefined;
  },
  ({ env }) => {
    const value = env.SERVICE_JWT_SECRET;
    if (!value) return undefined;
    const n = base64Bytes(value);
    return n === undefined || n < 32
      ? "SERVICE_JWT_SECRET: must be at least 32 random bytes, base64-encoded"
      : undefined;
  },
  ({ env }) => {
    const value = env.SERVICE_ENCRYPTION_KEY;
    if (!value) return undefined;
    return base64Bytes(value) !== 32
      ? "SERVICE_ENCRYPTION_KEY: must be exactly 32 bytes, base64-encoded"
      : undefined;
  },
  ({ config }) => {
    const { bootstrapPassword, bootstrapPasswordHash, enabled } = config.auth.local;
    const seeded = bootstrapPassword !== undefined || bootstrapPasswordHash !== undefined;
    if (bootstrapPassword !== undefined && bootstrapPasswordHash !== undefined) {
      return "service.auth.local.bootstrap-password: set either bootstrap-password or bootstrap-password-hash, not both";
    }
    if (seeded && !enabled) {
      return "service.auth.local.bootstrap-password: a seed needs service.auth.local.enabled=true";
    }
    if (seeded && !config.auth.bootstrapAdminEmail) {
      return "service.auth.local.bootstrap-password: a seed needs service.auth.bootstrap-admin-email";
    }
    return undefined;
  },
  ({ config }) =>
    config.auth.bootstrapDatasourceFile && !config.auth.bootstrapAdminEmail
      ? "service.auth.bootstrap-datasource-file: needs service.auth.bootstrap-admin-email"
      : undefined,
  ({ config }) => {
    const path = config.auth.bootstrapDatasourceFile;
    if (!path || !config.auth.bootstrapAdminEmail) return undefined;
    try {
      readBootstrapDatasources(path);
      return undefined;
    } catch (e) {
      return `service.auth.bootstrap-datasource-file: ${path} ${(e as Error).message}`;
    }
  },
  ({ config }) => {
    const { username, password } = config.mail;
    if ((username === undefined) === (password === undefined)) return undefined;
    return "service.mail.username: set username and password together, or neither";
  },
  ({ config }) =>
    mailEnabled(config) && !config.auth.baseUrl
      ? "service.auth.base-url: required when mail is on (mails carry links to the service)"
      : undefined,
  ({ config }) =>
    config.result.ttlMinSeconds > config.result.ttlMaxSeconds
      ? "service.result.ttl-min-seconds: must not exceed service.result.ttl-max-seconds"
      : undefined,
  ({ config }) =>
    config.endpoints.timeoutMinSeconds > config.endpoints.timeoutMaxSeconds
      ? "service.endpoints.timeout-min-seconds: must not exceed service.endpoints.timeout-max-seconds"
      : undefined,
  ({ config }) =>
    config.paging.defaultLimit > config.paging.maxLimit
      ? "service.paging.default-limit: must not exceed service.paging.max-limit"
      : undefined,
];
