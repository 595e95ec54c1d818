import { equal, notEqual } from "node:assert/strict";
import { frameJson, keepPayloadJson, payloadJson, payloadJsonWithout } from "./frame_json.ts";
import { frameTuple } from "./frame_batch.ts";

Deno.test("a payload kept with a value's own text is the text JSON.stringify gives", () => {
  const rows = [[1, 'a,"b"', null], [2, "ü", 3.5]];
  const data: Record<string, unknown> = {
    execution_id: "e",
    schema: [{ name: "n", type: "integer" }],
    rows,
    skipped: undefined,
    row_count: 2,
    warnings: [],
    correlation_id: "c",
  };
  keepPayloadJson(data, "rows", JSON.stringify(rows));
  equal(payloadJson(data), JSON.stringify(data));
  equal(frameJson({ id: 1, event: "data_ready", data }), JSON.stringify(data));
  // The kept text is the one used, not a fresh one: given other text, that text shows.
  const other = { rows, n: 1 };
  keepPayloadJson(other, "rows", "[]");
  equal(payloadJson(other), '{"rows":[],"n":1}');
  notEqual(payloadJson(other), JSON.stringify(other));
});

Deno.test("an empty payload kept is {}", () => {
  const data = {};
  keepPayloadJson(data, "rows", "[]");
  equal(payloadJson(data), "{}");
});

Deno.test("a payload without some members is the text JSON.stringify gives without them", () => {
  const rows = [[1, "a"], [2, "b"]];
  const data: Record<string, unknown> = {
    execution_id: "e",
    pipeline_id: "p",
    rows,
    row_count: 2,
    correlation_id: "c",
  };
  const plain = { ...data };
  keepPayloadJson(data, "rows", JSON.stringify(rows));
  for (
    const omit of [[], ["execution_id"], ["correlation_id"], ["execution_id", "correlation_id"], [
      "execution_id",
      "pipeline_id",
      "row_count",
      "correlation_id",
    ]]
  ) {
    const expected = JSON.stringify(
      Object.fromEntries(Object.entries(plain).filter(([k]) => !omit.includes(k))),
    );
    equal(payloadJsonWithout(data, omit), expected);
    equal(payloadJsonWithout(plain, omit), expected);
  }
});

Deno.test("a data_ready payload's rows are serialised once for its stored frame and its answer", () => {
  let serialised = 0;
  const rows = Object.assign([[1, "a"]], {
    toJSON() {
      serialised++;
      return [[1, "a"]];
    },
  });
  const data: Record<string, unknown> = { execution_id: "e", rows, correlation_id: "c" };
  const run = { execution_id: "e", pipeline_id: "p", correlation_id: "c" };
  const tuple = frameTuple({ id: 9, event: "data_ready", data }, "2026-11-28T10:00:00.000Z", run);
  equal(payloadJson(data), '{"execution_id":"e","rows":[[1,"a"]],"correlation_id":"c"}');
  equal(frameJson({ id: 9, event: "data_ready", data }), payloadJson(data));
  equal(serialised, 1);
  equal(tuple, '[9,"data_ready",{"rows":[[1,"a"]]},"2026-11-28T10:00:00.000Z",3073]');
});
