import { deepEqual, equal } from "node:assert/strict";
import { AppError } from "../../errors/mod.ts";
import { EMBEDDED_READERS, resolvePoolSettings } from "./pool_settings.ts";

function refusedField(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError && e.code === "datasource.validation.properties_invalid") {
      return String(e.details.field);
    }
    throw e;
  }
  throw new Error("not refused");
}

Deno.test("resolvePoolSettings() reports every key with its unit and source", () => {
  const { settings, report } = resolvePoolSettings("POSTGRES", {
    maximumPoolSize: 4,
    leakDetectionThreshold: "5000",
  });
  deepEqual(settings, {
    maximumPoolSize: 4,
    minimumIdle: 0,
    connectionTimeout: 30_000,
    idleTimeout: 600_000,
    maxLifetime: 1_800_000,
    validationTimeout: 5_000,
    leakDetectionThreshold: 5_000,
  });
  deepEqual(report.maximumPoolSize, { value: 4, unit: "connections", source: "configured" });
  deepEqual(report.minimumIdle, { value: 0, unit: "connections", source: "application_default" });
  deepEqual(report.connectionTimeout, { value: 30_000, unit: "ms", source: "hikari_default" });
  deepEqual(report.leakDetectionThreshold, { value: 5_000, unit: "ms", source: "configured" });
  equal(Object.keys(report).length, 7);
});

Deno.test("resolvePoolSettings() gives file dialects a reader per core, one for a writable SQLite file, and no lifetime", () => {
  const cases = [
    ["SQLITE", false, 1],
    ["SQLITE", true, EMBEDDED_READERS],
    ["DUCKDB", false, EMBEDDED_READERS],
    ["DUCKDB", true, EMBEDDED_READERS],
  ] as const;
  equal(EMBEDDED_READERS, Math.min(16, navigator.hardwareConcurrency));
  for (const [dialect, readOnly, size] of cases) {
    const { report } = resolvePoolSettings(dialect, {}, readOnly);
    deepEqual(report.maximumPoolSize, {
      value: size,
      unit: "connections",
      source: "dialect_default",
    });
    deepEqual(report.maxLifetime, { value: 0, unit: "ms", source: "dialect_default" });
  }
  // A configured value still wins over the dialect's.
  equal(
    resolvePoolSettings("SQLITE", { maximumPoolSize: 3 }).report.maximumPoolSize.source,
    "configured",
  );
});

Deno.test("resolvePoolSettings() lowers a default validationTimeout to a short connectionTimeout", () => {
  const { report } = resolvePoolSettings("MYSQL", { connectionTimeout: 1000 });
  deepEqual(report.validationTimeout, { value: 1000, unit: "ms", source: "application_default" });
});

Deno.test("resolvePoolSettings() refuses out-of-range values naming the key", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ maximumPoolSize: 0 }, "maximumPoolSize"],
    [{ maximumPoolSize: 101 }, "maximumPoolSize"],
    [{ maximumPoolSize: 2.5 }, "maximumPoolSize"],
    [{ maximumPoolSize: "ten" }, "maximumPoolSize"],
    [{ maximumPoolSize: 5, minimumIdle: 6 }, "minimumIdle"],
    [{ minimumIdle: -1 }, "minimumIdle"],
    [{ connectionTimeout: 249 }, "connectionTimeout"],
    [{ connectionTimeout: 600_001 }, "connectionTimeout"],
    [{ idleTimeout: 9_999 }, "idleTimeout"],
    [{ maxLifetime: 29_999 }, "maxLifetime"],
    [{ validationTimeout: 249 }, "validationTimeout"],
    [{ connectionTimeout: 1000, validationTimeout: 1001 }, "validationTimeout"],
    [{ leakDetectionThreshold: 1_999 }, "leakDetectionThreshold"],
    [{ poolName: "x" }, "poolName"],
  ];
  for (const [hikari, key] of cases) {
    equal(refusedField(() => resolvePoolSettings("POSTGRES", hikari)), `properties.hikari.${key}`);
  }
  equal(refusedField(() => resolvePoolSettings("POSTGRES", [])), "properties.hikari");
  // Zero means "never" where the key allows it.
  const { settings } = resolvePoolSettings("POSTGRES", {
    idleTimeout: 0,
    maxLifetime: 0,
    leakDetectionThreshold: 0,
  });
  equal(settings.idleTimeout + settings.maxLifetime + settings.leakDetectionThreshold, 0);
});
