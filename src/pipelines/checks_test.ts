import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { Principal, WorkspaceContext } from "../identity/types.ts";
import { parseBody } from "./body.ts";
import { type CheckProbe, isReadStatement, runChecks } from "./checks.ts";

Deno.test("isReadStatement() admits one SELECT/WITH/VALUES and refuses writes and stacked statements", () => {
  for (const sql of ["SELECT 1", " -- c\n with a as (select 1) select * from a", "VALUES (1);"]) {
    equal(isReadStatement(sql), true, sql);
  }
  for (
    const sql of ["DELETE FROM t", "SELECT 1; DROP TABLE t", "/* SELECT */ UPDATE t SET a = 1"]
  ) {
    equal(isReadStatement(sql), false, sql);
  }
});

Deno.test("runChecks() verdicts over a real SQLite database: pass, fail, error by shape, refusal and failure", async () => {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y');");
  // The probe the service gets from the connectors, here over node:sqlite with the same caps.
  const probe: CheckProbe = (_a, _s, _d, statement, limits) => {
    const st = db.prepare(statement.sql);
    // Like the connectors, bind only the placeholders the statement names.
    const used = Object.fromEntries(
      Object.entries(statement.params).filter(([k]) => statement.sql.includes(`:${k}`)),
    ) as Record<string, number>;
    const rows = st.all(used).slice(0, limits.maxRows);
    return Promise.resolve({
      columns: st.columns().length,
      rows: rows.map((r) => Object.values(r as Record<string, unknown>)),
    });
  };
  const check = (id: string, query: string, expectation: Record<string, unknown>) => ({
    id,
    name: id,
    datasource: "d",
    query,
    expectation,
  });
  const body = parseBody({
    name: "a/b",
    parameters: { min: { type: "integer", default: 2 } },
    nodes: [{ id: "a", type: "DQL", source: "tempdb", sql: "SELECT 1" }],
    checks: [
      check("sum", "SELECT SUM(a) FROM t", { kind: "value", value: 3 }),
      check("near", "SELECT 3.05", { kind: "value", value: 3, tolerance: 0.1 }),
      check("text", "SELECT b FROM t WHERE a = 1", { kind: "value", value: "x" }),
      check("range", "SELECT COUNT(*) FROM t WHERE a >= :min", { kind: "range", min: 2 }),
      check("low", "SELECT COUNT(*) FROM t", { kind: "range", max: 1 }),
      check("rows", "SELECT a FROM t", { kind: "value", value: 1 }),
      check("cols", "SELECT a, b FROM t WHERE a = 1", { kind: "value", value: 1 }),
      check("write", "DELETE FROM t", { kind: "value", value: 0 }),
      check("broken", "SELECT nope FROM t", { kind: "value", value: 0 }),
    ],
  });
  const runs = await runChecks(
    probe,
    {} as Principal,
    {} as WorkspaceContext,
    body,
    { min: 1 },
  );
  deepEqual(runs.map((r) => [r.check_id, r.verdict, r.observed]), [
    ["sum", "pass", "3"],
    ["near", "pass", "3.05"],
    ["text", "pass", "x"],
    ["range", "pass", "2"],
    ["low", "fail", "2"],
    ["rows", "error", null],
    ["cols", "error", null],
    ["write", "error", null],
    ["broken", "error", null],
  ]);
  equal(db.prepare("SELECT COUNT(*) AS n FROM t").get()?.n, 2, "the refused write never ran");
  db.close();
});
