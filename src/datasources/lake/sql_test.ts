import { equal, throws } from "node:assert/strict";
import { DuckDBInstance } from "@duckdb/node-api";
import { sqlIdent, sqlString, sqlStringList } from "./sql.ts";

const NASTY = [
  "plain",
  "it's",
  "'); COPY (SELECT 1) TO '/tmp/pwned.csv'; --",
  "a''b",
  "back\\slash\\'",
  'double"quote',
  "$1 :name ? %s",
  "ünïcødé ✓",
  "/* comment */ -- line",
];

Deno.test("sqlString() and sqlIdent() round-trip injection attempts through DuckDB unchanged", async () => {
  const instance = await DuckDBInstance.create(":memory:");
  const connection = await instance.connect();
  try {
    for (const text of NASTY) {
      const reader = await connection.runAndReadAll(
        `SELECT ${sqlString(text)} AS ${sqlIdent(text)}`,
      );
      equal(reader.getRows()[0][0], text);
      equal(reader.columnNames()[0], text);
    }
    const list = await connection.runAndReadAll(`SELECT len(${sqlStringList(NASTY)})`);
    equal(list.getRows()[0][0], BigInt(NASTY.length));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

Deno.test("sqlString() refuses control characters", () => {
  for (const text of ["a\u0000b", "a\nb", "a\rb", "a\u007fb"]) {
    throws(() => sqlString(text));
    throws(() => sqlIdent(text));
  }
  throws(() => sqlIdent(""));
});
