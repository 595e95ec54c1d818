/**
 * The catalogue against its table (docs/mcp.md#tools-and-their-floors): every tool's floor is the
 * table's, the read tools (and only they) say readOnlyHint, workspace-free is exactly the four
 * tools the table names, tools of one shape carry the same hints, and every schema converts to the
 * JSON Schema `tools/list` sends: closed, every argument described, valid under Ajv's strict mode.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { OPERATIONS } from "../identity/mod.ts";
import { CATALOGUE } from "./catalogue.ts";
import { listedJson } from "./server.ts";
import { CREATE, EXECUTE, FLOORS, OVERWRITE, READ, REMOVE, RUN } from "./tool.ts";

/** The table, as written: tool → [min scope, min role]. */
const SPEC: Record<string, [string, string]> = {};
const rows: [string, string, string][] = [
  [
    "pipelines_list pipelines_get templates_list templates_get templates_used_by datasources_list " +
    "datasources_get executions_list executions_get executions_get_result calculators_list " +
    "calculators_get datasources_get_table_stats semantics_list docs_list docs_get " +
    "endpoints_list endpoints_get",
    "read",
    "view",
  ],
  ["pipelines_execute executions_cancel pipelines_run_checks", "execute", "execute"],
  ["pipelines_execute_node", "author", "execute"],
  [
    "datasources_get_schemas datasources_get_tables datasources_get_columns " +
    "datasources_preview_rows sql_probe",
    "author",
    "view",
  ],
  ["datasources_test", "author", "ws_admin"],
  [
    "pipelines_create pipelines_update templates_create templates_update templates_render " +
    "templates_purge_draft endpoints_create endpoints_delete lake_tables_register " +
    "lake_tables_import lake_tables_unregister semantics_record semantics_retire",
    "author",
    "author",
  ],
];
for (const [names, scope, role] of rows) for (const n of names.split(" ")) SPEC[n] = [scope, role];
const READ_TOOLS = new Set(rows[0][0].split(" "));
/**
 * Tools beyond the read row that change nothing either: their floor is higher (a render, an
 * introspection, a bounded read-only probe), but readOnlyHint says what a call does, and a
 * read-only tool is not audited as `mcp.tool.write`.
 */
const ALSO_READ_ONLY = new Set([
  "templates_render",
  "datasources_get_schemas",
  "datasources_get_tables",
  "datasources_get_columns",
  "datasources_preview_rows",
  "sql_probe",
]);
const WORKSPACE_FREE = new Set(["calculators_list", "calculators_get", "docs_list", "docs_get"]);

/** Set to true once every group has landed: then the catalogue must be the whole table. */
const FULL = true;

Deno.test("the table has 41 tools", () => {
  equal(Object.keys(SPEC).length, 41);
  equal(READ_TOOLS.size, 18);
});

Deno.test("every catalogued tool has the floor of the table", () => {
  for (const tool of CATALOGUE) {
    ok(SPEC[tool.name], `${tool.name} is not a tool of the table`);
    const rule = OPERATIONS[FLOORS[tool.floor]];
    deepEqual([rule.scope, rule.role], SPEC[tool.name], tool.name);
    equal(rule.workspace === "required", !tool.workspaceFree, tool.name);
  }
});

Deno.test("annotations tell the truth: read tools read, workspace-free tools are the four", () => {
  for (const tool of CATALOGUE) {
    const reads = READ_TOOLS.has(tool.name) || ALSO_READ_ONLY.has(tool.name);
    equal(tool.annotations.readOnlyHint, reads, tool.name);
    if (tool.annotations.readOnlyHint) {
      equal(tool.annotations.destructiveHint, false, tool.name);
      equal(tool.annotations.idempotentHint, true, tool.name);
    }
    equal(!!tool.workspaceFree, WORKSPACE_FREE.has(tool.name), tool.name);
  }
});

/**
 * The hints of each kind of tool: what it does decides them, so tools of one shape carry the same
 * three flags (docs/mcp.md#annotations).
 */
const SHAPES: [typeof READ, string][] = [
  [
    CREATE,
    "pipelines_create templates_create endpoints_create lake_tables_register semantics_record",
  ],
  [OVERWRITE, "pipelines_update templates_update"],
  [REMOVE, "templates_purge_draft endpoints_delete lake_tables_unregister semantics_retire"],
  [EXECUTE, "pipelines_execute pipelines_execute_node"],
  [RUN, "pipelines_run_checks datasources_test"],
  [
    { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
    "executions_cancel",
  ],
  [
    // Registers what is not registered yet; a second identical import changes nothing.
    { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    "lake_tables_import",
  ],
];

Deno.test("tools of one shape carry the same hints, and a tool that writes is not idempotent", () => {
  const named = new Map<string, typeof READ>();
  for (const [hints, names] of SHAPES) for (const n of names.split(" ")) named.set(n, hints);
  for (const tool of CATALOGUE) {
    const expected = tool.annotations.readOnlyHint ? READ : named.get(tool.name);
    deepEqual(tool.annotations, expected, tool.name);
  }
});

/**
 * Ajv 2020-12 in strict mode, with the formats zod emits (uuid, date-time, …) and union types
 * (`type: ["string", "number"]`, valid JSON Schema that strict mode only asks to be allowed).
 */
function strictAjv() {
  // deno-lint-ignore no-explicit-any
  const ajv = new (Ajv2020 as any)({ strict: true, allowUnionTypes: true, allErrors: true });
  // deno-lint-ignore no-explicit-any
  (addFormats as any)(ajv);
  return ajv as { compile(schema: unknown): unknown };
}

Deno.test("every schema is the object tools/list sends, and compiles under Ajv's strict mode", () => {
  const ajv = strictAjv();
  let compiled = 0;
  for (const tool of CATALOGUE) {
    for (const io of ["input", "output"] as const) {
      const json = listedJson(io === "input" ? tool.listed ?? tool.input : tool.output, io);
      equal(json.type, "object", `${tool.name} ${io}`);
      try {
        ajv.compile(json);
        compiled++;
      } catch (e) {
        throw new Error(`${tool.name} ${io}: ${(e as Error).message}`);
      }
    }
    ok(tool.description.length >= 40, `${tool.name}: say what it does`);
    ok(tool.title.length > 0, tool.name);
  }
  equal(compiled, 82);
});

Deno.test("every input schema is closed and describes every argument", () => {
  for (const tool of CATALOGUE) {
    const json = listedJson(tool.listed ?? tool.input, "input") as {
      additionalProperties?: unknown;
      properties?: Record<string, { description?: string }>;
    };
    equal(json.additionalProperties, false, `${tool.name}: an unknown argument must be refused`);
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      ok((property.description ?? "").length >= 10, `${tool.name}.${name} is not described`);
    }
  }
});

Deno.test("a listed schema names the arguments its tool takes, no more, no fewer", () => {
  const withListed = CATALOGUE.filter((t) => t.listed);
  deepEqual(withListed.map((t) => t.name), ["pipelines_create", "pipelines_update"]);
  for (const tool of withListed) {
    const json = listedJson(tool.listed!, "input") as {
      properties: Record<string, unknown>;
      required?: string[];
    };
    const input = listedJson(tool.input, "input") as typeof json;
    deepEqual(Object.keys(json.properties), Object.keys(input.properties), tool.name);
    deepEqual(json.required, input.required, tool.name);
  }
  // The body's parts are the pipeline service's own schemas: a node is closed and typed.
  const create = listedJson(CATALOGUE.find((t) => t.listed)!.listed!, "input") as {
    properties: { nodes: { items: { additionalProperties: boolean; properties: object } } };
  };
  equal(create.properties.nodes.items.additionalProperties, false);
  ok("depends_on" in create.properties.nodes.items.properties);
});

Deno.test("executions_get_result declares that it needs execution_id or cursor", () => {
  const tool = CATALOGUE.find((t) => t.name === "executions_get_result")!;
  const json = listedJson(tool.input, "input") as { anyOf?: { required: string[] }[] };
  deepEqual(json.anyOf?.map((a) => a.required), [["execution_id"], ["cursor"]]);
});

Deno.test("the catalogue is whole once FULL is set", () => {
  const missing = Object.keys(SPEC).filter((n) => !CATALOGUE.some((t) => t.name === n));
  if (FULL) deepEqual(missing, []);
  else ok(missing.length < 41);
});

Deno.test("the tools that wait on a run say so (they alone hear a client leave on the fast path)", () => {
  deepEqual(
    CATALOGUE.filter((t) => t.waits).map((t) => t.name),
    ["pipelines_execute", "pipelines_execute_node"],
  );
});
