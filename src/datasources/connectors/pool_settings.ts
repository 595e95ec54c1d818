/**
 * Pool settings: the `properties.hikari` keys with their ranges (docs/datasources.md#datasource-connectors), resolved against
 * the defaults, and the `pool` report of a datasource response.
 *
 * Where a value comes from, most specific first:
 * - `configured`: the datasource's `properties.hikari`.
 * - `dialect_default`: SQLite and DuckDB are files inside this process, and no network or server
 *   timeout ages an embedded connection, so they have no maximum lifetime. Their reads run side by
 *   side, one per core (docs/datasources.md#embedded-pools): a read-only file's always, and a
 *   writable DuckDB file's too (one instance runs concurrent reads; the connector runs its writes
 *   one at a time). A writable SQLite file keeps one connection: outside WAL mode a reader blocks
 *   a writer's commit, and whether a file is in WAL mode is the file's, not the datasource's.
 * - `application_default`: `minimumIdle` 0. HikariCP keeps `maximumPoolSize` idle connections
 *   open forever; with a pool per datasource on every replica that would hold connections to
 *   every registered database whether or not anyone uses it. A `validationTimeout` default longer
 *   than the configured `connectionTimeout` is lowered to it (reported as application default).
 * - `hikari_default`: HikariCP's own defaults, which the service adopts.
 */
import { AppError } from "../../errors/mod.ts";
import type { Dialect } from "./types.ts";

export const POOL_KEYS = [
  "maximumPoolSize",
  "minimumIdle",
  "connectionTimeout",
  "idleTimeout",
  "maxLifetime",
  "validationTimeout",
  "leakDetectionThreshold",
] as const;
export type PoolKey = (typeof POOL_KEYS)[number];

/** What a pool runs with; durations in milliseconds, 0 meaning "never" where the key allows. */
export type PoolSettings = Record<PoolKey, number>;

export type PoolSource =
  | "configured"
  | "dialect_default"
  | "application_default"
  | "hikari_default";

export interface PoolReportEntry {
  value: number;
  unit: "connections" | "ms";
  source: PoolSource;
}

export type PoolReport = Record<PoolKey, PoolReportEntry>;

const HIKARI_DEFAULTS: PoolSettings = {
  maximumPoolSize: 10,
  minimumIdle: 10,
  connectionTimeout: 30_000,
  idleTimeout: 600_000,
  maxLifetime: 1_800_000,
  validationTimeout: 5_000,
  leakDetectionThreshold: 0,
};

const APPLICATION_DEFAULTS: Partial<PoolSettings> = { minimumIdle: 0 };

/** Readers of an embedded file at once: one per core, within the range a pool may have. */
export const EMBEDDED_READERS = Math.max(1, Math.min(16, navigator.hardwareConcurrency || 1));

const EMBEDDED: Partial<PoolSettings> = { maximumPoolSize: 1, maxLifetime: 0 };
const EMBEDDED_READS: Partial<PoolSettings> = {
  maximumPoolSize: EMBEDDED_READERS,
  maxLifetime: 0,
};
const DIALECT_DEFAULTS: Record<Dialect, Partial<PoolSettings>> = {
  POSTGRES: {},
  MYSQL: {},
  SQLITE: EMBEDDED,
  DUCKDB: EMBEDDED_READS,
  LAKE: {},
};

function dialectDefault(dialect: Dialect, readOnly: boolean): Partial<PoolSettings> {
  return readOnly && dialect === "SQLITE" ? EMBEDDED_READS : DIALECT_DEFAULTS[dialect] ?? {};
}

const UNITS: Record<PoolKey, PoolReportEntry["unit"]> = {
  maximumPoolSize: "connections",
  minimumIdle: "connections",
  connectionTimeout: "ms",
  idleTimeout: "ms",
  maxLifetime: "ms",
  validationTimeout: "ms",
  leakDetectionThreshold: "ms",
};

function invalid(key: string, reason: string): AppError {
  return new AppError("datasource.validation.properties_invalid", {
    field: `properties.hikari.${key}`,
    reason,
  });
}

function toInteger(key: string, raw: unknown): number {
  // Java properties files carry numbers as text, so digit strings are accepted too.
  const value = typeof raw === "string" && /^\d{1,10}$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalid(key, "must be a non-negative integer");
  }
  return value;
}

/**
 * Validates `properties.hikari` and resolves every key, recording where each value came from.
 * Throws `datasource.validation.properties_invalid` naming the first offending key.
 */
export function resolvePoolSettings(
  dialect: Dialect,
  hikari: unknown = {},
  readOnly = false,
): { settings: PoolSettings; report: PoolReport } {
  if (hikari === null || typeof hikari !== "object" || Array.isArray(hikari)) {
    throw new AppError("datasource.validation.properties_invalid", {
      field: "properties.hikari",
      reason: "must be an object of pool keys",
    });
  }
  const configured: Partial<PoolSettings> = {};
  for (const [key, raw] of Object.entries(hikari)) {
    if (!(POOL_KEYS as readonly string[]).includes(key)) {
      throw invalid(key, `unknown pool key; accepted: ${POOL_KEYS.join(", ")}`);
    }
    configured[key as PoolKey] = toInteger(key, raw);
  }

  const report = {} as PoolReport;
  const pick = (key: PoolKey) => {
    const layers: [PoolSource, Partial<PoolSettings>][] = [
      ["configured", configured],
      ["dialect_default", dialectDefault(dialect, readOnly)],
      ["application_default", APPLICATION_DEFAULTS],
      ["hikari_default", HIKARI_DEFAULTS],
    ];
    for (const [source, layer] of layers) {
      const value = layer[key];
      if (value !== undefined) {
        report[key] = { value, unit: UNITS[key], source };
        return value;
      }
    }
    throw new Error(`no default for ${key}`);
  };
  const s = Object.fromEntries(POOL_KEYS.map((k) => [k, pick(k)])) as PoolSettings;

  const range = (key: PoolKey, ok: boolean, reason: string) => {
    if (!ok) throw invalid(key, `${reason} (got ${s[key]})`);
  };
  range("maximumPoolSize", s.maximumPoolSize >= 1 && s.maximumPoolSize <= 100, "must be 1 to 100");
  range(
    "minimumIdle",
    s.minimumIdle <= s.maximumPoolSize,
    `must be 0 to maximumPoolSize (${s.maximumPoolSize})`,
  );
  range(
    "connectionTimeout",
    s.connectionTimeout >= 250 && s.connectionTimeout <= 600_000,
    "must be 250 to 600000 ms",
  );
  range("idleTimeout", s.idleTimeout === 0 || s.idleTimeout >= 10_000, "must be 0 or >= 10000 ms");
  range("maxLifetime", s.maxLifetime === 0 || s.maxLifetime >= 30_000, "must be 0 or >= 30000 ms");
  if (configured.validationTimeout === undefined && s.validationTimeout > s.connectionTimeout) {
    s.validationTimeout = s.connectionTimeout;
    report.validationTimeout = {
      value: s.validationTimeout,
      unit: "ms",
      source: "application_default",
    };
  }
  range(
    "validationTimeout",
    s.validationTimeout >= 250 && s.validationTimeout <= s.connectionTimeout,
    `must be 250 to connectionTimeout (${s.connectionTimeout}) ms`,
  );
  range(
    "leakDetectionThreshold",
    s.leakDetectionThreshold === 0 || s.leakDetectionThreshold >= 2_000,
    "must be 0 or >= 2000 ms",
  );
  return { settings: s, report };
}
