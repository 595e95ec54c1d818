import { deepEqual, equal } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { credentialKindsFor, poolReport, validatePool } from "./dialect_rules.ts";

function refusal(
  hikari: Record<string, number>,
  dialect = "POSTGRES" as const,
): string | undefined {
  try {
    validatePool(dialect, { hikari });
    return undefined;
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    equal(e.code, "datasource.validation.properties_invalid");
    return String(e.details.field);
  }
}

Deno.test("validatePool() accepts the edges of every DECISIONS.md range", () => {
  for (
    const ok of <Record<string, number>[]> [
      { maximumPoolSize: 1 },
      { maximumPoolSize: 100, minimumIdle: 100 },
      { minimumIdle: 0 },
      { connectionTimeout: 250, validationTimeout: 250 },
      { connectionTimeout: 600000 },
      { idleTimeout: 0 },
      { idleTimeout: 10000 },
      { maxLifetime: 0 },
      { maxLifetime: 30000 },
      { leakDetectionThreshold: 0 },
      { leakDetectionThreshold: 2000 },
      { connectionTimeout: 1000, validationTimeout: 1000 },
    ]
  ) {
    equal(refusal(ok), undefined, JSON.stringify(ok));
  }
});

Deno.test("validatePool() refuses out-of-range and unknown keys, naming the key", () => {
  const cases: [Record<string, number>, string][] = [
    [{ maximumPoolSize: 0 }, "maximumPoolSize"],
    [{ maximumPoolSize: 101 }, "maximumPoolSize"],
    [{ maximumPoolSize: 5, minimumIdle: 6 }, "minimumIdle"],
    [{ minimumIdle: -1 }, "minimumIdle"],
    [{ connectionTimeout: 249 }, "connectionTimeout"],
    [{ connectionTimeout: 600001 }, "connectionTimeout"],
    [{ idleTimeout: 9999 }, "idleTimeout"],
    [{ maxLifetime: 29999 }, "maxLifetime"],
    [{ leakDetectionThreshold: 1999 }, "leakDetectionThreshold"],
    [{ validationTimeout: 249 }, "validationTimeout"],
    [{ connectionTimeout: 1000, validationTimeout: 1001 }, "validationTimeout"],
    [{ poolName: 1 }, "poolName"],
  ];
  for (const [hikari, key] of cases) {
    equal(refusal(hikari), `properties.hikari.${key}`, JSON.stringify(hikari));
  }
});

Deno.test("poolReport() reports every key with its unit and where its value comes from", () => {
  const pg = poolReport("POSTGRES", { hikari: { maximumPoolSize: 4 } });
  deepEqual(pg.maximumPoolSize, { value: 4, unit: "connections", source: "configured" });
  deepEqual(pg.minimumIdle, { value: 4, unit: "connections", source: "hikari_default" });
  deepEqual(pg.connectionTimeout, { value: 30000, unit: "ms", source: "application_default" });
  equal(Object.keys(pg).length, 7);
  deepEqual(poolReport("SQLITE", {}).maximumPoolSize, {
    value: 1,
    unit: "connections",
    source: "dialect_default",
  });
  deepEqual(credentialKindsFor("SQLITE"), ["none"]);
  equal(credentialKindsFor("POSTGRES")[0], "password");
});
