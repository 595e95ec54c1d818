/**
 * Recording and retiring facts (the tool endpoint `semantics_record` / `semantics_retire` wires
 * these later). Rules: workspace rules (definition, exclusion, preference) land `asserted` and in
 * WORKSPACE scope; datasource-wide kinds (window, sampling) in DATASOURCE scope; a DATASOURCE fact
 * needs the datasource visible to the recording workspace (else `datasource.not_found`); retiring
 * a DATASOURCE fact another workspace established needs the workspace-admin role.
 */
import { AppError } from "../../errors/mod.ts";
import { isUuid, newId } from "../../lib/ids.ts";
import { nowIso } from "../../lib/time.ts";
import type { Queryable } from "../../store/mod.ts";
import { columnFingerprint } from "./fingerprint.ts";
import { findLiveFact, insertFact, retire } from "./repo.ts";
import {
  DATASOURCE_WIDE_KINDS,
  FACT_SCOPES,
  type FactActor,
  type FactDatasource,
  type FactRecord,
  type FactScope,
  type FactTrust,
  type FingerprintColumn,
  WORKSPACE_RULE_KINDS,
} from "./types.ts";

const KIND_RE = /^[a-z][a-z0-9_]{0,63}$/;
const FACT_MAX = 4000;
const EVIDENCE_MAX = 2000;
const REF_MAX = 256;
/** The trust levels a fact can be recorded with; the demotions come only from drift. */
const RECORDABLE_TRUST: FactTrust[] = ["asserted", "observed", "verified"];

/** What `recordFact` reads. `columns` are the referenced table's current columns, if known. */
export interface RecordFactInput {
  scope?: unknown;
  kind?: unknown;
  fact?: unknown;
  trust?: unknown;
  evidence_summary?: unknown;
  recorded_via?: unknown;
  source_pipeline?: unknown;
  schema?: unknown;
  table?: unknown;
  column?: unknown;
  columns?: FingerprintColumn[];
}

function invalid(field: string, reason: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", { field, reason });
}

function text(value: unknown, field: string, max: number, required: boolean): string | null {
  if (value === undefined || value === null || value === "") {
    if (required) throw invalid(field, "is required");
    return null;
  }
  if (typeof value !== "string" || value.trim() === "" || value.length > max) {
    throw invalid(field, `must be a non-blank string of at most ${max} characters`);
  }
  return value;
}

function sourcePipeline(value: unknown): { id: string; name: string } | null {
  if (value === undefined || value === null) return null;
  const v = value as { id?: unknown; name?: unknown };
  if (typeof v !== "object" || typeof v.id !== "string" || typeof v.name !== "string") {
    throw invalid("source_pipeline", "must be {id, name}");
  }
  return { id: v.id, name: v.name };
}

/**
 * Records a fact on `datasource` for the actor's workspace. `visibleDatasourceIds` is what the
 * registry says the workspace can see.
 */
export async function recordFact(
  db: Queryable,
  actor: FactActor,
  datasource: FactDatasource,
  visibleDatasourceIds: Iterable<string>,
  input: RecordFactInput,
): Promise<FactRecord> {
  if (!new Set(visibleDatasourceIds).has(datasource.id)) {
    throw new AppError("datasource.not_found", { datasource: datasource.name });
  }
  const kind = text(input.kind, "kind", 64, true)!;
  if (!KIND_RE.test(kind)) throw invalid("kind", "must match [a-z][a-z0-9_]{0,63}");
  const rule = (WORKSPACE_RULE_KINDS as readonly string[]).includes(kind);
  const wide = (DATASOURCE_WIDE_KINDS as readonly string[]).includes(kind);
  const scope = input.scope ?? (rule ? "WORKSPACE" : "DATASOURCE");
  if (!(FACT_SCOPES as readonly unknown[]).includes(scope)) {
    throw invalid("scope", "must be DATASOURCE or WORKSPACE");
  }
  if (rule && scope !== "WORKSPACE") throw invalid("scope", `a ${kind} is a WORKSPACE rule`);
  if (wide && scope !== "DATASOURCE") throw invalid("scope", `a ${kind} is DATASOURCE-wide`);
  const trust = rule ? "asserted" : input.trust ?? "asserted";
  if (!(RECORDABLE_TRUST as unknown[]).includes(trust)) {
    throw invalid("trust", "must be asserted, observed or verified");
  }
  const schema = text(input.schema, "schema", REF_MAX, false);
  const table = text(input.table, "table", REF_MAX, false);
  const column = text(input.column, "column", REF_MAX, false);
  if (column && !table) throw invalid("column", "a column reference needs its table");
  if (schema && !table) throw invalid("schema", "a schema reference needs its table");
  if (wide && table) throw invalid("table", `a ${kind} fact is datasource-wide`);
  if (input.columns && !table) throw invalid("columns", "columns fingerprint a referenced table");

  const record: FactRecord = {
    id: newId(),
    scope: scope as FactScope,
    kind,
    fact: text(input.fact, "fact", FACT_MAX, true)!,
    trust: trust as FactTrust,
    drift: null,
    evidence_summary: text(input.evidence_summary, "evidence_summary", EVIDENCE_MAX, false),
    recorded_via: text(input.recorded_via, "recorded_via", 64, true)!,
    recorded_at: nowIso(),
    recorded_by: actor.userId,
    workspace_id: actor.workspaceId,
    source_pipeline: sourcePipeline(input.source_pipeline),
    datasource_id: datasource.id,
    datasource_name: datasource.name,
    schema,
    table,
    column,
    column_fingerprint: input.columns && table ? columnFingerprint(input.columns) : null,
    retired_at: null,
  };
  await insertFact(db, record);
  return record;
}

/**
 * Retires a fact the workspace can see (never served again; the row stays as history). Unknown,
 * already retired or invisible: 404 `datasource.fact_not_found`.
 */
export async function retireFact(
  db: Queryable,
  actor: FactActor,
  visibleDatasourceIds: Iterable<string>,
  factId: string,
): Promise<void> {
  const fact = isUuid(factId) ? await findLiveFact(db, factId) : undefined;
  const visible = fact && new Set(visibleDatasourceIds).has(fact.datasource_id) &&
    (fact.scope === "DATASOURCE" || fact.workspace_id === actor.workspaceId);
  if (!fact || !visible) throw new AppError("datasource.fact_not_found", { fact_id: factId });
  if (fact.workspace_id !== actor.workspaceId && !actor.isWorkspaceAdmin) {
    throw new AppError("auth.role_required", { required: "ws_admin", held: actor.held ?? [] });
  }
  const changed = await retire(db, fact.id, actor.userId, nowIso());
  if (changed === 0) throw new AppError("datasource.fact_not_found", { fact_id: factId });
}
