import { deepEqual, equal } from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { connectorConfig } from "../../tests/support/datasources.ts";
import { openConnector, probeLimits, runProbe } from "../datasources/mod.ts";
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import { parseBody } from "./body.ts";
import { type CheckProbe, runChecks } from "./checks.ts";

Deno.test("runChecks() verdicts through the probe path over a real SQLite datasource: pass, fail, error by shape, refusal and failure", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/checks.db`;
  const db = new DatabaseSync(file);
  db.exec("CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'x'), (2, 'y');");
  // The service's probe path minus the registry lookup: a real connector, read-only, capped.
  const conn = openConnector(connectorConfig("SQLITE", `jdbc:sqlite:${file}`));
  const probe: CheckProbe = (_a, _s, _d, statement, limits) =>
    runProbe(conn, statement, probeLimits(limits));
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
  equal(
    runs.find((r) => r.check_id === "write")?.message?.startsWith("datasource.probe.not_read_only"),
    true,
  );
  await conn.close();
  db.close();
  await Deno.remove(dir, { recursive: true });
});
