/**
 * The tool catalogue: every group's tools, in the order `tools/list` answers them
 * (docs/mcp.md#how-to-add-a-tool).
 * A group is one file under tools/ exporting `tools`; adding a group is one line here. Names are
 * checked unique when the module loads, so a clash fails every test at once.
 */
import type { ToolDef } from "./tool.ts";
import { tools as pipelines } from "./tools/pipelines.ts";
import { tools as executions } from "./tools/executions.ts";
import { tools as templates } from "./tools/templates.ts";
import { tools as datasources } from "./tools/datasources.ts";
import { tools as semantics } from "./tools/semantics.ts";
import { tools as endpoints } from "./tools/endpoints.ts";
import { tools as lakeTables } from "./tools/lake_tables.ts";
import { tools as calculators } from "./tools/calculators.ts";
import { docsTools } from "./tools/docs.ts";

export const CATALOGUE: readonly ToolDef[] = Object.freeze([
  ...pipelines,
  ...executions,
  ...templates,
  ...datasources,
  ...semantics,
  ...endpoints,
  ...lakeTables,
  ...calculators,
  // The guide among the docs is generated from this very catalogue.
  ...docsTools(() => CATALOGUE),
]);

const seen = new Set<string>();
for (const tool of CATALOGUE) {
  if (seen.has(tool.name)) throw new Error(`two tools are named ${tool.name}`);
  if (!/^[a-z]+(_[a-z]+)+$/.test(tool.name)) throw new Error(`bad tool name ${tool.name}`);
  seen.add(tool.name);
}
