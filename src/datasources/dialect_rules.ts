/**
 * What the registry must know per dialect before anything connects: the credential kinds its
 * driver can use, and the pool keys with the ranges of DECISIONS.md ("pool keys"). The pool build
 * at save checks a definition against these without opening a connection.
 */
import { propertiesInvalid } from "./input.ts";
import type { CredentialKind, DatasourceProperties, Dialect, PoolEntry } from "./types.ts";

const KINDS: Record<Dialect, readonly CredentialKind[]> = {
  POSTGRES: ["password", "none"],
  MYSQL: ["password", "none"],
  SQLITE: ["none"],
  DUCKDB: ["none", "token"],
  LAKE: ["none", "password", "token", "service_account_json"],
};

/** The credential kinds the dialect's driver can use; the first is the default. */
export function credentialKindsFor(dialect: Dialect): readonly CredentialKind[] {
  return KINDS[dialect];
}

const INT_MAX = 2_147_483_647;

interface PoolKey {
  unit: string;
  /** Where an unset key's value comes from, and the value. */
  fallback: (dialect: Dialect, maxSize: number) => Omit<PoolEntry, "unit">;
}

/** Embedded engines run one writer; more connections only wait on its lock. */
const SINGLE_CONNECTION: ReadonlySet<Dialect> = new Set(["SQLITE", "DUCKDB"]);

const POOL_KEYS: Record<string, PoolKey> = {
  maximumPoolSize: {
    unit: "connections",
    fallback: (d) =>
      SINGLE_CONNECTION.has(d)
        ? { value: 1, source: "dialect_default" }
        : { value: 10, source: "application_default" },
  },
  minimumIdle: {
    unit: "connections",
    fallback: (_d, max) => ({ value: max, source: "hikari_default" }),
  },
  connectionTimeout: {
    unit: "ms",
    fallback: () => ({ value: 30000, source: "application_default" }),
  },
  idleTimeout: { unit: "ms", fallback: () => ({ value: 600000, source: "hikari_default" }) },
  maxLifetime: { unit: "ms", fallback: () => ({ value: 1800000, source: "hikari_default" }) },
  validationTimeout: { unit: "ms", fallback: () => ({ value: 5000, source: "hikari_default" }) },
  leakDetectionThreshold: { unit: "ms", fallback: () => ({ value: 0, source: "hikari_default" }) },
};

/** What the pool runs with: one entry per tunable key (spec 3 §2.1 `pool`). */
export function poolReport(
  dialect: Dialect,
  properties: DatasourceProperties,
): Record<string, PoolEntry> {
  const configured = properties.hikari ?? {};
  const out: Record<string, PoolEntry> = {};
  const maxSize = configured.maximumPoolSize ??
    POOL_KEYS.maximumPoolSize.fallback(dialect, 0).value;
  for (const [key, rule] of Object.entries(POOL_KEYS)) {
    out[key] = key in configured
      ? { value: configured[key], unit: rule.unit, source: "configured" }
      : { ...rule.fallback(dialect, maxSize), unit: rule.unit };
  }
  return out;
}

function refuse(key: string, reason: string, value: number): never {
  throw propertiesInvalid(`properties.hikari.${key}`, reason, { value });
}

/**
 * The test pool build at save: every configured pool key known and inside its range, judged
 * against the values the pool would actually run with. No connection is opened.
 */
export function validatePool(dialect: Dialect, properties: DatasourceProperties): void {
  const hikari = properties.hikari ?? {};
  for (const key of Object.keys(hikari)) {
    if (!(key in POOL_KEYS)) {
      throw propertiesInvalid(`properties.hikari.${key.slice(0, 64)}`, "is not a pool key", {
        accepted: Object.keys(POOL_KEYS),
      });
    }
  }
  const run = poolReport(dialect, properties);
  const v = (k: string) => run[k].value;
  const check = (key: string, ok: boolean, reason: string) => {
    if (key in hikari && !ok) refuse(key, reason, hikari[key]);
  };
  check("maximumPoolSize", v("maximumPoolSize") >= 1 && v("maximumPoolSize") <= 100, "1 to 100");
  check(
    "minimumIdle",
    v("minimumIdle") >= 0 && v("minimumIdle") <= v("maximumPoolSize"),
    "0 to maximumPoolSize",
  );
  check(
    "connectionTimeout",
    v("connectionTimeout") >= 250 && v("connectionTimeout") <= 600000,
    "250 to 600000 ms",
  );
  const zeroOrAtLeast = (key: string, min: number) =>
    check(
      key,
      v(key) === 0 || (v(key) >= min && v(key) <= INT_MAX),
      `0 (off) or ${min} ms and more`,
    );
  zeroOrAtLeast("idleTimeout", 10000);
  zeroOrAtLeast("maxLifetime", 30000);
  zeroOrAtLeast("leakDetectionThreshold", 2000);
  check(
    "validationTimeout",
    v("validationTimeout") >= 250 && v("validationTimeout") <= v("connectionTimeout"),
    "250 ms to connectionTimeout",
  );
}
