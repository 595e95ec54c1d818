import { deepEqual, equal, throws } from "node:assert/strict";
import { AppError } from "../../errors/mod.ts";
import { checkCredentialKind, credentialKindsFor, poolReport, validateProperties } from "./mod.ts";

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
  equal(poolReport("DUCKDB").maximumPoolSize.source, "dialect_default");
  equal(poolReport("POSTGRES", { minimumIdle: 2 }).minimumIdle.source, "configured");
});
