import { deepEqual, equal, throws } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import type { Dialect } from "./connectors/types.ts";
import { assertReadStatement } from "./probe_statement.ts";

const ALL: Dialect[] = ["POSTGRES", "MYSQL", "SQLITE", "DUCKDB", "LAKE"];

function refusal(sql: string, dialect: Dialect): Record<string, unknown> | null {
  try {
    assertReadStatement(sql, dialect);
    return null;
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    equal(e.code, "datasource.probe.not_read_only");
    equal(e.status, 400);
    return e.details;
  }
}

Deno.test("one read statement passes on every dialect, quotes and comments included", () => {
  for (const d of ALL) {
    for (
      const sql of [
        "SELECT 1",
        "select 1;",
        "  -- leading comment\n WITH a AS (SELECT 1 AS x) SELECT x FROM a ;  -- trailing",
        "/* c */ VALUES (1), (2)",
        "(SELECT 1)",
        "SELECT 'a; DELETE FROM t' AS s",
        "SELECT 'it''s' AS s",
        'SELECT 1 AS "delete"',
        "SELECT updated_at, created_by FROM t WHERE note <> 'insert into x'",
      ]
    ) {
      equal(refusal(sql, d), null, `${d}: ${sql}`);
    }
  }
});

Deno.test("writes, DDL and statements other than a read are refused with a reason", () => {
  for (const d of ALL) {
    deepEqual(refusal("INSERT INTO t VALUES (1)", d), { reason: "not_a_read", keyword: "INSERT" });
    deepEqual(refusal("update t set a = 1", d), { reason: "not_a_read", keyword: "UPDATE" });
    deepEqual(refusal("DELETE FROM t", d), { reason: "not_a_read", keyword: "DELETE" });
    deepEqual(refusal("CREATE TABLE x (a int)", d), { reason: "not_a_read", keyword: "CREATE" });
    deepEqual(refusal("DROP TABLE t", d), { reason: "not_a_read", keyword: "DROP" });
    deepEqual(refusal("COPY t TO STDOUT", d), { reason: "not_a_read", keyword: "COPY" });
    deepEqual(refusal("EXPLAIN ANALYZE DELETE FROM t", d)?.reason, "not_a_read");
    deepEqual(refusal("", d), { reason: "empty" });
    deepEqual(refusal(" -- only a comment", d), { reason: "empty" });
  }
});

Deno.test("sneaky forms: data-modifying CTEs, SELECT INTO, stacked and comment-hidden statements", () => {
  for (const d of ALL) {
    deepEqual(refusal("WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x", d), {
      reason: "write_keyword",
      keyword: "DELETE",
    });
    deepEqual(refusal("SELECT * INTO t2 FROM t", d), { reason: "write_keyword", keyword: "INTO" });
    deepEqual(refusal("SELECT 1; DELETE FROM t", d), { reason: "multiple_statements" });
    deepEqual(refusal("SELECT 1 /* x */; /* y */ DROP TABLE t", d), {
      reason: "multiple_statements",
    });
    deepEqual(refusal("SELECT 1 -- x\n; DELETE FROM t", d), { reason: "multiple_statements" });
    deepEqual(refusal("SELECT 1 FOR UPDATE", d), { reason: "write_keyword", keyword: "UPDATE" });
    deepEqual(refusal("SELECT 'unterminated", d), { reason: "unterminated" });
    deepEqual(refusal("SELECT 1 /* never closed", d), { reason: "unterminated" });
  }
  deepEqual(refusal("SELECT * FROM t INTO OUTFILE '/tmp/x'", "MYSQL"), {
    reason: "write_keyword",
    keyword: "INTO",
  });
  deepEqual(refusal("PRAGMA user_version = 3", "SQLITE"), {
    reason: "not_a_read",
    keyword: "PRAGMA",
  });
  deepEqual(refusal("ATTACH ':memory:' AS x", "DUCKDB")?.reason, "not_a_read");
  deepEqual(refusal("INSTALL httpfs", "DUCKDB")?.reason, "not_a_read");
  deepEqual(refusal("SELECT 1 FROM (ATTACH 'x')", "DUCKDB"), {
    reason: "write_keyword",
    keyword: "ATTACH",
  });
});

Deno.test("each dialect's own quoting decides what is code", () => {
  // PostgreSQL: a standard string has no backslash escape, so the quote closes it and the
  // second statement is code; an E'' string does escape.
  equal(refusal("SELECT 'a\\'; DELETE FROM t; --'", "POSTGRES")?.reason, "multiple_statements");
  equal(refusal("SELECT E'a\\'; DELETE FROM t; --'", "POSTGRES"), null);
  // MySQL escapes with a backslash in every string.
  equal(refusal("SELECT 'a\\'; DELETE FROM t; --'", "MYSQL"), null);
  // Dollar quoting hides text on PostgreSQL and DuckDB.
  equal(refusal("SELECT $$; DELETE FROM t$$", "POSTGRES"), null);
  equal(refusal("SELECT $q$; DELETE$q$ AS s", "DUCKDB"), null);
  // MySQL: `--` without a space is not a comment (1 - -1), `#` is one, `/*!` runs as code.
  equal(refusal("SELECT 1 --1\n", "MYSQL"), null);
  equal(refusal("SELECT 1 --1; DELETE FROM t", "MYSQL")?.reason, "multiple_statements");
  equal(refusal("SELECT 1 # ; DELETE FROM t", "MYSQL"), null);
  equal(refusal("SELECT 1 # ; DELETE FROM t", "POSTGRES")?.reason, "multiple_statements");
  equal(refusal("SELECT 1 /*! ; DELETE FROM t */", "MYSQL")?.reason, "executable_comment");
  // Backticks and SQLite brackets quote identifiers.
  equal(refusal("SELECT `delete` FROM t", "MYSQL"), null);
  equal(refusal("SELECT [delete] FROM t", "SQLITE"), null);
  equal(refusal("SELECT [delete] FROM t", "POSTGRES")?.reason, "write_keyword");
  // PostgreSQL nests block comments, as the server does; the others end at the first `*/`.
  equal(refusal("SELECT 1 /* a /* b */ DELETE */", "POSTGRES"), null);
  equal(refusal("SELECT 1 /* a /* b */ DELETE */", "SQLITE")?.reason, "write_keyword");
  equal(
    refusal("SELECT 1 /* a /* b */ */; DELETE FROM t", "POSTGRES")?.reason,
    "multiple_statements",
  );
  throws(() => assertReadStatement("SELECT 1; SELECT 2", "SQLITE"), AppError);
});
