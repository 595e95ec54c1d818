/**
 * What the promotion routes answer (docs/promotion.md): one zod schema per shape, and the
 * TypeScript types the receiver and sender answer with.
 */
import { z } from "zod";

export const inventoryRowView = z.object({
  name: z.string(),
  id: z.string(),
  current_version: z.int().describe("the latest released version"),
  body_hash: z.string(),
  parameters: z.record(z.string(), z.unknown()).optional().describe(
    "pipelines: the release's declared parameters",
  ),
  result_columns: z.array(z.object({ name: z.string(), type: z.string() })).nullable()
    .optional().describe("pipelines: the columns its last run here delivered; null: never ran"),
});

/** `GET /promotion/inventory`. */
export const inventoryView = z.object({
  deployment: z.string(),
  authoring_enabled: z.boolean(),
  workspace: z.string(),
  pipelines: z.array(inventoryRowView),
  templates: z.array(inventoryRowView),
  datasources: z.array(z.string()),
  endpoint_keys: z.array(z.string()).describe("live endpoint-kind keys pinned to the workspace"),
  endpoints: z.array(z.object({ path_pattern: z.string(), pipeline_name: z.string().nullable() })),
});

const counts = { templates: z.int(), pipelines: z.int(), endpoints: z.int() };

/** `POST /promotion/push`: what the batch held, and what was new here. */
export const pushResultView = z.object({
  workspace: z.string(),
  source_env: z.string(),
  ...counts,
  applied: z.object(counts),
});

const change = <T extends [string, ...string[]]>(values: T) =>
  z.object({
    name: z.string(),
    change: z.enum(values),
    from: z.string().optional(),
    to: z.string().optional(),
    breaking: z.boolean(),
  });
const versions = {
  name: z.string(),
  target_version: z.int().nullable(),
  new_version: z.int(),
  change: z.enum(["added", "updated", "unchanged"]),
};

const parameterChange = change(["added", "removed", "retyped", "now_required"]);
const columnChange = change(["added", "removed", "retyped"]);

const pipelinePreviewView = z.object({
  ...versions,
  published_on_target: z.boolean(),
  parameters: z.array(parameterChange),
  result_columns: z.array(columnChange).nullable().describe("null: either side never ran"),
  breaking: z.boolean(),
});

/** `GET /promotion/preview`: what a push would change on the target. */
export const previewView = z.object({
  target: z.string(),
  workspace: z.string(),
  pipelines: z.array(pipelinePreviewView),
  templates: z.array(z.object(versions)),
  endpoints: z.array(z.object({
    path_pattern: z.string(),
    pipeline_name: z.string(),
    change: z.enum(["added", "changed", "unchanged"]),
  })),
  breaking: z.boolean(),
});

/** `POST /promotion/promote`. */
export const promoteResultView = z.object({
  target: z.string().describe("the target's deployment name"),
  workspace: z.string(),
  pipeline: z.object({
    id: z.string(),
    name: z.string(),
    version: z.int(),
    body_hash: z.string(),
  }),
  previous_version: z.int().nullable(),
  pushed: pushResultView,
  changes: z.object({
    pipelines: z.array(pipelinePreviewView.omit({
      parameters: true,
      result_columns: true,
      breaking: true,
    })),
    templates: previewView.shape.templates,
    endpoints: previewView.shape.endpoints,
  }).describe(
    "What the push changed, entry by entry, as the preview reads it from the inventory the push was decided on (all or nothing: a 200 means every row happened)",
  ),
});

export type InventoryRow = z.output<typeof inventoryRowView>;
export type Inventory = z.output<typeof inventoryView>;
export type PushResult = z.output<typeof pushResultView>;
export type PromoteResult = z.output<typeof promoteResultView>;
export type PromoteChanges = PromoteResult["changes"];
export type ParameterChange = z.output<typeof parameterChange>;
export type ColumnChange = z.output<typeof columnChange>;
export type PipelinePreview = z.output<typeof pipelinePreviewView>;
export type PreviewResult = z.output<typeof previewView>;
