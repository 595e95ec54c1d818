/**
 * semantics_*: learned facts (spec 3 §2.2) as the key's pinned workspace sees and writes them,
 * through the semantic layer (datasources/semantics.ts), which holds the rules of spec 1 §4.7's
 * last paragraph: a DATASOURCE-scope record needs the datasource bound to or granted to the
 * workspace (a super admin's wider reach does not count; else `datasource.not_found`), and
 * retiring a fact another workspace established needs the workspace-admin role.
 */
import { z } from "zod";
import { semanticFactView } from "../../datasources/mod.ts";
import { CREATE, defineTool, READ, REMOVE } from "../tool.ts";

const ref = z.string().min(1).max(256);
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
    input: z.object({
      datasource: z.string().min(1).max(200).optional(),
      kind: z.string().min(1).max(64).optional(),
    }),
    output: z.object({ facts: z.array(semanticFactView) }),
    annotations: READ,
    handler: async (s, ctx, args) => ({
      facts: await s.semantics.list(ctx.actor, ctx.workspace, args),
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
    input: z.object({
      datasource: z.string().min(1).max(200),
      kind: z.string().min(1).max(64),
      fact: z.string().min(1).max(4000),
      scope: z.enum(["DATASOURCE", "WORKSPACE"]).optional().describe(
        "Default: WORKSPACE for the rule kinds, DATASOURCE otherwise",
      ),
      trust: z.enum(["asserted", "observed", "verified"]).optional(),
      evidence_summary: z.string().min(1).max(2000).optional(),
      source_pipeline: z.object({ id: z.string(), name: z.string() }).optional(),
      schema: ref.optional(),
      table: ref.optional(),
      column: ref.optional(),
    }),
    output: semanticFactView,
    annotations: CREATE,
    handler: (s, ctx, args) => s.semantics.record(ctx.actor, ctx.workspace, args, "mcp"),
  }),
  defineTool({
    name: "semantics_retire",
    title: "Retire a learned fact",
    description:
      "Retires a live fact by id; it is never served again. Retiring a fact another workspace " +
      "established needs the workspace-admin role here (auth.role_required).",
    floor: "write",
    input: z.object({ id: z.string().min(1).max(100) }),
    output: z.object({ id: z.string(), retired: z.literal(true) }),
    // A second retire of the same id is datasource.fact_not_found.
    annotations: { ...REMOVE, idempotentHint: false },
    handler: async (s, ctx, args) => {
      await s.semantics.retire(ctx.actor, ctx.workspace, args.id);
      return { id: args.id, retired: true as const };
    },
  }),
];
