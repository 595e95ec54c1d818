/** The shapes of the promotion routes (spec 3 §4.4, DECISIONS.md "promotion sender"). */

/** One released row of an inventory: its latest released version and that version's hash. */
export interface InventoryRow {
  name: string;
  id: string;
  current_version: number;
  body_hash: string;
  /** Additive, pipelines only: the release's declared parameters. */
  parameters?: Record<string, unknown>;
  /** Additive, pipelines only: the columns its last run here delivered (null: never ran). */
  result_columns?: { name: string; type: string }[] | null;
}

/** `GET /promotion/inventory` data. */
export interface Inventory {
  deployment: string;
  authoring_enabled: boolean;
  workspace: string;
  pipelines: InventoryRow[];
  templates: InventoryRow[];
  datasources: string[];
  /** Additive: names of the live endpoint-kind keys pinned to the workspace. */
  endpoint_keys: string[];
  /** Additive: the workspace's endpoints, by pattern, with the pipeline each serves. */
  endpoints: { path_pattern: string; pipeline_name: string | null }[];
}

/** `POST /promotion/push` data. */
export interface PushResult {
  workspace: string;
  source_env: string;
  templates: number;
  pipelines: number;
  endpoints: number;
  applied: { templates: number; pipelines: number; endpoints: number };
}
