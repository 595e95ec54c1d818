import { deepEqual, equal } from "node:assert/strict";
import { columnChanges, diffBundle, parameterChanges } from "./diff.ts";
import type { Inventory } from "./views.ts";

Deno.test("parameter changes: removed, retyped and newly required break a published pipeline", () => {
  const before = {
    id: { type: "integer", required: true },
    limit: { type: "integer" },
    region: { type: "string" },
    gone: { type: "date" },
  };
  const after = {
    id: { type: "string", required: true },
    limit: { type: "integer", required: true, default: 10 },
    region: { type: "string", required: true },
    extra: { type: "boolean" },
    must: { type: "integer", required: true },
  };
  deepEqual(parameterChanges(before, after, true), [
    { name: "id", change: "retyped", from: "integer", to: "string", breaking: true },
    { name: "region", change: "now_required", breaking: true },
    { name: "extra", change: "added", to: "boolean", breaking: false },
    { name: "must", change: "added", to: "integer", breaking: true },
    { name: "gone", change: "removed", from: "date", breaking: true },
  ]);
  // The same changes where no endpoint serves the pipeline break no caller.
  equal(parameterChanges(before, after, false).some((c) => c.breaking), false);
});

Deno.test("column changes: an added column never breaks; removed or retyped do", () => {
  deepEqual(
    columnChanges(
      [{ name: "a", type: "integer" }, { name: "b", type: "string" }],
      [{ name: "a", type: "bigint" }, { name: "c", type: "date" }],
      true,
    ),
    [
      { name: "a", change: "retyped", from: "integer", to: "bigint", breaking: true },
      { name: "c", change: "added", to: "date", breaking: false },
      { name: "b", change: "removed", from: "string", breaking: true },
    ],
  );
});

Deno.test("diffBundle: added, unchanged and updated rows; unknown columns stay null", () => {
  const inventory: Inventory = {
    deployment: "production",
    authoring_enabled: false,
    workspace: "acme",
    pipelines: [{
      name: "shop/orders",
      id: "x",
      current_version: 1,
      body_hash: "sha256:old",
      parameters: { id: { type: "integer", required: true } },
      result_columns: [{ name: "id", type: "integer" }],
    }],
    templates: [{ name: "lib/a", id: "t", current_version: 2, body_hash: "sha256:t2" }],
    datasources: ["wh"],
    endpoint_keys: [],
    endpoints: [{ path_pattern: "/shop/{id}", pipeline_name: "shop/orders" }],
  };
  const bundle = {
    root: { id: "p", name: "shop/orders", version: 3, body_hash: "sha256:new" },
    templates: [{ id: "lib/a", version: 2, body_hash: "sha256:t2" }],
    pipelines: [
      { id: "c", name: "shop/child", version: 1, body_hash: "sha256:c", parameters: {} },
      {
        id: "p",
        name: "shop/orders",
        version: 3,
        body_hash: "sha256:new",
        parameters: { id: { type: "integer", required: true } },
      },
    ],
    pipelineIds: ["c", "p"],
    datasources: ["wh"],
    resultColumns: new Map([["p@3", [{ name: "id", type: "integer" }]]]),
  };
  const d = diffBundle(bundle, [{
    path_pattern: "/shop/{id}",
    pipeline_name: "shop/orders",
    timeout_seconds: 30,
    enabled: true,
    description: null,
    bindings: [],
  }], inventory);
  deepEqual(d.pipelines.map((p) => [p.name, p.target_version, p.new_version, p.change]), [
    ["shop/child", null, 1, "added"],
    ["shop/orders", 1, 3, "updated"],
  ]);
  equal(d.pipelines[0].result_columns, null);
  deepEqual(d.pipelines[1].result_columns, []);
  deepEqual(d.templates, [{
    name: "lib/a",
    target_version: 2,
    new_version: 2,
    change: "unchanged",
  }]);
  deepEqual(d.endpoints, [{
    path_pattern: "/shop/{id}",
    pipeline_name: "shop/orders",
    change: "unchanged",
  }]);
  equal(d.breaking, false);
});
