/**
 * The pipeline as it is read: one zod schema per shape, for REST responses and tool outputs alike.
 * The body's own parts (nodes, checks, settings, parameter declarations) are the very schemas a
 * saved body is validated with.
 */
import { z } from "zod";
import { templateView } from "../templates/mod.ts";
import { draftPointerView, folderLevelView, versionStatusView } from "../versions/mod.ts";
import { checkSchema, nodeSchema, settingsSchema } from "./body.ts";
import { declarationSchema } from "./parameters.ts";

/** Declared inputs, plus one `derived` entry per key a calculator node writes. */
const parametersView = z.record(
  z.string(),
  declarationSchema.extend({
    derived: z.literal(true).optional().describe("written by a calculator node; never sent"),
  }),
);
/** A parameter as a read shows it: its declaration, or a calculator's `derived` output. */
export type ParameterView = z.infer<typeof parametersView>[string];

const entityFields = {
  id: z.string(),
  name: z.string().describe("folder path: 2 to 10 segments"),
  current_version: z.int().nullable().describe("the latest release: the default pointer"),
  owner: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
};

/**
 * One version with the entity's fields. When no version is live (its only release discarded)
 * the body fields are absent and `version`, `status`, `body_hash` are null.
 */
export const pipelineView = z.object({
  ...entityFields,
  display_name: z.string().optional(),
  description: z.string().optional(),
  schema_version: z.int().optional(),
  parameters: parametersView.optional(),
  settings: settingsSchema.optional(),
  nodes: z.array(nodeSchema).optional(),
  checks: z.array(checkSchema).optional(),
  version: z.int().nullable(),
  status: versionStatusView.nullable(),
  body_hash: z.string().nullable(),
  released_at: z.string().nullable().optional(),
  draft: draftPointerView,
}).meta({ id: "Pipeline" });

/** A row of the paged list and of a folder level: the working version, no body. */
export const pipelineRowView = z.object({
  ...entityFields,
  display_name: z.string().nullable(),
  description: z.string().nullable(),
  version: z.int().nullable().describe("the draft, else the current release; null when none"),
  status: versionStatusView.nullable(),
}).meta({ id: "PipelineRow" });

/** `GET /pipelines?prefix=`: one folder level. */
export const pipelineFolderView = folderLevelView("pipeline_count", "pipelines", pipelineRowView);

/** One run of a release check. */
export const checkRunView = z.object({
  check_id: z.string(),
  name: z.string(),
  expected: checkSchema.shape.expectation,
  observed: z.string().nullable(),
  verdict: z.enum(["pass", "fail", "error"]),
  message: z.string().nullable(),
  ran_at: z.string(),
});

/** `POST …/checks/run`. */
export const checkRunsView = z.object({ version: z.int(), runs: z.array(checkRunView) });

/** `GET …/checks`: each definition with its latest run, or null. */
export const checksView = z.object({
  version: z.int(),
  checks: z.array(checkSchema.extend({ latest_run: checkRunView.nullable() })),
});

/** `DELETE /pipelines/{id}`. */
export const pipelinePurgedView = z.object({
  purged: z.literal(true),
  exclusive_draft_templates: z.array(z.string()),
  exclusive_draft_templates_purged: z.boolean(),
});

/** `GET /pipelines/{id}/export`: the released body, its pinned templates and a manifest. */
export const pipelineExportView = z.object({
  pipeline: pipelineView.omit({
    current_version: true,
    owner: true,
    created_at: true,
    updated_at: true,
    status: true,
    draft: true,
  }).extend({ version: z.int(), body_hash: z.string(), released_at: z.string().nullable() }),
  templates: z.array(templateView),
  manifest: z.object({
    pipeline_id: z.string(),
    pipeline_version: z.int(),
    template_count: z.int(),
    exported_at: z.string(),
  }),
});
