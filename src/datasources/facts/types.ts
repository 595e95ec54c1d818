/**
 * Learned facts (docs/datasources.md#tool-only-reads-table-statistics-and-learned-facts): what is
 * stored, and what a reader is served.
 */

/** A fact as served: the view (views.ts). */
export type { ServedFact } from "../views.ts";

export const FACT_SCOPES = ["DATASOURCE", "WORKSPACE"] as const;
export type FactScope = (typeof FACT_SCOPES)[number];

export const FACT_TRUST = ["asserted", "observed", "verified", "needs_review", "stale"] as const;
export type FactTrust = (typeof FACT_TRUST)[number];

/** Workspace rules: always recorded `asserted`, always WORKSPACE scope. */
export const WORKSPACE_RULE_KINDS = ["definition", "exclusion", "preference"] as const;
/** Datasource-wide kinds: always DATASOURCE scope. */
export const DATASOURCE_WIDE_KINDS = ["window", "sampling"] as const;

/** What a fact is about: a datasource, optionally narrowed to a schema, table and column. */
export interface FactReferences {
  datasource_id: string;
  datasource_name: string;
  schema: string | null;
  table: string | null;
  column: string | null;
}

/** A stored fact row, decoded. */
export interface FactRecord extends FactReferences {
  id: string;
  scope: FactScope;
  kind: string;
  fact: string;
  trust: FactTrust;
  drift: string | null;
  evidence_summary: string | null;
  recorded_via: string;
  recorded_at: string;
  recorded_by: string | null;
  workspace_id: string;
  source_pipeline: { id: string; name: string } | null;
  column_fingerprint: string | null;
  retired_at: string | null;
}

/**
 * Who reads: the workspace, the datasources it can see (the registry decides: bound plus granted
 * global ones), and whether it can read a given pipeline (absent: only its own pipelines).
 */
export interface FactViewer {
  workspaceId: string;
  visibleDatasourceIds: Iterable<string>;
  canReadPipeline?: (pipelineId: string) => boolean | Promise<boolean>;
}

/** Who records or retires. `isWorkspaceAdmin` matters for retiring another workspace's fact. */
export interface FactActor {
  workspaceId: string;
  userId: string | null;
  isWorkspaceAdmin?: boolean;
  /** The roles the actor holds there, for the refusal's `details.held`. */
  held?: string[];
}

/** A column as the fingerprint reads it (the connector's `ColumnInfo` fits). */
export interface FingerprintColumn {
  name: string;
  type: string;
}

/** The datasource a fact is recorded on, as the registry hands it over. */
export interface FactDatasource {
  id: string;
  name: string;
}
