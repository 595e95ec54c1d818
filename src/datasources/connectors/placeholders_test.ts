import { deepEqual, equal, notStrictEqual, strictEqual, throws } from "node:assert/strict";
import { AppError } from "../../errors/mod.ts";
import { LEXED_TEXT_MAX, sqlCode, sqlCodeTokens } from "../../lib/sql_placeholders.ts";
import { pgArrayLiteral, type SqlFlavor, translatePlaceholders } from "./placeholders.ts";

const t = translatePlaceholders;

Deno.test("translatePlaceholders() numbers markers per dialect and reuses a repeated name", () => {
  const sql = "SELECT * FROM t WHERE a = :a AND b = :b OR a2 = :a";
  const params = { a: 1, b: "x" };
  deepEqual(t(sql, params, "postgres"), {
    sql: "SELECT * FROM t WHERE a = $1 AND b = $2 OR a2 = $1",
    values: [1, "x"],
    names: ["a", "b"],
  });
  deepEqual(t(sql, params, "duckdb").sql, "SELECT * FROM t WHERE a = $1 AND b = $2 OR a2 = $1");
  deepEqual(t(sql, params, "sqlite"), {
    sql: "SELECT * FROM t WHERE a = ?1 AND b = ?2 OR a2 = ?1",
    values: [1, "x"],
    names: ["a", "b"],
  });
  // Bare `?` has no number, so a repeated name repeats its value.
  deepEqual(t(sql, params, "mysql"), {
    sql: "SELECT * FROM t WHERE a = ? AND b = ? OR a2 = ?",
    values: [1, "x", 1],
    names: ["a", "b"],
  });
});

Deno.test("translatePlaceholders() leaves casts, strings, identifiers and comments alone", () => {
  const cases: [SqlFlavor, string, string][] = [
    ["postgres", "SELECT :a::int, x::text", "SELECT $1::int, x::text"],
    ["postgres", "SELECT ':a', 'it''s :a', :a", "SELECT ':a', 'it''s :a', $1"],
    ["postgres", `SELECT "col:a", ":a""x", :a`, `SELECT "col:a", ":a""x", $1`],
    ["postgres", "SELECT E'it\\'s :a', :a", "SELECT E'it\\'s :a', $1"],
    // Without E, a backslash is an ordinary character and the quote ends the string.
    ["postgres", "SELECT '\\', :a", "SELECT '\\', $1"],
    ["postgres", "SELECT $$ :a $$, $fn$ :a $x$ $fn$, :a", "SELECT $$ :a $$, $fn$ :a $x$ $fn$, $1"],
    ["postgres", "SELECT 1 -- :a\n, :a", "SELECT 1 -- :a\n, $1"],
    [
      "postgres",
      "SELECT /* :a /* nested :a */ still :a */ :a",
      "SELECT /* :a /* nested :a */ still :a */ $1",
    ],
    ["postgres", "SELECT a$b, :a", "SELECT a$b, $1"],
    ["postgres", "SELECT data ? 'k', :a", "SELECT data ? 'k', $1"],
    ["mysql", "SELECT `:a`, ':a\\' :a', \":a\", :a", "SELECT `:a`, ':a\\' :a', \":a\", ?"],
    ["mysql", "SELECT 1 # :a\n, :a", "SELECT 1 # :a\n, ?"],
    ["mysql", "SELECT /* :a /* x */ :a", "SELECT /* :a /* x */ ?"],
    ["sqlite", 'SELECT [:a], `:a`, ":a", :a', 'SELECT [:a], `:a`, ":a", ?1'],
    ["duckdb", "SELECT :a::INTEGER, $$ :a $$", "SELECT $1::INTEGER, $$ :a $$"],
    // A colon inside a word or before a non-identifier is not a placeholder.
    ["postgres", "SELECT arr[1:2], x:=1, :a", "SELECT arr[1:2], x:=1, $1"],
  ];
  for (const [flavor, sql, expected] of cases) {
    equal(t(sql, { a: 1 }, flavor).sql, expected, `${flavor}: ${sql}`);
  }
});

Deno.test("translatePlaceholders() binds a whole IN list as one array on PostgreSQL and DuckDB", () => {
  deepEqual(t("x IN (:ids) OR y NOT IN ( /* c */ :ids )", { ids: [1, 2, 3] }, "postgres"), {
    sql: "x = ANY($1) OR y <> ALL($1)",
    values: ["{1,2,3}"],
    names: ["ids"],
  });
  deepEqual(t("x in (:ids)", { ids: ['a"b', "c\\d", "e,f"] }, "postgres").values, [
    '{"a\\"b","c\\\\d","e,f"}',
  ]);
  deepEqual(t("x IN (:ids) AND y NOT IN (:ids)", { ids: [1, 2] }, "duckdb"), {
    sql:
      "x IN (SELECT unnest(CAST($1 AS BIGINT[]))) AND y NOT IN (SELECT unnest(CAST($1 AS BIGINT[])))",
    values: ["[1,2]"],
    names: ["ids"],
  });
});

Deno.test("translatePlaceholders() expands a list anywhere else, and turns an empty list into NULL", () => {
  // Not the whole of an IN list, or an engine without arrays (DuckDB: strings).
  deepEqual(t("x IN (:ids, 4) OR y IN (:ids)", { ids: [1, 2, 3] }, "postgres"), {
    sql: "x IN ($1, $2, $3, 4) OR y = ANY($4)",
    values: [1, 2, 3, "{1,2,3}"],
    names: ["ids"],
  });
  equal(t("SELECT 'IN (', :ids, ')'", { ids: [1] }, "postgres").sql, "SELECT 'IN (', $1, ')'");
  equal(t("x IN (:ids)", { ids: ["a", "b"] }, "duckdb").sql, "x IN ($1, $2)");
  deepEqual(t("x IN (:ids) AND z = :z", { ids: ["a", "b"], z: 0 }, "mysql").values, ["a", "b", 0]);
  equal(
    t("x IN (:ids) OR y IN (:ids)", { ids: [1, 2] }, "sqlite").sql,
    "x IN (?1, ?2) OR y IN (?1, ?2)",
  );
  for (const flavor of ["postgres", "mysql", "sqlite", "duckdb"] as SqlFlavor[]) {
    deepEqual(t("x NOT IN (:ids)", { ids: [] }, flavor), {
      sql: "x NOT IN (NULL)",
      values: [],
      names: ["ids"],
    });
  }
});

Deno.test("translatePlaceholders() requires every placeholder's value, naming the first missing", () => {
  const error = (() => {
    try {
      t("SELECT :a, :missing", { a: 1 }, "postgres");
    } catch (e) {
      return e;
    }
  })();
  equal(error instanceof AppError && error.code, "pipeline.execution.parameter_required");
  deepEqual((error as AppError).details, { parameter: "missing" });
  // undefined counts as absent; null is a value.
  throws(() => t(":a", { a: undefined }, "mysql"), /Parameter 'a' is required/);
  deepEqual(t(":a", { a: null }, "mysql").values, [null]);
  // An inherited property is not a parameter.
  throws(() => t(":toString", {}, "postgres"), /Parameter 'toString' is required/);
});

Deno.test("translatePlaceholders() refuses bind markers written into the text", () => {
  for (
    const [flavor, sql] of [
      ["postgres", "SELECT $1"],
      ["duckdb", "SELECT $1"],
      ["mysql", "SELECT ?"],
      ["sqlite", "SELECT ?"],
      ["duckdb", "SELECT ?"],
    ] as [SqlFlavor, string][]
  ) {
    throws(() => t(sql, {}, flavor), (e: unknown) => {
      equal((e as AppError).code, "pipeline.execution.invalid_parameter_type");
      return true;
    }, `${flavor}: ${sql}`);
  }
  // Inside quotes they are plain text.
  equal(t("SELECT '?', '$1'", {}, "mysql").sql, "SELECT '?', '$1'");
});

Deno.test("translatePlaceholders() never lets a value change the SQL text", () => {
  const hostile = [
    "'; DROP TABLE users; --",
    "\\'; DROP TABLE users; --",
    "$$; DROP TABLE users; $$",
    "*/ DROP TABLE users; /*",
    ":other",
    "?",
    "$1",
    "`x`",
    '" OR 1=1 --',
    "\u0000",
  ];
  for (const flavor of ["postgres", "mysql", "sqlite", "duckdb"] as SqlFlavor[]) {
    const plain = t("SELECT * FROM t WHERE a = :a AND b IN (:b)", { a: "", b: ["", ""] }, flavor);
    for (const value of hostile) {
      const result = t(
        "SELECT * FROM t WHERE a = :a AND b IN (:b)",
        { a: value, b: [value, value], other: "x" },
        flavor,
      );
      equal(result.sql, plain.sql, `${flavor}: ${value}`);
      // PostgreSQL takes the list as one array literal (read back by the real server's test).
      const list = flavor === "postgres" ? [pgArrayLiteral([value, value])] : [value, value];
      deepEqual(result.values, [value, ...list]);
    }
  }
});

Deno.test("translatePlaceholders() keeps unterminated quotes and comments as text", () => {
  equal(t("SELECT ':a", { a: 1 }, "postgres").sql, "SELECT ':a");
  equal(t("SELECT /* :a", { a: 1 }, "mysql").sql, "SELECT /* :a");
  equal(t("SELECT $x$ :a", { a: 1 }, "postgres").sql, "SELECT $x$ :a");
  deepEqual(t("SELECT 1", undefined, "sqlite"), { sql: "SELECT 1", values: [], names: [] });
});

Deno.test("a statement is lexed once per text and flavor; each call binds its own values", () => {
  const sql = "select * from t where a = :a and b = ':a' -- :b\n";
  const first = sqlCodeTokens(sql, "postgres");
  strictEqual(sqlCodeTokens(sql, "postgres"), first);
  deepEqual(first, [...sqlCode(sql, "postgres")]);
  notStrictEqual(sqlCodeTokens(sql, "mysql"), first);
  deepEqual(translatePlaceholders(sql, { a: 1 }, "postgres"), {
    sql: "select * from t where a = $1 and b = ':a' -- :b\n",
    values: [1],
    names: ["a"],
  });
  deepEqual(translatePlaceholders(sql, { a: [2, 3] }, "sqlite").values, [2, 3]);
  deepEqual(translatePlaceholders(sql, { a: 4 }, "postgres").values, [4]);
});

Deno.test("a statement longer than the cache's text bound is lexed each time, never kept", () => {
  const sql = `select :a as a -- ${"x".repeat(LEXED_TEXT_MAX)}\n`;
  const first = sqlCodeTokens(sql, "postgres");
  notStrictEqual(sqlCodeTokens(sql, "postgres"), first);
  deepEqual(first, [...sqlCode(sql, "postgres")]);
  deepEqual(translatePlaceholders(sql, { a: 5 }, "postgres").values, [5]);
});
