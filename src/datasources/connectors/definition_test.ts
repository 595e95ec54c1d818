import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { AppError } from "../../errors/mod.ts";
import { createLogger } from "../../lib/log.ts";
import {
  checkCredentialKind,
  credentialKindsFor,
  type Dialect,
  openConnector,
  poolReport,
  validateProperties,
} from "./mod.ts";

const field = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError && e.code === "datasource.validation.properties_invalid") {
      return e.details.field;
    }
    throw e;
  }
  throw new Error("not refused");
};

Deno.test("validateProperties() checks both namespaces and merges URL options under jdbc", () => {
  const v = validateProperties({
    dialect: "POSTGRES",
    jdbc_url: "jdbc:postgresql://unreachable.invalid:5432/db?sslmode=require&applicationName=a",
    properties: { hikari: { maximumPoolSize: 3 }, jdbc: { sslmode: "disable" } },
  });
  deepEqual(v.driverOptions, { sslmode: "disable", applicationName: "a" });
  equal(v.pool.maximumPoolSize, 3);
  equal(v.report.maximumPoolSize.source, "configured");
  equal(field(() => validateProperties({ dialect: "ORACLE", jdbc_url: "jdbc:x" })), "dialect");
  equal(
    field(() =>
      validateProperties({
        dialect: "SQLITE",
        jdbc_url: "jdbc:sqlite:/x.db",
        properties: { x: {} },
      })
    ),
    "properties.x",
  );
  equal(
    field(() =>
      validateProperties({ dialect: "SQLITE", jdbc_url: "jdbc:sqlite:/x.db", properties: [] })
    ),
    "properties",
  );
  equal(
    field(() =>
      validateProperties({
        dialect: "SQLITE",
        jdbc_url: "jdbc:sqlite:/x.db",
        properties: { jdbc: "busy_timeout=1" },
      })
    ),
    "properties.jdbc",
  );
  equal(
    field(() =>
      validateProperties({
        dialect: "MYSQL",
        jdbc_url: "jdbc:mysql://h/db",
        properties: { hikari: { maximumPoolSize: 1000 } },
      })
    ),
    "properties.hikari.maximumPoolSize",
  );
});

Deno.test("credentialKindsFor() names what each driver can use and the check refuses the rest", () => {
  deepEqual(credentialKindsFor("SQLITE"), ["none"]);
  deepEqual(credentialKindsFor("POSTGRES"), ["password", "token", "none"]);
  checkCredentialKind("MYSQL", "password");
  throws(() => checkCredentialKind("DUCKDB", "password"), /DUCKDB accepts none/);
  throws(
    () => checkCredentialKind("MYSQL", "service_account_json"),
    /MYSQL accepts password, none/,
  );
});

Deno.test("poolReport() reports the file dialect defaults", () => {
  equal(
    poolReport({ dialect: "DUCKDB", jdbc_url: "jdbc:duckdb:" }).maximumPoolSize.source,
    "dialect_default",
  );
  equal(
    poolReport({ dialect: "POSTGRES", jdbc_url: "jdbc:postgresql://h/db" }, { minimumIdle: 2 })
      .minimumIdle.source,
    "configured",
  );
});

Deno.test("openConnector() refuses a credential kind the driver cannot use, and LAKE", () => {
  const pool = poolSettings("SQLITE");
  const error = (() => {
    try {
      openConnector({
        name: "x",
        dialect: "SQLITE",
        jdbc_url: "jdbc:sqlite::memory:",
        credential: { kind: "password", secret: "s" },
        pool,
      });
    } catch (e) {
      return e;
    }
  })();
  ok(error instanceof AppError);
  deepEqual(error.details, { field: "credential.kind", reason: "SQLITE accepts none" });
  throws(
    () =>
      openConnector({
        name: "lake",
        dialect: "LAKE",
        jdbc_url: "jdbc:lake:file:///tmp",
        credential: { kind: "none" },
        pool: poolSettings("LAKE"),
      }),
    /lake module/,
  );
});

Deno.test("a connector never writes its secret into logs or test outcomes", async () => {
  const canary = "canary-Secret-7f3a";
  const lines: string[] = [];
  const logger = createLogger("debug", (line) => lines.push(line));
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  for (
    const [dialect, url] of [
      ["POSTGRES", `jdbc:postgresql://127.0.0.1:${port}/db`],
      ["MYSQL", `jdbc:mysql://127.0.0.1:${port}/db`],
    ] as const
  ) {
    const c = openConnector({
      name: `secretive_${dialect}`,
      dialect,
      jdbc_url: url,
      credential: { kind: "password", username: "app", secret: canary },
      pool: poolSettings(dialect, { connectionTimeout: 500 }),
    }, { logger });
    const outcome = await c.test();
    equal(outcome.connected, false);
    const error = await c.query({ sql: "SELECT 1" }).catch((e) => e);
    ok(error instanceof AppError);
    await c.close();
    const seen = JSON.stringify([outcome, error.message, error.details, lines]);
    ok(!seen.includes(canary), `${dialect} leaked its secret`);
  }
});

function poolSettings(dialect: Dialect, hikari: Record<string, unknown> = {}) {
  return validateProperties({
    dialect,
    jdbc_url: {
      POSTGRES: "jdbc:postgresql://h/db",
      MYSQL: "jdbc:mysql://h/db",
      SQLITE: "jdbc:sqlite::memory:",
      DUCKDB: "jdbc:duckdb:",
      LAKE: "jdbc:lake:file:///tmp",
    }[dialect],
    properties: { hikari },
  }).pool;
}
