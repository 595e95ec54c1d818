/**
 * A datasource's connection definition as the connectors read it: dialect, `jdbc_url`, the
 * decrypted credential and `properties`. `validateProperties` is the "test pool build at save"
 * (docs/datasources.md#datasource-connectors): it checks everything a pool would need and resolves the pool settings, and
 * opens no connection, so an unreachable datasource still registers.
 */
import { AppError } from "../../errors/mod.ts";
import {
  type DriverOptions,
  type JdbcTarget,
  parseJdbcUrl,
  validateDriverOptions,
} from "./jdbc_url.ts";
import { type PoolReport, type PoolSettings, resolvePoolSettings } from "./pool_settings.ts";
import { type Dialect, DIALECTS } from "./types.ts";

export const CREDENTIAL_KINDS = [
  "password",
  "token",
  "private_key",
  "service_account_json",
  "none",
] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** A credential after decryption; `secret` is absent for kind `none`. Never log it. */
export interface Credential {
  kind: CredentialKind;
  username?: string | null;
  secret?: string | null;
}

/**
 * What each dialect's driver can authenticate with. A `token` is sent where the password goes
 * (cloud IAM tokens for PostgreSQL). Embedded files have no authentication. A lake's `password`
 * is an access key id (username) and secret key; `none` reads public buckets or local files.
 */
const KINDS: Record<Dialect, CredentialKind[]> = {
  POSTGRES: ["password", "token", "none"],
  MYSQL: ["password", "none"],
  SQLITE: ["none"],
  DUCKDB: ["none"],
  LAKE: ["password", "none"],
};

/** The credential kinds the dialect's driver can use. */
export function credentialKindsFor(dialect: Dialect): CredentialKind[] {
  return [...KINDS[dialect]];
}

export function isDialect(value: unknown): value is Dialect {
  return typeof value === "string" && (DIALECTS as readonly string[]).includes(value);
}

/** Everything `openConnector` needs; `pool` comes from `validateProperties`. */
export interface ConnectorConfig {
  /** The datasource's name, for logs (leak warnings) and error details. */
  name: string;
  dialect: Dialect;
  jdbc_url: string;
  credential: Credential;
  /** `properties.jdbc` as stored. */
  jdbc?: Record<string, unknown>;
  pool: PoolSettings;
  /** The datasource is read-only (`isReadOnly`): engines that can, open it read-only. */
  readonly?: boolean;
}

export interface ValidatedProperties {
  target: JdbcTarget;
  /** URL options merged with `properties.jdbc` (the properties win). */
  driverOptions: DriverOptions;
  pool: PoolSettings;
  report: PoolReport;
}

/**
 * Validates `properties` (namespaces `hikari` and `jdbc` only) against the dialect and its
 * `jdbc_url`; throws `datasource.validation.properties_invalid` with `field` and `reason`.
 */
export function validateProperties(
  input: { dialect: string; jdbc_url: string; properties?: unknown; readonly?: boolean },
): ValidatedProperties {
  if (!isDialect(input.dialect)) {
    throw new AppError("datasource.validation.properties_invalid", {
      field: "dialect",
      reason: "unknown dialect",
    });
  }
  const properties = input.properties ?? {};
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) {
    throw new AppError("datasource.validation.properties_invalid", {
      field: "properties",
      reason: "must be an object with the namespaces hikari and jdbc",
    });
  }
  for (const key of Object.keys(properties)) {
    if (key !== "hikari" && key !== "jdbc") {
      throw new AppError("datasource.validation.properties_invalid", {
        field: `properties.${key}`,
        reason: "only the namespaces hikari and jdbc exist",
      });
    }
  }
  const { hikari, jdbc } = properties as { hikari?: unknown; jdbc?: unknown };
  if (jdbc !== undefined && (jdbc === null || typeof jdbc !== "object" || Array.isArray(jdbc))) {
    throw new AppError("datasource.validation.properties_invalid", {
      field: "properties.jdbc",
      reason: "must be an object of driver properties",
    });
  }
  const target = parseJdbcUrl(input.dialect, input.jdbc_url);
  const driverOptions = {
    ...target.options,
    ...validateDriverOptions(input.dialect, (jdbc ?? {}) as Record<string, unknown>),
  };
  const { settings, report } = resolvePoolSettings(
    input.dialect,
    hikari ?? {},
    readOnlyFile(input.readonly, driverOptions),
  );
  return { target, driverOptions, pool: settings, report };
}

/** Whether an embedded file is opened read-only: the datasource's flag or its driver option. */
function readOnlyFile(flag: boolean | undefined, options: DriverOptions): boolean {
  return flag === true || options.readonly === "true" || options.access_mode === "READ_ONLY";
}

/** The `pool` block of a datasource response: what its pool runs with, and why. */
export function poolReport(
  d: { dialect: Dialect; jdbc_url: string; readonly?: boolean },
  hikari: unknown = {},
): PoolReport {
  let options: DriverOptions = {};
  try {
    options = parseJdbcUrl(d.dialect, d.jdbc_url).options;
  } catch { /* a stored URL was valid when saved; the flag alone then decides */ }
  return resolvePoolSettings(d.dialect, hikari, readOnlyFile(d.readonly, options)).report;
}

/** The credential check at save: the kind must be one the dialect's driver can use. */
export function checkCredentialKind(dialect: Dialect, kind: string): void {
  if (!(KINDS[dialect] as string[]).includes(kind)) {
    throw new AppError("datasource.validation.properties_invalid", {
      field: "credential.kind",
      reason: `${dialect} accepts ${KINDS[dialect].join(", ")}`,
    });
  }
}

/** A connector config with resolved pool settings (`hikari` as a datasource would store it). */
export function connectorConfig(
  dialect: ConnectorConfig["dialect"],
  jdbcUrl: string,
  options: {
    name?: string;
    hikari?: Record<string, unknown>;
    jdbc?: Record<string, unknown>;
    username?: string;
    secret?: string;
  } = {},
): ConnectorConfig {
  return {
    name: options.name ?? `ds_${crypto.randomUUID().slice(0, 8)}`,
    dialect,
    jdbc_url: jdbcUrl,
    credential: options.secret !== undefined
      ? { kind: "password", username: options.username, secret: options.secret }
      : { kind: "none", username: options.username },
    jdbc: options.jdbc,
    pool: resolvePoolSettings(dialect, options.hikari ?? {}).settings,
  };
}
