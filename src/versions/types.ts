/**
 * The version vocabulary (docs/authoring.md#versions): statuses, stored rows, hooks, descriptors.
 */
import type { Principal } from "../identity/mod.ts";
import type { JsonValue } from "../lib/canonical_json.ts";
import type { Queryable } from "../store/mod.ts";

export type { JsonValue, Principal };

export type VersionStatus = "DRAFT" | "RELEASED" | "DISCARDED";
export const VERSION_STATUSES: readonly VersionStatus[] = ["DRAFT", "RELEASED", "DISCARDED"];

/** The two kinds of versioned entity. */
export type EntityKind = "pipeline" | "template";

/**
 * `service.deployment.authoring-enabled`: true is the development posture, false the hardened
 * (production) one, where content arrives by promotion and authoring writes are refused.
 */
export type Posture = "development" | "hardened";

/** A JSON object body, as the kind's service validated it. */
export type JsonObject = { [key: string]: JsonValue };

/** Kind-specific index-row columns (`display_name`, `dialect`…); text or null. */
export type IndexAttrs = Record<string, string | null>;

/** An entity's index row: what lists and folders read; one per pipeline or template. */
export interface EntityRow {
  id: string;
  workspace_id: string;
  name: string;
  /** The default pointer: a live version (RELEASED, or a DRAFT under the development posture). */
  current_version: number | null;
  owner_id: string;
  created_at: string;
  updated_at: string;
  /** The kind's own columns, keyed by column name (see {@link KindDescriptor.attrColumns}). */
  attrs: IndexAttrs;
}

/** A version row without its body: what version listings and lifecycle decisions read. */
export interface VersionMeta {
  version: number;
  status: VersionStatus;
  body_hash: string;
  created_by: string;
  created_at: string;
  updated_by: string;
  updated_at: string;
  released_by: string | null;
  released_at: string | null;
  discarded_by: string | null;
  discarded_at: string | null;
}

/** A version row with its body; `canonical` is the exact stored text the hash covers. */
export interface VersionRow extends VersionMeta {
  body: JsonObject;
  canonical: string;
}

/** The `draft` pointer of a read. */
export interface DraftPointer {
  version: number;
  body_hash: string;
  updated_by: string;
  updated_at: string;
}

/** An entity as a read serves it: the working version is the draft, else the current release. */
export interface EntityView {
  entity: EntityRow;
  /** Null when no version is live (every release discarded). */
  working: VersionRow | null;
  draft: DraftPointer | null;
}

/** What a save (create or update) left behind. */
export interface SaveResult {
  entity: EntityRow;
  /** The draft written, or (for the identical-body no-op) the release it matched. */
  version: VersionRow;
  /** True when nothing was written to a version row (identical body). */
  unchanged: boolean;
}

/** What a lifecycle write returns: the entity after it, and the version it acted on. */
export interface TransitionResult {
  entity: EntityRow;
  version: VersionMeta;
  /** Values hooks returned, merged (also written into the audit row's details). */
  extras: Record<string, unknown>;
}

/** What a purge (draft discard, purge by version, entity delete) returns. */
export interface PurgeResult {
  /** The entity as it stands after the purge; null when the purge took the entity with it. */
  entity: EntityRow | null;
  version: number;
  entity_purged: boolean;
  extras: Record<string, unknown>;
}

/** Who acts and where; `tx` joins an outer transaction (a cascaded release, say). */
export interface OpContext {
  actor: Principal;
  workspaceId: string;
  tx?: Queryable;
}

/** Where a hook is called. */
export interface HookContext {
  kind: EntityKind;
  actor: Principal;
  entity: EntityRow;
  version: VersionRow;
  /** Purges only: the purge removes the entity too (it held no other version). */
  takes_entity?: boolean;
}

/**
 * A hook runs inside the transition's transaction, before anything is written. It refuses by
 * throwing an AppError (everything rolls back); what it returns is merged into the audit details
 * and the result's `extras` (e.g. `templates_released` of a cascading pipeline release).
 */
export type LifecycleHook = (
  tx: Queryable,
  ctx: HookContext,
) => Promise<Record<string, unknown> | void>;

/** One live parent that exact-pins a version, which may not be discarded then. */
export interface Pinner {
  kind: EntityKind;
  id: string;
  name: string;
  version: number;
  status?: VersionStatus;
}

/** Answers who pins `ctx.version`; a non-empty answer refuses the discard. */
export type PinCheck = (tx: Queryable, ctx: HookContext) => Promise<Pinner[]>;

/** The hook points of a lifecycle; each is a list run in order. */
export interface LifecycleHooks {
  /** Release: re-validation, pinned-template checks or cascade, release checks. */
  beforeRelease: LifecycleHook[];
  /** Discard: live parents exact-pinning the version. */
  pinnedBy: PinCheck[];
  /** Purges (draft discard, purge by version, entity delete): dependants to remove or refuse. */
  beforePurge: LifecycleHook[];
}

/**
 * The refusal codes a kind answers, per refusal: each slot lists what either kind may answer, so
 * the details a refusal is raised with are checked against both kinds' messages (kind_error.ts).
 */
export interface KindCodes {
  not_found: "pipeline.not_found" | "template.not_found";
  version_not_found: "pipeline.execution.not_found" | "template.not_found";
  conflict: "pipeline.version.conflict" | "template.version.conflict";
  not_draft: "pipeline.version.not_draft" | "template.version.not_draft";
  not_released: "pipeline.version.not_released" | "template.version.not_released";
  not_discarded: "pipeline.version.not_discarded" | "template.version.not_discarded";
  not_eligible: "pipeline.version.not_eligible" | "template.version.not_eligible";
  pinned: "pipeline.version.pinned" | "template.in_use";
  last_release: "pipeline.version.last_release" | "template.version.last_release";
  duplicate_name: "pipeline.validation.duplicate_name" | "template.validation.duplicate_name";
}

/**
 * Everything the one state machine needs to know about a kind: where it is stored, which index
 * columns are its own, what a release copies from the body onto the index row, and its codes and
 * audit event prefix. Table and column names are constants of this module, never input.
 */
export interface KindDescriptor {
  kind: EntityKind;
  entityTable: string;
  versionTable: string;
  /** The version table's column naming the entity (`pipeline_id`). */
  fk: string;
  /** Kind-specific index columns, besides id, workspace, name, pointer, owner and stamps. */
  attrColumns: readonly string[];
  /** The id callers know the entity by, in details and audit rows: a pipeline's uuid, a template's name. */
  publicId(entity: EntityRow): string;
  /** Index-row values (name and attrs) a release adopts from the released body. */
  adoptOnRelease(body: JsonObject): { name?: string; attrs?: IndexAttrs };
  codes: KindCodes;
}
