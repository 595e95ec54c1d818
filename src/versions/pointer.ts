/**
 * The transitions that move released versions and the default pointer (docs/authoring.md#versions):
 * discard, restore and switch current. Same discipline as lifecycle.ts: entity row lock first, the
 * row of the transition table decides, the UPDATE re-states the status it expects.
 */
import { nowIso } from "../lib/time.ts";
import type { Queryable } from "../store/mod.ts";
import { audit, type Engine, ensureAdmitted, loadVersion, recomputePointer } from "./engine.ts";
import { kindError } from "./kind_error.ts";
import { openVersion } from "./opening.ts";
import * as repo from "./repo.ts";
import type { TransitionRule } from "./transitions.ts";
import type { EntityRow, OpContext, Pinner, TransitionResult, VersionMeta } from "./types.ts";

/** The version after a status change, stamps included. */
function moved(meta: VersionMeta, patch: Partial<VersionMeta>): VersionMeta {
  return { ...meta, ...patch };
}

/** One of the moves: version `version` of the entity `id`, in the caller's transaction. */
type Move = (
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: string,
  version: number,
) => Promise<TransitionResult>;

/** Sets the entity's pointer to `pointer` and writes the audit row with `details`. */
async function repoint(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  row: TransitionRule,
  entity: EntityRow,
  pointer: number | null,
  now: string,
  details: Record<string, unknown>,
): Promise<EntityRow> {
  await repo.updateEntity(tx, e.kind, entity.id, { current_version: pointer, updated_at: now });
  const after: EntityRow = { ...entity, current_version: pointer, updated_at: now };
  await audit(tx, e, row, ctx, after, details);
  return after;
}

/**
 * RELEASED → DISCARDED, refused while a live parent exact-pins the version (the `pinnedBy` hooks
 * answer who). When it held the pointer, the pointer goes to the highest eligible live version,
 * else null.
 */
export const discard: Move = async (tx, e, ctx, id, version) => {
  const { row, entity, metas, target } = await openVersion(tx, e, ctx, "discard", id, version);
  ensureAdmitted(e, row, entity, target);
  const body = await loadVersion(tx, e, entity, target.version);
  const pinners: Pinner[] = [];
  for (const check of e.hooks.pinnedBy) {
    pinners.push(
      ...await check(tx, { kind: e.kind.kind, actor: ctx.actor, entity, version: body }),
    );
  }
  if (pinners.length > 0) {
    throw kindError(e.kind, "pinned", e.kind.publicId(entity), {
      version: target.version,
      pinned_by: pinners,
      pinned_by_summary: pinners.map((p) => `${p.kind} ${p.name} v${p.version}`).join(", "),
    });
  }
  const now = nowIso();
  if (
    await repo.discardVersion(tx, e.kind, entity.id, target.version, ctx.actor.userId, now) !== 1
  ) {
    throw new Error(`version ${target.version} changed status under the entity lock`);
  }
  const previous = entity.current_version;
  const pointer = previous === target.version
    ? recomputePointer(metas, target.version, e.posture)
    : previous;
  const details = moveDetails(entity, pointer, target.version);
  const after = await repoint(tx, e, ctx, row, entity, pointer, now, details);
  const discarded = moved(target, {
    status: "DISCARDED",
    discarded_by: ctx.actor.userId,
    discarded_at: now,
  });
  return { entity: after, version: discarded, extras: {} };
};

/** The audit details of a discard or restore: the version moved, the pointer before and after. */
function moveDetails(entity: EntityRow, pointer: number | null, version: number) {
  return { version, previous_current: entity.current_version, current_version: pointer };
}

/**
 * DISCARDED → RELEASED with the original release stamps. The pointer moves to it only when it is
 * newer than the current version or there is none.
 */
export const restore: Move = async (tx, e, ctx, id, version) => {
  const { row, entity, target } = await openVersion(tx, e, ctx, "restore", id, version);
  ensureAdmitted(e, row, entity, target);
  if (await repo.restoreVersion(tx, e.kind, entity.id, target.version) !== 1) {
    throw new Error(`version ${target.version} changed status under the entity lock`);
  }
  const now = nowIso();
  const previous = entity.current_version;
  const pointer = previous === null || target.version > previous ? target.version : previous;
  const restored = moved(target, { status: "RELEASED", discarded_by: null, discarded_at: null });
  const details = moveDetails(entity, pointer, target.version);
  const after = await repoint(tx, e, ctx, row, entity, pointer, now, details);
  return { entity: after, version: restored, extras: {} };
};

/**
 * Points `current_version` at `version`: never a discarded one, a draft only under the
 * development posture. Switching to the version already current changes nothing and writes no
 * audit row.
 */
export const switchCurrent: Move = async (tx, e, ctx, id, version) => {
  const { row, entity, target } = await openVersion(tx, e, ctx, "switch_current", id, version);
  ensureAdmitted(e, row, entity, target, {
    reason: target.status === "DISCARDED"
      ? "a discarded version is never current; restore it first"
      : "a draft cannot be current under the hardened posture",
  });
  if (entity.current_version === target.version) return { entity, version: target, extras: {} };
  const after = await repoint(tx, e, ctx, row, entity, target.version, nowIso(), {
    from: entity.current_version,
    to: target.version,
    status: target.status,
  });
  return { entity: after, version: target, extras: {} };
};
