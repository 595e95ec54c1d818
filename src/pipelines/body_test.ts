import { deepEqual, equal } from "node:assert/strict";
import {
  checkPipelineName,
  derivedParameters,
  findCycle,
  parseBody,
  type PipelineNode,
  topologicalOrder,
} from "./body.ts";
import { refuses } from "../../tests/support/refusals.ts";

const dql = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: "DQL",
  source: "warehouse",
  sql: "SELECT 1",
  ...extra,
});

/** `parseBody(input, self)` refuses with `code` and (at least) the given details. */
const refusesBody = (
  input: unknown,
  code: string,
  details: Record<string, unknown> = {},
  self?: string,
) => refuses(() => parseBody(input, self), code, details);

Deno.test("parseBody() accepts a join of two staged reads, a calculator and a child, filling defaults", () => {
  const body = parseBody({
    name: "sales/daily",
    parameters: { window: { type: "string", default: "last_7_days" } },
    nodes: [
      {
        id: "period",
        type: "CALCULATOR",
        calculator: {
          name: "date_range",
          inputs: { period: { param: "window" } },
          writes: { start: "from_day", end: "to_day" },
        },
      },
      dql("orders", { output: { target: "tempdb", table: "orders" }, depends_on: ["period"] }),
      dql("customers", { source: "crm", output: { target: "tempdb", table: "customers" } }),
      dql("joined", {
        source: "tempdb",
        sql: "SELECT * FROM orders JOIN customers USING (id)",
        depends_on: ["orders", "customers"],
      }),
      {
        id: "child",
        type: "PIPELINE",
        pipeline: { id: "0190a4b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b" },
        output: { target: "tempdb", table: "child_out" },
        parameters: { region: "eu" },
      },
    ],
  });
  deepEqual(body.settings, { staging_engine: "duckdb", max_parallel_nodes: 4 });
  deepEqual(body.checks, []);
  deepEqual(derivedParameters(body.nodes, body.parameters), {
    from_day: { type: "date", required: false, derived: true },
    to_day: { type: "date", required: false, derived: true },
  });
  const order = topologicalOrder(body.nodes).map((n) => n.id);
  equal(order.indexOf("joined") > order.indexOf("orders"), true);
  equal(order.indexOf("orders") > order.indexOf("period"), true);
});

Deno.test("checkPipelineName() answers folder_required and grammar", () => {
  equal(checkPipelineName("a/b"), "a/b");
  equal(checkPipelineName(Array(10).fill("x").join("/")), Array(10).fill("x").join("/"));
  const reason = (name: unknown) => {
    try {
      checkPipelineName(name);
      return "accepted";
    } catch (e) {
      return (e as { details: { reason: string } }).details.reason;
    }
  };
  equal(reason("report"), "folder_required");
  for (
    const bad of [
      "",
      "a//b",
      "/a/b",
      "a/b/",
      "A/b",
      "a/-b",
      "a b/c",
      42,
      Array(11).fill("x").join("/"),
      `a/${"b".repeat(199)}`,
    ]
  ) {
    equal(reason(bad), "grammar", String(bad));
  }
});

Deno.test("parseBody() refuses node defects naming node and field", async () => {
  const body = (nodes: unknown[]) => ({ name: "a/b", nodes });
  await refusesBody(body([{ id: "Bad", type: "DQL" }]), "pipeline.validation.node_invalid", {
    field: "id",
  });
  await refusesBody(body([{ id: "x", type: "QUERY" }]), "pipeline.validation.node_invalid", {
    node_id: "x",
    field: "type",
  });
  await refusesBody(
    body([{ id: "x", type: "DQL", sql: "SELECT 1" }]),
    "pipeline.validation.node_invalid",
    {
      field: "source",
    },
  );
  await refusesBody(
    body([dql("x", { template: { id: "t/a", version: 1 } })]),
    "pipeline.validation.node_invalid",
    { field: "sql" },
  );
  await refusesBody(
    body([dql("x", { output: { target: "tempdb" } })]),
    "pipeline.validation.node_invalid",
    {
      field: "output.table",
    },
  );
  await refusesBody(
    body([dql("x", { output: { target: "datasource", table: "t" } })]),
    "pipeline.validation.node_invalid",
    { field: "output.datasource" },
  );
  await refusesBody(
    body([dql("x", { output: { target: "tempdb", table: "a;drop" } })]),
    "pipeline.validation.node_invalid",
    { field: "output.table" },
  );
  await refusesBody(
    body([{ id: "w", type: "DML", source: "tempdb", sql: "DELETE FROM t" }]),
    "pipeline.validation.node_invalid",
    { field: "source" },
  );
  await refusesBody(
    body([{ id: "c", type: "CALCULATOR", calculator: { name: "today", writes: {} }, sql: "x" }]),
    "pipeline.validation.node_invalid",
    { field: "sql" },
  );
  await refusesBody(body([dql("x", { colour: "red" })]), "pipeline.validation.node_invalid", {
    node_id: "x",
  });
});

Deno.test("parseBody() refuses graph defects with their reasons", async () => {
  const body = (nodes: unknown[]) => ({ name: "a/b", nodes });
  await refusesBody(
    body([dql("a"), dql("a", { output: { target: "tempdb", table: "t" } })]),
    "pipeline.validation.graph_invalid",
    { reason: "duplicate_node_id" },
  );
  await refusesBody(
    body([dql("a", { depends_on: ["ghost"] })]),
    "pipeline.validation.graph_invalid",
    {
      reason: "unknown_dependency",
      dependency: "ghost",
    },
  );
  await refusesBody(body([dql("a"), dql("b")]), "pipeline.validation.graph_invalid", {
    reason: "multiple_caller_nodes",
    node_ids: ["a", "b"],
  });
  await refusesBody(
    body([
      dql("a", { depends_on: ["c"], output: { target: "tempdb", table: "a" } }),
      dql("b", { depends_on: ["a"], output: { target: "tempdb", table: "b" } }),
      dql("c", { depends_on: ["b"] }),
    ]),
    "pipeline.validation.cycle_detected",
    { cycle_path: ["a", "c", "b", "a"] },
  );
  const self = "0190a4b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b";
  await refusesBody(
    body([{ id: "me", type: "PIPELINE", pipeline: { id: self } }]),
    "pipeline.validation.graph_invalid",
    { reason: "self_reference" },
    self,
  );
});

Deno.test("parseBody() refuses bad top-level fields and bad parameters", async () => {
  await refusesBody({ name: "a/b", nodes: [] }, "pipeline.execution.invalid_parameter_type", {
    field: "nodes",
  });
  await refusesBody(
    { name: "a/b", nodes: [dql("a")], id: "x" },
    "pipeline.execution.invalid_parameter_type",
  );
  await refusesBody({ name: "ab", nodes: [dql("a")] }, "pipeline.validation.name_invalid", {
    reason: "folder_required",
  });
  await refusesBody(
    { name: "a/b", nodes: [dql("a")], parameters: { n: { type: "integer", default: "x" } } },
    "pipeline.execution.invalid_parameter_type",
    { field: "parameters.n.default" },
  );
  await refusesBody(
    { name: "a/b", nodes: [dql("a")], settings: { staging_engine: "oracle" } },
    "pipeline.execution.invalid_parameter_type",
    { field: "settings.staging_engine" },
  );
  const check = {
    id: "c1",
    name: "rows",
    datasource: "wh",
    query: "SELECT 1",
    expectation: { kind: "value", value: 1 },
  };
  await refusesBody(
    { name: "a/b", nodes: [dql("a")], checks: [check, check] },
    "pipeline.execution.invalid_parameter_type",
    { field: "checks" },
  );
  equal(parseBody({ name: "a/b", nodes: [dql("a")], checks: [check] }).checks.length, 1);
});

Deno.test("findCycle() finds none in a diamond", () => {
  const nodes = [
    { id: "a", type: "DQL" },
    { id: "b", type: "DQL", depends_on: ["a"] },
    { id: "c", type: "DQL", depends_on: ["a"] },
    { id: "d", type: "DQL", depends_on: ["b", "c"] },
  ] as PipelineNode[];
  equal(findCycle(nodes), undefined);
});
