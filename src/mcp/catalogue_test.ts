/**
 * The catalogue against spec 1 §4.7: every tool's floor is the table's, the read tools (and only
 * they) say readOnlyHint, workspace-free is exactly the four tools the spec names, and every
 * schema converts to the JSON Schema `tools/list` sends. Tools of §4.7 not yet catalogued are
 * listed by the last test, which fails once the catalogue is meant to be whole (FULL below).
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { z } from "zod";
import { OPERATIONS } from "../identity/mod.ts";
import { CATALOGUE } from "./catalogue.ts";
import { FLOORS } from "./tool.ts";

/** Spec 1 §4.7, as written: tool → [min scope, min role]. */
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

Deno.test("the table of spec 1 §4.7 has 41 tools", () => {
  equal(Object.keys(SPEC).length, 41);
  equal(READ_TOOLS.size, 18);
});

Deno.test("every catalogued tool has the floor of spec 1 §4.7", () => {
  for (const tool of CATALOGUE) {
    ok(SPEC[tool.name], `${tool.name} is not a tool of spec 1 §4.7`);
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

/** The schema a root `$ref` names (a named view); the server lifts it to the root (server.ts). */
function rooted(json: Record<string, unknown>): { type?: string } {
  const ref = typeof json.$ref === "string" ? /^#\/\$defs\/(.+)$/.exec(json.$ref)?.[1] : undefined;
  const defs = json.$defs as Record<string, { type?: string }> | undefined;
  return ref && defs?.[ref] ? defs[ref] : json;
}

Deno.test("every schema converts to JSON Schema; every tool is described", () => {
  for (const tool of CATALOGUE) {
    const input = rooted(z.toJSONSchema(tool.input, { io: "input" }));
    const output = rooted(z.toJSONSchema(tool.output, { io: "output" }));
    equal(input.type, "object", tool.name);
    equal(output.type, "object", tool.name);
    ok(tool.description.length >= 40, `${tool.name}: say what it does`);
    ok(tool.title.length > 0, tool.name);
  }
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
