import { deepEqual, equal } from "node:assert/strict";
import { coerceParameters, parameterError, parseDeclarations } from "./parameters.ts";
import { refuses } from "../../tests/support/refusals.ts";

const declared = parseDeclarations({
  region: { type: "string", enum: ["eu", "us"], default: "eu" },
  limit: { type: "integer", min: 1, max: 100, required: true },
  ratio: { type: "number" },
  active: { type: "boolean" },
  day: { type: "date", min: "2020-01-01" },
  at: { type: "timestamp" },
  tags: { type: "string_list", max_length: 5 },
  ids: { type: "integer_list" },
});

Deno.test("coerceParameters() binds JSON values by type and fills defaults", () => {
  const given = {
    limit: 10,
    ratio: 0.5,
    active: false,
    day: "2024-02-29",
    at: "2024-02-29T23:59:59.123+01:00",
    tags: ["a", "bb"],
    ids: [1, 2, 3],
  };
  const { values, defects } = coerceParameters(declared, given);
  deepEqual(defects, []);
  // Every value as given, and the one left out at its default.
  deepEqual(values, { region: "eu", ...given });
});

Deno.test("coerceParameters() parses query-string text by type, lists comma-separated", () => {
  const { values, defects } = coerceParameters(declared, {
    region: "us",
    limit: "7",
    ratio: "-1.5e2",
    active: "true",
    tags: "x, y",
    ids: "4,5",
  }, { fromText: true });
  deepEqual(defects, []);
  deepEqual(values, {
    region: "us",
    limit: 7,
    ratio: -150,
    active: true,
    tags: ["x", "y"],
    ids: [4, 5],
  });
});

Deno.test("coerceParameters() reports every defect at once, each with its code", () => {
  const { defects } = coerceParameters(declared, {
    region: "mars",
    ratio: "1.5",
    active: "yes",
    day: "2023-02-29",
    at: "2024-01-01 10:00",
    tags: ["ok", "toolong"],
    ids: [1, 2.5],
    extra: 1,
  });
  deepEqual(defects.map((d) => [d.parameter, d.code]).sort(), [
    ["active", "pipeline.execution.invalid_parameter_type"],
    ["at", "pipeline.execution.invalid_parameter_type"],
    ["day", "pipeline.execution.invalid_parameter_type"],
    ["extra", "pipeline.execution.invalid_parameter_type"],
    ["ids", "pipeline.execution.invalid_parameter_type"],
    ["limit", "pipeline.execution.parameter_required"],
    ["ratio", "pipeline.execution.invalid_parameter_type"],
    ["region", "pipeline.execution.invalid_parameter_type"],
    ["tags", "pipeline.execution.invalid_parameter_type"],
  ]);
  const error = parameterError(defects);
  equal(error.code, "pipeline.execution.parameter_required");
  equal(error.details.parameter, "limit");
  equal((error.details.errors as unknown[]).length, 9);
});

Deno.test("coerceParameters() applies bounds: min, max, enum, max_length, date order", () => {
  const bad = (supplied: Record<string, unknown>, fromText = false) =>
    coerceParameters(declared, { limit: 5, ...supplied }, { fromText }).defects.map((d) =>
      d.parameter
    );
  deepEqual(bad({ limit: 0 }), ["limit"]);
  deepEqual(bad({ limit: 101 }), ["limit"]);
  deepEqual(bad({ limit: "101" }, true), ["limit"]);
  deepEqual(bad({ limit: "1e2" }, true), ["limit"]);
  deepEqual(bad({ limit: 9007199254740993 }), ["limit"]);
  deepEqual(bad({ day: "2019-12-31" }), ["day"]);
  deepEqual(bad({ limit: "5" }), ["limit"], "JSON integers are numbers, not text");
  deepEqual(bad({ region: null }), [], "null counts as absent and takes the default");
  deepEqual(bad({ ratio: Number.NaN }), ["ratio"]);
});

Deno.test("parseDeclarations() refuses bad declarations naming the field", async () => {
  const invalid = (input: unknown, field: string) =>
    refuses(() => parseDeclarations(input), "pipeline.execution.invalid_parameter_type", {
      field,
    });
  await invalid([], "parameters");
  await invalid({ "Bad-Name": { type: "string" } }, "parameters.Bad-Name");
  await invalid({ x: { type: "decimal" } }, "parameters.x.type");
  await invalid({ x: { type: "string", colour: "red" } }, "parameters.x");
  await invalid({ x: { type: "integer", default: "3" } }, "parameters.x.default");
  await invalid({ x: { type: "integer", min: "1" } }, "parameters.x.min");
  await invalid({ x: { type: "date", max: "tomorrow" } }, "parameters.x.max");
  await invalid({ x: { type: "string", min: 1 } }, "parameters.x.min");
  await invalid({ x: { type: "integer", max_length: 3 } }, "parameters.x.max_length");
  await invalid({ x: { type: "integer", enum: [1, "two"] } }, "parameters.x.enum");
  await invalid({ x: { type: "string", enum: ["a"], default: "b" } }, "parameters.x.default");
  deepEqual(parseDeclarations(undefined), {});
});

Deno.test("coerceParameters() refuses a list past max-list-items and values past max-parameter-values", () => {
  const caps = { maxListItems: 3, maxValues: 6 };
  const list = parseDeclarations({
    ids: { type: "integer_list" },
    tags: { type: "string_list", default: ["a", "b", "c", "d"] },
    n: { type: "integer" },
  });
  const run = (supplied: Record<string, unknown>, fromText = false) =>
    coerceParameters(list, supplied, { caps, fromText });
  deepEqual(run({ ids: [1, 2, 3], tags: ["x", "y", "z"] }).defects, []);
  // Past the list cap before any item is read: bad items are not even reported.
  const over = run({ ids: [1, "two", 3, 4], tags: [] });
  deepEqual(over.defects.map((d) => [d.parameter, d.cap?.setting, d.cap?.max]), [
    ["ids", "service.executor.max-list-items", 3],
  ]);
  equal(run({ ids: "1,2,3,4", tags: "" }, true).defects.length, 1, "query-string lists too");
  // A default longer than a lowered cap is refused like a supplied value.
  deepEqual(run({ ids: [] }).defects.map((d) => d.parameter), ["tags"]);
  // Every value counts toward the total: 3 + 3 + 1 = 7 > 6.
  const total = run({ ids: [1, 2, 3], tags: ["x", "y", "z"], n: 1 });
  equal(total.defects.length, 1);
  const error = parameterError([
    { parameter: "n", code: "pipeline.execution.invalid_parameter_type", message: "bad" },
    ...total.defects,
  ]);
  // A passed cap outranks a malformed value and is named in the details.
  equal(error.code, "pipeline.execution.invalid_parameter_type");
  deepEqual(
    [error.details.field, error.details.setting, error.details.max, error.details.parameter],
    ["parameters", "service.executor.max-parameter-values", 6, undefined],
  );
  equal((error.details.errors as { cap?: unknown }[]).every((d) => d.cap === undefined), true);
});
