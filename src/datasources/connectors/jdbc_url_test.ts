import { deepEqual, equal, throws } from "node:assert/strict";
import { AppError } from "../../errors/mod.ts";
import { parseJdbcUrl, validateDriverOptions } from "./jdbc_url.ts";
import type { Dialect } from "./types.ts";

function refusal(fn: () => unknown): { field: string; reason: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError && e.code === "datasource.validation.properties_invalid") {
      return e.details as { field: string; reason: string };
    }
    throw e;
  }
  throw new Error("not refused");
}

/** Each documented form and the typed target it reads as. */
const FORMS: [Dialect, string, unknown][] = [
  ["POSTGRES", "jdbc:postgresql://db.example.com:6543/sales?sslmode=require", {
    dialect: "POSTGRES",
    host: "db.example.com",
    port: 6543,
    database: "sales",
    options: { sslmode: "require" },
  }],
  ["POSTGRES", "jdbc:postgresql://10.0.0.5/app", {
    dialect: "POSTGRES",
    host: "10.0.0.5",
    port: 5432,
    database: "app",
    options: {},
  }],
  ["MYSQL", "jdbc:mariadb://[::1]:3307/shop?connectTimeout=5000", {
    dialect: "MYSQL",
    flavor: "mariadb",
    host: "::1",
    port: 3307,
    database: "shop",
    options: { connectTimeout: "5000" },
  }],
  ["MYSQL", "jdbc:mysql://localhost", {
    dialect: "MYSQL",
    flavor: "mysql",
    host: "localhost",
    port: 3306,
    database: null,
    options: {},
  }],
  ["SQLITE", "jdbc:sqlite:/var/data/app.db", {
    dialect: "SQLITE",
    path: "/var/data/app.db",
    options: {},
  }],
  ["SQLITE", "jdbc:sqlite::memory:", { dialect: "SQLITE", path: ":memory:", options: {} }],
  ["DUCKDB", "jdbc:duckdb:", { dialect: "DUCKDB", path: null, options: {} }],
  ["DUCKDB", "jdbc:duckdb:/srv/w.duckdb?access_mode=READ_ONLY", {
    dialect: "DUCKDB",
    path: "/srv/w.duckdb",
    options: { access_mode: "READ_ONLY" },
  }],
  ["LAKE", "jdbc:lake:s3://my-bucket/published/v1?region=eu-west-1", {
    dialect: "LAKE",
    location: { scheme: "s3", bucket: "my-bucket", prefix: "published/v1" },
    options: { region: "eu-west-1" },
  }],
  ["LAKE", "jdbc:lake:file:///data/lake", {
    dialect: "LAKE",
    location: { scheme: "file", path: "/data/lake" },
    options: {},
  }],
];

Deno.test("parseJdbcUrl() reads each documented form into a typed target", () => {
  for (const [dialect, url, target] of FORMS) deepEqual(parseJdbcUrl(dialect, url), target, url);
});

Deno.test("parseJdbcUrl() refuses other forms, injected options and hostile hosts", () => {
  const bad: [Dialect, string][] = [
    ["POSTGRES", "postgresql://h/db"],
    ["POSTGRES", "jdbc:mysql://h/db"],
    ["POSTGRES", "jdbc:postgresql://h/db?socketFactory=org.x.Evil"],
    ["POSTGRES", "jdbc:postgresql://h/db?sslfactory=org.x.Evil&sslmode=require"],
    ["POSTGRES", "jdbc:postgresql://h/db?sslmode=require;socketFactory=x"],
    ["POSTGRES", "jdbc:postgresql://h/db?sslmode=junk"],
    ["POSTGRES", "jdbc:postgresql://h/db?sslmode=require&sslmode=disable"],
    ["POSTGRES", "jdbc:postgresql://h/db?options=-c%20statement_timeout=0"],
    ["POSTGRES", "jdbc:postgresql://h/db?applicationName=a%26b"],
    ["POSTGRES", "jdbc:postgresql://h/db?password=x"],
    ["POSTGRES", "jdbc:postgresql://user:pw@h/db"],
    ["POSTGRES", "jdbc:postgresql://h1,h2/db"],
    ["POSTGRES", "jdbc:postgresql://h/"],
    ["POSTGRES", "jdbc:postgresql://bad host/db"],
    ["POSTGRES", "jdbc:postgresql://h'x/db"],
    ["POSTGRES", 'jdbc:postgresql://"h"/db'],
    ["POSTGRES", "jdbc:postgresql://h:99999/db"],
    ["POSTGRES", "jdbc:postgresql://h:port/db"],
    ["POSTGRES", "jdbc:postgresql://-h/db"],
    ["POSTGRES", "jdbc:postgresql://h/db;x"],
    ["POSTGRES", "jdbc:postgresql://h/db\n"],
    ["MYSQL", "jdbc:mysql://h/db?allowLoadLocalInfile=true"],
    ["MYSQL", "jdbc:mysql://h/db?allowMultiQueries=true"],
    ["MYSQL", "jdbc:mysql://h/db?autoDeserialize=true"],
    ["MYSQL", "jdbc:mysql://h/db?connectTimeout=-1"],
    ["MYSQL", "jdbc:mysql://h/db`x"],
    ["SQLITE", "jdbc:sqlite:relative.db"],
    ["SQLITE", "jdbc:sqlite:/a/../etc/passwd"],
    ["SQLITE", "jdbc:sqlite:/a/b.db?journal_mode=OFF"],
    ["SQLITE", "jdbc:sqlite:/a/b'.db"],
    ["DUCKDB", "jdbc:duckdb:relative.duckdb"],
    ["DUCKDB", "jdbc:duckdb:/x.duckdb?allow_unsigned_extensions=true"],
    ["LAKE", "jdbc:lake:https://bucket/x"],
    ["LAKE", "jdbc:lake:s3://bucket/x y"],
    ["LAKE", "jdbc:lake:s3://bucket/x'"],
    ["LAKE", "jdbc:lake:file://relative"],
    ["POSTGRES", ""],
  ];
  for (const [dialect, url] of bad) {
    const details = refusal(() => parseJdbcUrl(dialect, url));
    equal(details.field.startsWith("jdbc_url"), true, url);
    equal(details.reason.length > 0, true, url);
  }
});

Deno.test("validateDriverOptions() maps only the allowlist and names the refused key", () => {
  deepEqual(validateDriverOptions("POSTGRES", { sslmode: "verify-full", connectTimeout: 5 }), {
    sslmode: "verify-full",
    connectTimeout: "5",
  });
  deepEqual(validateDriverOptions("MYSQL", { ssl: true }), { ssl: "true" });
  const unknown = refusal(() => validateDriverOptions("POSTGRES", { socketFactory: "x" }));
  equal(unknown.field, "properties.jdbc.socketFactory");
  equal(/accepts sslmode/.test(unknown.reason), true);
  equal(refusal(() => validateDriverOptions("MYSQL", { ssl: "yes" })).field, "properties.jdbc.ssl");
  equal(
    refusal(() => validateDriverOptions("POSTGRES", { applicationName: { x: 1 } })).field,
    "properties.jdbc.applicationName",
  );
  // The prototype is not an allowlist.
  equal(
    refusal(() => validateDriverOptions("SQLITE", { constructor: "x" })).field,
    "properties.jdbc.constructor",
  );
  throws(() => validateDriverOptions("DUCKDB", { threads: 0 }), /threads/);
});
