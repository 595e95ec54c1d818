/**
 * Tool arguments as an agent meets them (docs/mcp.md#arguments), over real HTTP with the official
 * SDK client on both revisions: `tools/list` sends closed, described input schemas that compile
 * under Ajv's strict mode exactly as received; a misspelt argument is refused by its own name
 * with the nearest valid one, never dropped; a missing one is named as missing; and
 * executions_get_result, which needs `execution_id` or `cursor`, says so in its schema and in its
 * refusal.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { ERAS, type Json, withAuthorClient } from "./support/mcp_client.ts";

const INVALID = "pipeline.execution.invalid_parameter_type";

function strictAjv(): { compile(schema: unknown): unknown } {
  // deno-lint-ignore no-explicit-any
  const ajv = new (Ajv2020 as any)({ strict: true, allowUnionTypes: true });
  // deno-lint-ignore no-explicit-any
  (addFormats as any)(ajv);
  return ajv;
}

for (const era of ERAS) {
  Deno.test(`[${era}] tools/list sends closed, described schemas that Ajv compiles in strict mode`, () =>
    withAuthorClient({}, era, async (c) => {
      const { tools } = await c.client.listTools();
      equal(tools.length, 41);
      const ajv = strictAjv();
      let compiled = 0;
      for (const tool of tools) {
        const input = tool.inputSchema as Json;
        equal(input.additionalProperties, false, tool.name);
        for (const [name, property] of Object.entries(input.properties ?? {}) as [string, Json][]) {
          ok(String(property.description ?? "").length >= 10, `${tool.name}.${name}`);
        }
        for (const schema of [tool.inputSchema, tool.outputSchema]) {
          ajv.compile(schema);
          compiled++;
        }
      }
      equal(compiled, 82);
      const result = tools.find((t) => t.name === "executions_get_result")!.inputSchema as Json;
      deepEqual(result.anyOf.map((a: Json) => a.required), [["execution_id"], ["cursor"]]);
    }));

  Deno.test(`[${era}] a misspelt argument is refused by its own name, with the one meant`, () =>
    withAuthorClient({}, era, async (c) => {
      // The datasource's argument here is `name`: the one missing required argument is the hint.
      const sent = await c.refusal("datasources_get", { datasource: "shop" });
      equal(sent.code, INVALID);
      deepEqual(
        [sent.details.field, sent.details.suggestion, sent.details.unknown, sent.details.expected],
        ["datasource", "name", ["datasource"], ["name"]],
      );
      ok(sent.message.includes("`datasource`") && sent.message.includes("did you mean `name`"));

      // A near spelling is suggested by spelling; the filter is never silently dropped.
      const typo = await c.refusal("pipelines_list", { datasorce: "shop" });
      deepEqual([typo.details.field, typo.details.suggestion], ["datasorce", "datasource"]);
      const far = await c.refusal("pipelines_list", { name: "team/x" });
      deepEqual([far.details.field, far.details.suggestion], ["name", undefined]);
      deepEqual(far.details.expected, ["owner", "datasource", "q", "offset", "limit"]);

      // Unknown before missing: the unknown one usually explains the missing one.
      const both = await c.refusal("executions_get", { id: crypto.randomUUID() });
      deepEqual([both.details.field, both.details.suggestion], ["id", "execution_id"]);
      // The names renamed to one per identifier (docs/decisions.md#one-name-per-identifier): the
      // old one is refused by its own name, the new one suggested.
      for (
        const [tool, args, old, now] of [
          ["templates_get", { name: "sales/x" }, "name", "id"],
          ["templates_render", { name: "sales/x" }, "name", "id"],
          ["endpoints_get", { path: "/x" }, "path", "path_pattern"],
          ["executions_cancel", { id: crypto.randomUUID() }, "id", "execution_id"],
          [
            "lake_tables_unregister",
            { datasource: "d", namespace: "n", table: "t" },
            "table",
            "name",
          ],
        ] as const
      ) {
        const r = await c.refusal(tool, args);
        deepEqual([r.code, r.details.field, r.details.suggestion], [
          "pipeline.execution.invalid_parameter_type",
          old,
          now,
        ], tool);
      }

      // A missing argument is named as missing; a wrong type names the argument it is in.
      const missing = await c.refusal("pipelines_get", {});
      deepEqual([missing.code, missing.details.field, missing.details.missing], [
        INVALID,
        "id",
        ["id"],
      ]);
      const typed = await c.refusal("pipelines_get", { id: 42 });
      deepEqual([typed.details.field, typed.details.location], ["id", "arguments"]);

      // executions_get_result needs one of its two arguments.
      const neither = await c.refusal("executions_get_result", {});
      deepEqual([neither.code, neither.details.field], [INVALID, "execution_id"]);

      // A correct call of the same tools goes through.
      equal((await c.call("pipelines_list", { datasource: "shop" })).pagination.total, 0);
    }));
}
