import { deepEqual, equal } from "node:assert/strict";
import { refuses } from "../workspaces/test_fixtures.ts";
import { parseBody } from "./body.ts";
import { nodeSubset } from "./node_subset.ts";

const body = parseBody({
  name: "team/report",
  nodes: [
    {
      id: "orders",
      type: "DQL",
      source: "shop",
      sql: "SELECT 1",
      output: { target: "tempdb", table: "o" },
    },
    {
      id: "users",
      type: "DQL",
      source: "crm",
      sql: "SELECT 2",
      output: { target: "tempdb", table: "u" },
    },
    {
      id: "unrelated",
      type: "DQL",
      source: "crm",
      sql: "SELECT 3",
      output: { target: "tempdb", table: "x" },
    },
    {
      id: "joined",
      type: "DQL",
      source: "tempdb",
      sql: "SELECT * FROM o JOIN u USING (id)",
      output: { target: "datasource", datasource: "shop", table: "report" },
      depends_on: ["orders", "users"],
    },
    {
      id: "preview",
      type: "DQL",
      source: "tempdb",
      sql: "SELECT * FROM o",
      depends_on: ["orders"],
    },
    {
      id: "after",
      type: "DML",
      source: "shop",
      sql: "DELETE FROM x",
      depends_on: ["preview", "joined"],
    },
  ],
});

Deno.test("nodeSubset() keeps the node and what it needs, and sends the node's rows to the caller", () => {
  const joined = nodeSubset(body, "joined");
  deepEqual(joined.nodes.map((n) => n.id), ["orders", "users", "joined"]);
  deepEqual(joined.nodes[2].output, { target: "caller" });
  deepEqual(
    joined.nodes[0].output,
    { target: "tempdb", table: "o" },
    "dependencies run as written",
  );
  const first = nodeSubset(body, "orders");
  deepEqual(first.nodes.map((n) => [n.id, n.output]), [["orders", { target: "caller" }]]);
  // The subset is itself a valid body: one caller at most.
  parseBody(joined);
});

Deno.test("nodeSubset() leaves out a dependency that delivers to the caller; a DML node keeps its shape", () => {
  const after = nodeSubset(body, "after");
  deepEqual(after.nodes.map((n) => n.id), ["orders", "users", "joined", "after"]);
  deepEqual(after.nodes.at(-1)!.depends_on, ["joined"]);
  equal(after.nodes.at(-1)!.output, undefined);
  deepEqual(after.nodes[2].output?.target, "datasource", "only the chosen node is redirected");
  parseBody(after);
});

Deno.test("nodeSubset() refuses a node id the version does not have", async () => {
  await refuses(
    Promise.resolve().then(() => nodeSubset(body, "nope")),
    "pipeline.execution.invalid_parameter_type",
    400,
    { field: "node_id" },
  );
});
