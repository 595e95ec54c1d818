import { deepEqual } from "node:assert/strict";
import { scanPlaceholders, type SqlFlavor } from "./placeholders.ts";

const ALL: SqlFlavor[] = ["postgres", "mysql", "sqlite", "duckdb"];

Deno.test("scanPlaceholders() lists names in first-seen order, each once", () => {
  for (const flavor of ALL) {
    deepEqual(
      scanPlaceholders("SELECT :b, :a FROM t WHERE x = :b AND y IN (:list_1)", flavor),
      ["b", "a", "list_1"],
      flavor,
    );
  }
});

Deno.test("scanPlaceholders() skips casts, assignments and words that only contain a colon", () => {
  for (const flavor of ALL) {
    deepEqual(scanPlaceholders("SELECT :a::int, x::text, @v := 1, a:b, :1, : c", flavor), ["a"]);
  }
});

Deno.test("scanPlaceholders() skips string literals, doubled quotes included", () => {
  for (const flavor of ALL) {
    deepEqual(scanPlaceholders("SELECT ':no', 'it''s :no', :yes, ''", flavor), ["yes"], flavor);
    // An unterminated literal hides the rest, as the server would read it.
    deepEqual(scanPlaceholders("SELECT :a, 'open :no", flavor), ["a"], flavor);
  }
});

Deno.test("scanPlaceholders() reads backslash escapes only where the dialect has them", () => {
  // PostgreSQL: only E'' strings escape; in a plain string the backslash is text.
  deepEqual(scanPlaceholders("SELECT E'it\\'s :no', :yes", "postgres"), ["yes"]);
  deepEqual(scanPlaceholders("SELECT e'\\' :no', :yes", "postgres"), ["yes"]);
  deepEqual(scanPlaceholders("SELECT 'a\\', :yes", "postgres"), ["yes"]);
  // `NAME'…'` is not an E string: the identifier ends in E.
  deepEqual(scanPlaceholders("SELECT typE'a\\', :yes", "postgres"), ["yes"]);
  // MySQL escapes in every string.
  deepEqual(scanPlaceholders("SELECT 'it\\'s :no', :yes", "mysql"), ["yes"]);
  deepEqual(scanPlaceholders('SELECT "it\\"s :no", :yes', "mysql"), ["yes"]);
});

Deno.test("scanPlaceholders() skips quoted identifiers, backticks and SQLite brackets", () => {
  for (const flavor of ALL) {
    deepEqual(scanPlaceholders('SELECT ":no" FROM "a""b:no" WHERE x = :yes', flavor), ["yes"]);
  }
  deepEqual(scanPlaceholders("SELECT `:no` FROM t WHERE x = :yes", "mysql"), ["yes"]);
  deepEqual(scanPlaceholders("SELECT `:no` FROM t WHERE x = :yes", "sqlite"), ["yes"]);
  deepEqual(scanPlaceholders("SELECT [:no] FROM t WHERE x = :yes", "sqlite"), ["yes"]);
  // On PostgreSQL a bracket is an array subscript, so what follows is still SQL.
  deepEqual(scanPlaceholders("SELECT a[:i] FROM t", "postgres"), ["i"]);
});

Deno.test("scanPlaceholders() skips line and block comments", () => {
  for (const flavor of ALL) {
    deepEqual(
      scanPlaceholders("SELECT :a -- :no\n, :b /* :no */ , :c -- :no", flavor),
      ["a", "b", "c"],
      flavor,
    );
  }
  deepEqual(scanPlaceholders("SELECT :a # :no\n, :b", "mysql"), ["a", "b"]);
  // Only PostgreSQL nests block comments.
  deepEqual(scanPlaceholders("/* /* :no */ :no */ :yes", "postgres"), ["yes"]);
  deepEqual(scanPlaceholders("/* /* :no */ :yes */", "sqlite"), ["yes"]);
});

Deno.test("scanPlaceholders() skips dollar-quoted bodies on PostgreSQL and DuckDB", () => {
  for (const flavor of ["postgres", "duckdb"] as const) {
    deepEqual(
      scanPlaceholders("SELECT $$ :no $$, $fn$ :no ' $fn$, :yes, $1, a$b$c", flavor),
      ["yes"],
      flavor,
    );
  }
  // MySQL has no dollar quotes: the text between is SQL.
  deepEqual(scanPlaceholders("SELECT $$ :yes $$", "mysql"), ["yes"]);
});
