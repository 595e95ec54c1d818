/**
 * What every transition shares: the posture gate, the entity lock, lookups that answer the kind's
 * 404s, refusals built from the transition row, hooks, the pointer rule and the audit row.
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError, type ErrorDetails } from "../errors/mod.ts";
import { canonicalJson, CanonicalJsonError, hashCanonical } from "../lib/canonical_json.ts";
import { isUuid } from "../lib/ids.ts";
import type { Queryable } from "../store/mod.ts";
import { type KindDetailNames, kindError } from "./kind_error.ts";
import * as repo from "./repo.ts";
import { admits, eligibleForPointer, type TransitionRule } from "./transitions.ts";
import type {
  EntityRow,
  HookContext,
  KindDescriptor,
  LifecycleHook,
  LifecycleHooks,
  OpContext,
  Posture,
  VersionMeta,
  VersionRow,
} from "./types.ts";

/** One lifecycle's fixed parts: its kind, the deployment posture, its registered hooks. */
export interface Engine {
  kind: KindDescriptor;
  posture: Posture;
  hooks: LifecycleHooks;
}

/** The details key and value naming the entity: `{pipeline_id: uuid}`, `{template_id: name}`. */
export function idDetail(e: Engine, entity: EntityRow): Record<string, string> {
  return { [`${e.kind.kind}_id`]: e.kind.publicId(entity) };
}

/**
 * A body's canonical text and hash. A value with no JSON form is the caller's input error (the
 * services validate first, so this is a last line): 400 naming where, never a 500.
 */
export function canonicalBody(body: unknown): { canonical: string; body_hash: string } {
  try {
    const canonical = canonicalJson(body);
    return { canonical, body_hash: hashCanonical(canonical) };
  } catch (e) {
    if (!(e instanceof CanonicalJsonError)) throw e;
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: e.path === "$" ? "body" : `body${e.path.slice(1)}`,
      reason: e.message.replace(/^\S+ is /, "is "),
    });
  }
}

/** 403 `pipeline.authoring.disabled` for a row the hardened posture refuses. */
export function guardPosture(e: Engine, rule: TransitionRule): void {
  if (e.posture === "hardened" && rule.hardened === "refused") {
    throw new AppError("pipeline.authoring.disabled", {
      kind: e.kind.kind,
      operation: rule.trigger,
    });
  }
}

/** The entity, row-locked for the transaction; the kind's 404 when unknown in the workspace. */
export async function lockEntity(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: string,
): Promise<EntityRow> {
  const entity = isUuid(id) && isUuid(ctx.workspaceId)
    ? await repo.findEntity(tx, e.kind, ctx.workspaceId, id.toLowerCase(), true)
    : undefined;
  if (!entity) {
    throw kindError(e.kind, "not_found", String(id).slice(0, 200), {
      reason: "unknown in this workspace",
    });
  }
  return entity;
}

/** The version numbered `version` among `metas`; the kind's 404 otherwise. */
export function requireVersion(
  e: Engine,
  entity: EntityRow,
  metas: VersionMeta[],
  version: number,
): VersionMeta {
  const found = Number.isSafeInteger(version)
    ? metas.find((m) => m.version === version)
    : undefined;
  if (!found) {
    throw kindError(e.kind, "version_not_found", e.kind.publicId(entity), {
      version,
      reason: `no version ${version}`,
    });
  }
  return found;
}

/** Loads the body of a version known to exist. */
export async function loadVersion(
  tx: Queryable,
  e: Engine,
  entity: EntityRow,
  version: number,
): Promise<VersionRow> {
  return (await repo.getVersion(tx, e.kind, entity.id, version))!;
}

/** The details a row's refusal needs beyond the id, version, status and operation it is given. */
type RefusalExtra<R extends TransitionRule> = Exclude<
  KindDetailNames<NonNullable<R["refusal"]>>,
  "version" | "status" | "operation"
>;

/**
 * Refuses `target` unless the row admits its status under the posture; `extra` joins details and
 * must carry whatever else the row's refusal message names (`reason` for `not_eligible`).
 */
export function ensureAdmitted<R extends TransitionRule>(
  e: Engine,
  rule: R,
  entity: EntityRow,
  target: VersionMeta,
  ...[extra]: [RefusalExtra<R>] extends [never] ? [extra?: ErrorDetails]
    : [extra: { readonly [K in RefusalExtra<R>]: NonNullable<unknown> } & ErrorDetails]
): void {
  if (admits(rule, target.status, e.posture) || !rule.refusal) return;
  const details = {
    version: target.version,
    status: target.status,
    operation: rule.trigger,
    ...extra,
  };
  // The signature checked `extra` against this row's refusal; the row is generic here.
  throw kindError(e.kind, rule.refusal, e.kind.publicId(entity), details as never);
}

/** Runs hooks in order inside `tx`; their answers merged. */
export async function runHooks(
  tx: Queryable,
  hooks: readonly LifecycleHook[],
  ctx: HookContext,
): Promise<Record<string, unknown>> {
  const extras: Record<string, unknown> = {};
  for (const hook of hooks) Object.assign(extras, (await hook(tx, ctx)) ?? {});
  return extras;
}

/**
 * The pointer after `leaving` stops being eligible: the highest eligible live version other than
 * it, else null (docs/decisions.md#the-current-version-never-dangles; also used when the draft the
 * pointer held is purged).
 */
export function recomputePointer(
  metas: VersionMeta[],
  leaving: number,
  posture: Posture,
): number | null {
  let best: number | null = null;
  for (const m of metas) {
    if (m.version === leaving || !eligibleForPointer(m.status, posture)) continue;
    if (best === null || m.version > best) best = m.version;
  }
  return best;
}

/** Writes `${kind}.${rule.audit}` about `entity` in the transition's transaction. */
export async function audit(
  tx: Queryable,
  e: Engine,
  rule: TransitionRule,
  ctx: OpContext,
  entity: EntityRow,
  details: Record<string, unknown>,
): Promise<void> {
  if (!rule.audit) return;
  await recordAudit(tx, {
    event: `${e.kind.kind}.${rule.audit}`,
    userId: ctx.actor.userId,
    provider: ctx.actor.provider,
    workspaceId: entity.workspace_id,
    details: { ...idDetail(e, entity), name: entity.name, ...details },
  });
}

/** `*.version.not_draft`: there is no draft to act on. */
export function noDraft(
  e: Engine,
  entity: EntityRow,
  metas: VersionMeta[],
  operation: string,
): AppError {
  const working = metas.find((m) => m.version === entity.current_version);
  return kindError(e.kind, "not_draft", e.kind.publicId(entity), {
    operation,
    current_version: entity.current_version,
    status: working?.status ?? null,
  });
}
