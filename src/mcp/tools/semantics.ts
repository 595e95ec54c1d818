/**
 * semantics_*: learned facts (docs/datasources.md) as the key's pinned workspace sees and writes
 * them, through the semantic layer (datasources/semantics.ts), which holds the tool endpoint's
 * rules for them (docs/mcp.md#notes-on-particular-tools): a DATASOURCE-scope record needs the datasource bound to or granted to the
 * workspace (a super admin's wider reach does not count; else `datasource.not_found`), and
 * retiring a fact another workspace established needs the workspace-admin role.
 */
import { z } from "zod";
import { semanticFactView } from "../../datasources/mod.ts";
import { CREATE, defineTool, READ, REMOVE } from "../tool.ts";

const ref = z.string().min(1).max(256);
const datasource = z.string().min(1).max(200);
export const tools = [
  defineTool({
    name: "semantics_list",
    title: "List learned facts",
    description:
      "Lists the live learned facts the workspace sees, oldest first: every DATASOURCE fact on " +
      "a datasource it can use, plus its own WORKSPACE rules (definition, exclusion, " +
      "preference). Filter by `datasource` and `kind`. `trust` needs_review or stale means the " +
      "table changed since the fact was recorded; `conflict` marks two live facts of one kind " +
      "on the same references.",
    floor: "read",
    input: z.strictObject({
      datasource: datasource.optional().describe("Only facts about this datasource (its name)"),
      kind: z.string().min(1).max(64).optional().describe(
        "Only facts of this kind, e.g. `unit`, `window`, `definition`",
      ),
    }),
    output: z.object({ facts: z.array(semanticFactView) }),
    annotations: READ,
    handler: async (s, ctx, args) => ({
      facts: await s.content.semantics.list(ctx.actor, ctx.workspace, args),
    }),
  }),
  defineTool({
    name: "semantics_record",
    title: "Record a learned fact",
    description:
      "Records a fact about a datasource, optionally narrowed to a `table` (with `schema`) and " +
      "`column`. Kinds: datasource-wide `window`, `sampling`; workspace rules `definition`, " +
      "`exclusion`, `preference` (always `asserted`, WORKSPACE scope); others such as `unit`. " +
      "A fact naming a table is fingerprinted from its columns now, so a later schema change " +
      "demotes it.",
    floor: "write",
    input: z.strictObject({
      datasource: datasource.describe("The datasource the fact is about (its name)"),
      kind: z.string().min(1).max(64).describe(
        "window, sampling, definition, exclusion, preference, unit, …",
      ),
      fact: z.string().min(1).max(4000).describe(
        "The fact in one or two sentences, e.g. `amount is in euro cents`",
      ),
      scope: z.enum(["DATASOURCE", "WORKSPACE"]).optional().describe(
        "Default: WORKSPACE for the rule kinds, DATASOURCE otherwise",
      ),
      trust: z.enum(["asserted", "observed", "verified"]).optional().describe(
        "How it is known: asserted (told), observed (seen in data), verified (checked)",
      ),
      evidence_summary: z.string().min(1).max(2000).optional().describe(
        "What the fact rests on, e.g. the probe that showed it",
      ),
      source_pipeline: z.strictObject({
        id: z.string().describe("Pipeline id"),
        name: z.string().describe("Pipeline name"),
      }).optional().describe("The pipeline the fact was learned from"),
      schema: ref.optional().describe("Schema of `table`, exact"),
      table: ref.optional().describe("Narrows the fact to this table (exact name)"),
      column: ref.optional().describe("Narrows the fact to this column of `table`"),
    }),
    output: semanticFactView,
    annotations: CREATE,
    handler: (s, ctx, args) => s.content.semantics.record(ctx.actor, ctx.workspace, args, "mcp"),
  }),
  defineTool({
    name: "semantics_retire",
    title: "Retire a learned fact",
    description:
      "Retires a live fact by id; it is never served again. Retiring a fact another workspace " +
      "established needs the workspace-admin role here (auth.role_required).",
    floor: "write",
    input: z.strictObject({
      id: z.string().min(1).max(100).describe("The fact's id, from semantics_list"),
    }),
    output: z.object({ id: z.string(), retired: z.literal(true) }),
    // A second retire of the same id is datasource.fact_not_found.
    annotations: REMOVE,
    handler: async (s, ctx, args) => {
      await s.content.semantics.retire(ctx.actor, ctx.workspace, args.id);
      return { id: args.id, retired: true as const };
    },
  }),
];
