import { deepEqual } from "node:assert/strict";
import { scanPlaceholders, type SqlFlavor } from "./placeholders.ts";

const ALL: SqlFlavor[] = ["postgres", "mysql", "sqlite", "duckdb"];
const PG: SqlFlavor[] = ["postgres"];
const MYSQL: SqlFlavor[] = ["mysql"];
const SQLITE: SqlFlavor[] = ["sqlite"];

/** SQL, the flavours it is scanned as, and the names each must find. */
type Case = [sql: string, flavors: SqlFlavor[], expected: string[]];

const TESTS: [name: string, cases: Case[]][] = [
  ["lists names in first-seen order, each once", [
    ["SELECT :b, :a FROM t WHERE x = :b AND y IN (:list_1)", ALL, ["b", "a", "list_1"]],
  ]],
  ["skips casts, assignments and words that only contain a colon", [
    ["SELECT :a::int, x::text, @v := 1, a:b, :1, : c", ALL, ["a"]],
  ]],
  ["skips string literals, doubled quotes included", [
    ["SELECT ':no', 'it''s :no', :yes, ''", ALL, ["yes"]],
    // An unterminated literal hides the rest, as the server would read it.
    ["SELECT :a, 'open :no", ALL, ["a"]],
  ]],
  ["reads backslash escapes only where the dialect has them", [
    // PostgreSQL: only E'' strings escape; in a plain string the backslash is text.
    ["SELECT E'it\\'s :no', :yes", PG, ["yes"]],
    ["SELECT e'\\' :no', :yes", PG, ["yes"]],
    ["SELECT 'a\\', :yes", PG, ["yes"]],
    // `NAME'…'` is not an E string: the identifier ends in E.
    ["SELECT typE'a\\', :yes", PG, ["yes"]],
    // MySQL escapes in every string.
    ["SELECT 'it\\'s :no', :yes", MYSQL, ["yes"]],
    ['SELECT "it\\"s :no", :yes', MYSQL, ["yes"]],
  ]],
  ["skips quoted identifiers, backticks and SQLite brackets", [
    ['SELECT ":no" FROM "a""b:no" WHERE x = :yes', ALL, ["yes"]],
    ["SELECT `:no` FROM t WHERE x = :yes", ["mysql", "sqlite"], ["yes"]],
    ["SELECT [:no] FROM t WHERE x = :yes", SQLITE, ["yes"]],
    // On PostgreSQL a bracket is an array subscript, so what follows is still SQL.
    ["SELECT a[:i] FROM t", PG, ["i"]],
  ]],
  ["skips line and block comments", [
    ["SELECT :a -- :no\n, :b /* :no */ , :c -- :no", ALL, ["a", "b", "c"]],
    ["SELECT :a # :no\n, :b", MYSQL, ["a", "b"]],
    // Only PostgreSQL nests block comments.
    ["/* /* :no */ :no */ :yes", PG, ["yes"]],
    ["/* /* :no */ :yes */", SQLITE, ["yes"]],
  ]],
  ["skips dollar-quoted bodies on PostgreSQL and DuckDB", [
    ["SELECT $$ :no $$, $fn$ :no ' $fn$, :yes, $1, a$b$c", ["postgres", "duckdb"], ["yes"]],
    // MySQL has no dollar quotes: the text between is SQL.
    ["SELECT $$ :yes $$", MYSQL, ["yes"]],
  ]],
];

for (const [name, cases] of TESTS) {
  Deno.test(`scanPlaceholders() ${name}`, () => {
    for (const [sql, flavors, expected] of cases) {
      for (const flavor of flavors) {
        deepEqual(scanPlaceholders(sql, flavor), expected, `${flavor}: ${sql}`);
      }
    }
  });
}
