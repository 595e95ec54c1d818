import { deepEqual, equal, throws } from "node:assert/strict";
import { DuckDBBlobValue } from "@duckdb/node-api";
import { AppError } from "../../errors/mod.ts";
import { bindRecord, toDuckDbPlaceholders } from "./placeholders.ts";

Deno.test("toDuckDbPlaceholders() rewrites :name and nothing that only looks like one", () => {
  const cases: [string, string, string[]][] = [
    ["SELECT :a, :b, :a", "SELECT $a, $b, $a", ["a", "b"]],
    ["SELECT x::INT, :v::TEXT", "SELECT x::INT, $v::TEXT", ["v"]],
    ["SELECT ':no', 'it''s :no' , :yes", "SELECT ':no', 'it''s :no' , $yes", ["yes"]],
    ['SELECT ":no" FROM t WHERE c = :c_1', 'SELECT ":no" FROM t WHERE c = $c_1', ["c_1"]],
    ["SELECT 1 -- :no\n, :yes", "SELECT 1 -- :no\n, $yes", ["yes"]],
    ["SELECT /* :no */ :yes", "SELECT /* :no */ $yes", ["yes"]],
    ["SELECT :1, a:b", "SELECT :1, a$b", ["b"]],
    ["SELECT 'unterminated :x", "SELECT 'unterminated :x", []],
  ];
  for (const [sql, expected, names] of cases) {
    deepEqual(toDuckDbPlaceholders(sql), { sql: expected, names }, sql);
  }
});

Deno.test("bindRecord() converts values and names a missing parameter", () => {
  const bound = bindRecord(["i", "f", "d", "o", "b", "n", "u"], {
    i: 3,
    f: 1.5,
    d: new Date("2024-01-02T03:04:05Z"),
    o: { a: [1] },
    b: new Uint8Array([1]),
    n: null,
    u: undefined,
  });
  equal(bound.i, 3n);
  equal(bound.f, 1.5);
  equal(bound.d, "2024-01-02T03:04:05.000Z");
  equal(bound.o, '{"a":[1]}');
  equal(bound.b instanceof DuckDBBlobValue, true);
  deepEqual([bound.n, bound.u], [null, null]);
  throws(
    () => bindRecord(["missing"], {}),
    (e: unknown) => e instanceof AppError && e.code === "pipeline.execution.parameter_required",
  );
});
