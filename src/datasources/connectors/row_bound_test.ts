import { equal } from "node:assert/strict";
import { rowBound } from "./row_bound.ts";

Deno.test("rowBound reads the statement's own LIMIT literal", () => {
  equal(rowBound("select * from orders where customer_id = :customer_id limit 100"), 100);
  equal(rowBound("SELECT 1 LIMIT 5 OFFSET 10"), 5);
  equal(rowBound("SELECT 1 OFFSET 10 LIMIT 5;"), 5);
  equal(rowBound("SELECT * FROM t LIMIT 0 FOR SHARE"), 0);
  equal(rowBound("WITH x AS (SELECT * FROM big) SELECT * FROM x\n  LIMIT\n 7"), 7);
  equal(rowBound("(SELECT 1) UNION ALL (SELECT 2) LIMIT 2"), 2);
});

Deno.test("rowBound answers nothing it cannot be sure of", () => {
  for (
    const sql of [
      "SELECT * FROM big",
      "SELECT * FROM big WHERE id IN (SELECT id FROM t LIMIT 5)",
      "WITH x AS (SELECT * FROM big LIMIT 5) SELECT * FROM x, big",
      "SELECT * FROM big LIMIT :n",
      "SELECT * FROM big LIMIT $1",
      "SELECT * FROM big LIMIT ALL",
      "SELECT * FROM big LIMIT 10 * 1000",
      "SELECT * FROM big LIMIT 10 + 1000",
      "SELECT * FROM big LIMIT 1e9",
      "SELECT * FROM big LIMIT 1.5",
      "SELECT * FROM big LIMIT 1_000",
      "SELECT * FROM big LIMIT 10::bigint",
      "SELECT * FROM big LIMIT (10)",
      "SELECT * FROM big LIMIT 10 OPERATOR(pg_catalog.*) 1000",
      "SELECT t.limit FROM t LIMIT 5",
      "SELECT 1 LIMIT 1; SELECT * FROM big",
      "SELECT 'limit 5' FROM big",
      "SELECT * FROM big -- LIMIT 5",
      "SELECT * FROM big /* LIMIT 5 */",
      "SELECT $$ LIMIT 5 $$ FROM big",
      'SELECT * FROM "big LIMIT 5"',
      "SELECT * FROM big LIMIT 5 '",
    ]
  ) {
    equal(rowBound(sql), undefined, sql);
  }
});
