import { deepEqual, equal, throws } from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { h } from "preact";
import { PipelineForm } from "../../../ui/components/pipeline_form.tsx";
import { applyOp, canonical, formFieldOf, specFromForm, specFromPost } from "./pipeline_form.ts";

const SPEC = {
  parameters: {
    region: { type: "string", required: true, enum: ["eu", "us"], description: "Where" },
    days: { type: "integer", default: 7, required: false },
    tags: { type: "string_list", default: ["a", "b"] },
  },
  nodes: [
    {
      id: "raw",
      type: "DQL",
      source: "sales",
      sql: "SELECT 1",
      output: { target: "tempdb", table: "raw" },
    },
    {
      id: "result",
      type: "DQL",
      source: "tempdb",
      template: { id: "t/x", version: 2 },
      depends_on: ["raw"],
    },
  ],
  settings: { max_parallel_nodes: 2 },
  checks: [{
    id: "c",
    name: "c",
    datasource: "sales",
    query: "SELECT 1",
    expectation: { kind: "value", value: 1 },
  }],
};

/** The fields a browser posts for a rendered form: every named control with its value. */
function fieldsOf(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  const decode = (s: string) =>
    s.replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  for (const m of html.matchAll(/<input([^>]*)>/g)) {
    const attrs = m[1];
    const name = attrs.match(/ name="([^"]*)"/)?.[1];
    if (!name) continue;
    const type = attrs.match(/ type="([^"]*)"/)?.[1];
    if (type === "checkbox" && !/ checked/.test(attrs)) continue;
    out[name] = decode(attrs.match(/ value="([^"]*)"/)?.[1] ?? "");
  }
  for (const m of html.matchAll(/<select[^>]* name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    out[m[1]] = m[2].match(/<option value="([^"]*)" selected/)?.[1] ?? "";
  }
  for (const m of html.matchAll(/<textarea[^>]* name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g)) {
    out[m[1]] = decode(m[2]);
  }
  return out;
}

function rendered(spec: Record<string, unknown>) {
  return fieldsOf(renderToString(h(PipelineForm, {
    spec,
    base: JSON.stringify(spec),
    datasources: ["sales"],
    templates: ["t/x"],
  })));
}

Deno.test("the form drawn from a spec reads back as the same spec, unshown fields kept", () => {
  const fields = rendered(SPEC);
  equal(canonical(specFromForm(fields, SPEC)), canonical(SPEC));
});

Deno.test("form edits land in the spec: a default typed by its type, a dependency by row", () => {
  const fields = rendered(SPEC);
  fields["p.1.default"] = "30";
  fields["p.0.required"] = "";
  fields["n.0.id"] = "staged";
  fields["s.staging_engine"] = "sqlite";
  const spec = specFromForm(fields, SPEC);
  equal(spec.parameters.days.default, 30);
  equal(spec.parameters.region.required, undefined);
  deepEqual(spec.parameters.region.enum, ["eu", "us"]);
  // The dependency follows the renamed node.
  deepEqual(spec.nodes[1].depends_on, ["staged"]);
  equal(spec.settings.staging_engine, "sqlite");
  equal(spec.checks.length, 1);
});

Deno.test("a graph too big for dependency chips reads and writes its dependencies as ids", () => {
  const nodes = Array.from({ length: 20 }, (_, i) => ({
    id: `n${i}`,
    type: "DQL",
    source: "tempdb",
    sql: `SELECT ${i}`,
    ...(i > 0 ? { depends_on: [`n${i - 1}`] } : {}),
    ...(i < 19 ? { output: { target: "tempdb", table: `t${i}` } } : {}),
  }));
  const spec = { nodes };
  const fields = rendered(spec);
  equal(fields["n.0.dep.1"], undefined);
  equal(fields["n.5.depends_on"], "n4");
  equal(canonical(specFromForm(fields, spec)), canonical(spec));
  fields["n.5.depends_on"] = "n1, n2";
  deepEqual(specFromForm(fields, spec).nodes[5].depends_on, ["n1", "n2"]);
});

Deno.test("a post takes the side that changed, and refuses both changed apart", () => {
  const base = JSON.stringify(SPEC);
  const fields = { ...rendered(SPEC), spec: base, spec_base: base, form: "1" };
  // Form edited, JSON as rendered: the form wins.
  equal(specFromPost({ ...fields, "p.1.default": "9" }).parameters.days.default, 9);
  // JSON edited, form as rendered: the JSON wins.
  const json = JSON.stringify({ ...SPEC, settings: { max_parallel_nodes: 8 } });
  equal(specFromPost({ ...fields, spec: json }).settings.max_parallel_nodes, 8);
  // Both, differently: refused on the JSON, nothing dropped silently.
  throws(
    () => specFromPost({ ...fields, spec: json, "p.1.default": "9" }),
    (e: Error & { details?: Record<string, unknown> }) => e.details?.field === "spec",
  );
  // The script names the view typed in last, and that one is taken.
  equal(
    specFromPost({ ...fields, spec: json, "p.1.default": "9", last_edit: "json" }).settings
      .max_parallel_nodes,
    8,
  );
  equal(
    specFromPost({ ...fields, spec: json, "p.1.default": "9", last_edit: "form" }).parameters
      .days.default,
    9,
  );
  // A form drawn from an empty spec reads back as empty.
  equal(canonical(specFromForm({ p_count: "0", n_count: "0" }, {})), "{}");
  // No form posted (a script or an old page): the JSON alone.
  equal(specFromPost({ spec: json }).settings.max_parallel_nodes, 8);
});

Deno.test("add and remove reshape the spec; a removed node leaves no dangling dependency", () => {
  const added = applyOp(applyOp(SPEC, "add_param"), "add_node");
  equal(Object.keys(added.parameters).length, 4);
  equal(added.nodes.length, 3);
  const removed = applyOp(SPEC, "remove_node:0");
  deepEqual(removed.nodes.map((n: { id: string }) => n.id), ["result"]);
  equal(removed.nodes[0].depends_on, undefined);
  deepEqual(Object.keys(applyOp(SPEC, "remove_param:1").parameters), ["region", "tags"]);
});

Deno.test("refusals map onto the form field they name", () => {
  equal(formFieldOf(SPEC, { field: "parameters.days.default" }, "x"), "p.1.default");
  equal(formFieldOf(SPEC, { field: "parameters.tags.min" }, "x"), "p.2.type");
  equal(formFieldOf(SPEC, { node_id: "result", field: "sql" }, "x"), "n.1.sql");
  equal(formFieldOf(SPEC, { node_id: "raw", field: "output.table" }, "x"), "n.0.table");
  equal(
    formFieldOf(SPEC, { reason: "unknown_dependency", node_id: "result" }, "x"),
    "n.1.depends_on",
  );
  equal(
    formFieldOf(SPEC, { reason: "multiple_caller_nodes", node_ids: ["raw", "result"] }, "x"),
    "n.1.target",
  );
  equal(
    formFieldOf(
      SPEC,
      { cycle_path: ["result", "raw", "result"] },
      "pipeline.validation.cycle_detected",
    ),
    "n.1.depends_on",
  );
  equal(formFieldOf(SPEC, { field: "settings.max_parallel_nodes" }, "x"), "s.max_parallel_nodes");
  equal(formFieldOf(SPEC, { field: "checks" }, "x"), undefined);
});
