import { deepEqual, equal, throws } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { normaliseIncludeSchemas, parseDefinition, parseProperties } from "./input.ts";
import { thrownCode } from "../../tests/support/refusals.ts";

const base = { name: "wh", dialect: "POSTGRES", jdbc_url: "jdbc:postgresql://db:5432/wh" };

Deno.test("include schemas: trimmed, lowercased, blanks dropped, deduplicated first-seen", () => {
  deepEqual(normaliseIncludeSchemas([" Sales ", "", "  ", "hr", "SALES", "a$b#1", "hr"]), [
    "sales",
    "hr",
    "a$b#1",
  ]);
  deepEqual(normaliseIncludeSchemas(undefined), []);
});

Deno.test("include schemas: wildcards, quoted and qualified names are properties_invalid", () => {
  for (const bad of ["sal%", "*", "sa?es", '"Sales"', "`x`", "db.schema", "a b", "[x]", 42]) {
    equal(
      thrownCode(() => normaliseIncludeSchemas([bad])),
      "datasource.validation.properties_invalid",
      String(bad),
    );
  }
  equal(
    thrownCode(() => normaliseIncludeSchemas("sales")),
    "datasource.validation.properties_invalid",
  );
});

Deno.test("credential: the object, the legacy pair, both at once refused", () => {
  const obj = parseDefinition({
    ...base,
    credential: { kind: "password", username: "u", secret: "p" },
  });
  deepEqual(obj.credential, {
    kind: "password",
    username: "u",
    usernameOmitted: false,
    secret: "p",
  });
  const legacy = parseDefinition({ ...base, username: "u", password: "p" });
  deepEqual(legacy.credential, {
    kind: "password",
    username: "u",
    usernameOmitted: false,
    secret: "p",
  });
  equal(parseDefinition(base).credential, null);
  for (const extra of [{ username: "u" }, { password: "p" }, { username: "u", password: "p" }]) {
    equal(
      thrownCode(() => parseDefinition({ ...base, credential: { kind: "none" }, ...extra })),
      "datasource.validation.properties_invalid",
    );
  }
  for (const kind of ["kerberos", "", 1, null]) {
    equal(
      thrownCode(() => parseDefinition({ ...base, credential: { kind } })),
      "datasource.validation.properties_invalid",
      String(kind),
    );
  }
  equal(
    parseDefinition({ ...base, credential: { kind: "password", secret: "" } }).credential
      ?.secret,
    undefined,
  );
});

Deno.test("fields: name grammar, dialects, URL shape, immutable name on update", () => {
  const bad = "pipeline.execution.invalid_parameter_type";
  for (const name of ["", "A", "-x", "a.b", "x".repeat(64), 7, undefined]) {
    equal(thrownCode(() => parseDefinition({ ...base, name })), bad, String(name));
  }
  for (const dialect of ["ORACLE", "postgres", "", undefined]) {
    equal(thrownCode(() => parseDefinition({ ...base, dialect })), bad, String(dialect));
  }
  for (const jdbc_url of ["", 42, null, "x".repeat(2049)]) {
    equal(thrownCode(() => parseDefinition({ ...base, jdbc_url })), bad, String(jdbc_url));
  }
  equal(thrownCode(() => parseDefinition({ ...base, name: "other" }, "wh")), bad);
  equal(parseDefinition({ ...base }, "wh").name, "wh");
  equal(thrownCode(() => parseDefinition([base])), bad);
  equal(thrownCode(() => parseDefinition({ ...base, global: "yes" })), bad);
});

Deno.test("properties: only hikari and jdbc; integers in hikari; no credentials in jdbc", () => {
  deepEqual(parseProperties({ hikari: { maximumPoolSize: 5 }, jdbc: { sslmode: "require" } }), {
    hikari: { maximumPoolSize: 5 },
    jdbc: { sslmode: "require" },
  });
  const invalid = "datasource.validation.properties_invalid";
  for (
    const bad of [
      { pool: {} },
      { hikari: { maximumPoolSize: "5" } },
      { hikari: { maximumPoolSize: 1.5 } },
      { hikari: [] },
      { jdbc: { password: "x" } },
      { jdbc: { user: "x" } },
      { jdbc: { sslpassword: "x" } },
      { jdbc: { "bad key": "x" } },
      { jdbc: { a: { nested: true } } },
      [],
      "x",
    ]
  ) {
    equal(thrownCode(() => parseProperties(bad)), invalid, JSON.stringify(bad));
  }
  throws(() => parseProperties({ jdbc: { token: "abc" } }), AppError);
});
