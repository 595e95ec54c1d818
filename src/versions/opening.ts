/**
 * How a transition opens, in the order every one keeps: the row of the transition table and its
 * posture gate, the If-Match precondition where the route has one, the entity row lock, its
 * versions, then the version the transition acts on (or the kind's 404/409).
 */
import type { Queryable } from "../store/mod.ts";
import { type Engine, guardPosture, lockEntity, noDraft, requireVersion } from "./engine.ts";
import { requireIfMatch, staleIfMatch } from "./precondition.ts";
import * as repo from "./repo.ts";
import { type Rule, rule, type RuleId } from "./transitions.ts";
import type { EntityRow, OpContext, VersionMeta } from "./types.ts";

export interface Opened<I extends RuleId> {
  row: Rule<I>;
  entity: EntityRow;
  metas: VersionMeta[];
}

async function lockWithVersions(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  entityId: string,
): Promise<{ entity: EntityRow; metas: VersionMeta[] }> {
  const entity = await lockEntity(tx, e, ctx, entityId);
  return { entity, metas: await repo.listMeta(tx, e.kind, entity.id) };
}

/** The rule `id` (posture-guarded), then the entity locked and its versions. */
export async function openEntity<I extends RuleId>(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: I,
  entityId: string,
): Promise<Opened<I>> {
  const row = rule(id);
  guardPosture(e, row);
  return { row, ...await lockWithVersions(tx, e, ctx, entityId) };
}

/** `openEntity`, then the version numbered `version` (the kind's not_found when absent). */
export async function openVersion<I extends RuleId>(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: I,
  entityId: string,
  version: number,
): Promise<Opened<I> & { target: VersionMeta }> {
  const opened = await openEntity(tx, e, ctx, id, entityId);
  return { ...opened, target: requireVersion(e, opened.entity, opened.metas, version) };
}

/**
 * `openEntity` behind an If-Match precondition, then the draft it must name: `noDraft` when there
 * is none, `staleIfMatch` when the header names another body.
 */
export async function openDraft<I extends RuleId>(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: I,
  entityId: string,
  ifMatch: string | null | undefined,
  verb: string,
): Promise<Opened<I> & { draft: VersionMeta; expected: string }> {
  const row = rule(id);
  guardPosture(e, row);
  const expected = requireIfMatch(ifMatch);
  const { entity, metas } = await lockWithVersions(tx, e, ctx, entityId);
  const draft = metas.find((m) => m.status === "DRAFT");
  if (!draft) throw noDraft(e, entity, metas, verb);
  if (draft.body_hash !== expected) throw staleIfMatch(e.kind, entity, expected, draft);
  return { row, entity, metas, draft, expected };
}
