import { deepEqual, equal } from "node:assert/strict";
import { chartData, isIdColumn } from "./result_chart.tsx";
import type { ResultPage } from "./result_table.tsx";

function page(schema: [string, string][], rows: unknown[][]): ResultPage {
  return {
    execution_id: "e",
    schema: schema.map(([name, type]) => ({ name, type })),
    rows,
    offset: 0,
    limit: 100,
    total_rows: rows.length,
    expires_at: "2026-11-28T12:00:00Z",
  };
}

Deno.test("ids are never plotted: a key column is neither a series nor the x axis", () => {
  for (const name of ["id", "customer_id", "id_country", "ORDER_ID"]) {
    equal(isIdColumn({ name, type: "integer" }), true, name);
  }
  equal(isIdColumn({ name: "x", type: "uuid" }), true);
  for (const name of ["paid", "identity_score", "width"]) {
    equal(isIdColumn({ name, type: "integer" }), false, name);
  }
  const data = chartData(page(
    [["customer_id", "integer"], ["name", "varchar"], ["orders", "bigint"], ["revenue", "decimal"]],
    [[7, "Ada", "3", "120.50"], [9, "Bo", "1", "20"]],
  ))!;
  deepEqual(data.columns.map((c) => c.name), ["name", "orders", "revenue"]);
  deepEqual(data.defaults, { x: "name", y: ["orders"], kind: "bar" });
  // Measures arrive as numbers even where the wire carries big integers and decimals as text.
  deepEqual(data.values, [["Ada", "Bo"], [3, 1], [120.5, 20]]);
});

Deno.test("a date column goes on x and makes a line, ahead of an earlier text column", () => {
  const data = chartData(page(
    [["region", "varchar"], ["day", "date"], ["amount", "double"], ["target", "double"]],
    [["eu", "2026-01-02", 1, 2], ["eu", "2026-01-01", null, 3]],
  ))!;
  deepEqual(data.defaults, { x: "day", y: ["amount"], kind: "line" });
  deepEqual(data.values[2], [1, null]);
});

Deno.test("no chart without a measure or without rows; x falls back to the row number", () => {
  equal(chartData(page([["id", "integer"], ["name", "varchar"]], [[1, "a"]])), null);
  equal(chartData(page([["n", "integer"]], [])), null);
  deepEqual(chartData(page([["n", "integer"]], [[1], [2]]))!.defaults, {
    x: "",
    y: ["n"],
    kind: "bar",
  });
});

Deno.test("a huge text cell reaches the chart's inline data cut to 80 characters", () => {
  const huge = "x".repeat(5_000_000);
  const data = chartData(page([["name", "varchar"], ["n", "integer"]], [[huge, 1], ["b", 2]]))!;
  equal(data.values[0][0], `${"x".repeat(79)}…`);
  equal(data.values[0][1], "b");
  equal(JSON.stringify(data).length < 1_000, true);
});
