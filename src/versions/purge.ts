/**
 * The purges (docs/authoring.md#versions): the draft discard route (If-Match guarded), purge by
 * version (drafts only) and the entity delete (only while its sole version is a draft). A purged
 * number returns to the pool; a sole version takes the entity with it; a pointer that held the
 * purged draft is recomputed before the row goes (it references the row).
 */
import type { Queryable } from "../store/mod.ts";
import { nowIso } from "../lib/time.ts";
import {
  audit,
  type Engine,
  ensureAdmitted,
  loadVersion,
  recomputePointer,
  runHooks,
} from "./engine.ts";
import { staleIfMatch } from "./precondition.ts";
import { openDraft, openEntity, openVersion } from "./opening.ts";
import * as repo from "./repo.ts";
import { rule, type RuleId } from "./transitions.ts";
import type { EntityRow, LifecycleHook, OpContext, PurgeResult, VersionMeta } from "./types.ts";

/** Per-call extras of a purge or entity delete. */
export interface PurgeOptions {
  beforePurge?: LifecycleHook[];
  auditDetails?: Record<string, unknown>;
}

/** The draft discard route: If-Match is the draft's hash. */
export async function purgeDraft(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: string,
  ifMatch: string | null | undefined,
  options: PurgeOptions = {},
): Promise<PurgeResult> {
  const opened = await openDraft(tx, e, ctx, "purge_draft", id, ifMatch, "purge");
  const { entity, metas, draft, expected } = opened;
  return await purge(tx, e, ctx, "purge_draft", entity, metas, draft, expected, options);
}

/** `DELETE …/versions/{v}`: only a draft; a released or discarded one is `last_release`. */
export async function purgeVersion(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: string,
  version: number,
  options: PurgeOptions = {},
): Promise<PurgeResult> {
  const opened = await openVersion(tx, e, ctx, "purge_version", id, version);
  const { row, entity, metas, target } = opened;
  ensureAdmitted(e, row, entity, target);
  return await purge(tx, e, ctx, "purge_version", entity, metas, target, null, options);
}

/**
 * Deletes a draft row. Its number returns to the pool (the next draft is max+1 of what is left);
 * a sole version takes the entity with it; a pointer that held the draft is recomputed first.
 */
async function purge(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: RuleId,
  entity: EntityRow,
  metas: VersionMeta[],
  draft: VersionMeta,
  expected: string | null,
  options: PurgeOptions,
): Promise<PurgeResult> {
  const row = rule(id);
  const takes = metas.length === 1;
  const version = await loadVersion(tx, e, entity, draft.version);
  const extras = await runHooks(
    tx,
    [...e.hooks.beforePurge, ...(options.beforePurge ?? [])],
    { kind: e.kind.kind, actor: ctx.actor, entity, version, takes_entity: takes },
  );
  const now = nowIso();
  let pointer = entity.current_version;
  if (pointer === draft.version) {
    pointer = recomputePointer(metas, draft.version, e.posture);
    await repo.updateEntity(tx, e.kind, entity.id, { current_version: pointer, updated_at: now });
  }
  if (await repo.deleteDraft(tx, e.kind, entity.id, draft.version, expected) !== 1) {
    throw staleIfMatch(e.kind, entity, expected ?? "", draft);
  }
  if (takes) await repo.deleteEntity(tx, e.kind, entity.id);
  else await repo.updateEntity(tx, e.kind, entity.id, { updated_at: now });
  await audit(tx, e, row, ctx, entity, {
    version: draft.version,
    body_hash: draft.body_hash,
    entity_purged: takes,
    ...(pointer !== entity.current_version ? { current_version: pointer } : {}),
    ...options.auditDetails,
    ...extras,
  });
  return {
    entity: takes ? null : { ...entity, current_version: pointer, updated_at: now },
    version: draft.version,
    entity_purged: takes,
    extras,
  };
}

/** Entity purge: only when its only version is a draft. */
export async function deleteEntity(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: string,
  options: PurgeOptions = {},
): Promise<PurgeResult> {
  const { row, entity, metas } = await openEntity(tx, e, ctx, "delete", id);
  const kept = metas.filter((m) => m.status !== "DRAFT");
  if (metas.length !== 1 || kept.length > 0) {
    const blocking = kept.at(-1)!;
    ensureAdmitted(e, row, entity, blocking, { versions: metas.length });
  }
  const sole = metas[0];
  const version = await loadVersion(tx, e, entity, sole.version);
  const extras = await runHooks(
    tx,
    [...e.hooks.beforePurge, ...(options.beforePurge ?? [])],
    { kind: e.kind.kind, actor: ctx.actor, entity, version, takes_entity: true },
  );
  await repo.deleteEntity(tx, e.kind, entity.id);
  await audit(tx, e, row, ctx, entity, {
    version: sole.version,
    body_hash: sole.body_hash,
    ...options.auditDetails,
    ...extras,
  });
  return { entity: null, version: sole.version, entity_purged: true, extras };
}
