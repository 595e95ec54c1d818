/**
 * The authoring transitions (docs/authoring.md#versions): create, update (first write, later
 * writes, the identical-body no-op) and release. Each runs in the caller's transaction, takes the
 * entity's row lock first (writers of one entity queue there on PostgreSQL; SQLite transactions are
 * serialised already), decides from the transition table, and re-checks the expected hash in the
 * conditional UPDATE itself. Purges are in purge.ts, the pointer moves in pointer.ts.
 */
import { AppError } from "../errors/mod.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { nowIso } from "../lib/time.ts";
import { isUniqueViolation, type Queryable } from "../store/mod.ts";
import {
  audit,
  canonicalBody,
  type Engine,
  guardPosture,
  loadVersion,
  lockEntity,
  runHooks,
} from "./engine.ts";
import { requireIfMatch, staleIfMatch } from "./precondition.ts";
import { kindError } from "./kind_error.ts";
import { openDraft } from "./opening.ts";
import * as repo from "./repo.ts";
import { rule } from "./transitions.ts";
import type {
  EntityRow,
  IndexAttrs,
  JsonObject,
  LifecycleHook,
  OpContext,
  SaveResult,
  TransitionResult,
  VersionMeta,
  VersionRow,
} from "./types.ts";

/** What `create` stores: the index row's name and own columns, and the first body. */
export interface CreateInput {
  /** A caller-chosen UUID (import keeps ids); minted when absent. */
  id?: string;
  name: string;
  body: JsonObject;
  attrs?: IndexAttrs;
}

/** What `update` stores: the full body, and index columns that move at save time (templates). */
export interface UpdateInput {
  body: JsonObject;
  attrs?: IndexAttrs;
}

/** Per-call extras of a release: hooks after the registered ones, audit details. */
export interface ReleaseOptions {
  beforeRelease?: LifecycleHook[];
  auditDetails?: Record<string, unknown>;
}

function checkAttrs(e: Engine, attrs: IndexAttrs | undefined): IndexAttrs {
  for (const column of Object.keys(attrs ?? {})) {
    if (!e.kind.attrColumns.includes(column)) {
      throw new Error(`${e.kind.kind} has no index column ${column}`);
    }
  }
  return attrs ?? {};
}

function duplicateName(e: Engine, name: string): AppError {
  return kindError(e.kind, "duplicate_name", null, { name });
}

/** DRAFT version 1 with a null pointer. */
export async function create(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  input: CreateInput,
): Promise<SaveResult> {
  const row = rule("create");
  guardPosture(e, row);
  const attrs = checkAttrs(e, input.attrs);
  const { canonical, body_hash } = canonicalBody(input.body);
  if (input.id !== undefined && !isUuid(input.id)) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "id",
      reason: "must be a UUID",
    });
  }
  const now = nowIso();
  const entity: EntityRow = {
    id: (input.id ?? newId()).toLowerCase(),
    workspace_id: ctx.workspaceId,
    name: input.name,
    current_version: null,
    owner_id: ctx.actor.userId,
    created_at: now,
    updated_at: now,
    attrs: Object.fromEntries(e.kind.attrColumns.map((c) => [c, attrs[c] ?? null])),
  };
  if (await repo.findEntityByName(tx, e.kind, ctx.workspaceId, input.name)) {
    throw duplicateName(e, input.name);
  }
  try {
    await repo.insertEntity(tx, e.kind, entity);
    await repo.insertVersion(tx, e.kind, entity.id, "DRAFT", {
      version: 1,
      canonical,
      body_hash,
      actor: ctx.actor.userId,
      now,
    });
  } catch (error) {
    // Two creators racing for one name: the loser's insert hits the unique index.
    if (isUniqueViolation(error)) throw duplicateName(e, input.name);
    throw error;
  }
  await audit(tx, e, row, ctx, entity, { version: 1, body_hash });
  return { entity, version: draftRow(1, canonical, body_hash, ctx, now), unchanged: false };
}

function draftRow(
  version: number,
  canonical: string,
  body_hash: string,
  ctx: OpContext,
  now: string,
): VersionRow {
  return {
    version,
    status: "DRAFT",
    body_hash,
    created_by: ctx.actor.userId,
    created_at: now,
    updated_by: ctx.actor.userId,
    updated_at: now,
    released_by: null,
    released_at: null,
    discarded_by: null,
    discarded_at: null,
    canonical,
    body: JSON.parse(canonical),
  };
}

/** The version a write must be based on: the draft, else the current release. */
function baseOf(entity: EntityRow, metas: VersionMeta[]): VersionMeta | null {
  return metas.find((m) => m.status === "DRAFT") ??
    metas.find((m) => m.version === entity.current_version && m.status === "RELEASED") ?? null;
}

/**
 * A save. With a draft: it is overwritten. Without: a body identical to the current release changes
 * nothing (no draft, no number; the release is reported), any other body becomes DRAFT max+1. Index
 * attrs (a template's display_name) move in every case.
 */
export async function update(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: string,
  ifMatch: string | null | undefined,
  input: UpdateInput,
): Promise<SaveResult> {
  guardPosture(e, rule("update.first_write"));
  const expected = requireIfMatch(ifMatch);
  const attrs = checkAttrs(e, input.attrs);
  const { canonical, body_hash } = canonicalBody(input.body);
  const entity = await lockEntity(tx, e, ctx, id);
  const metas = await repo.listMeta(tx, e.kind, entity.id);
  const base = baseOf(entity, metas);
  if (!base || base.body_hash !== expected) throw staleIfMatch(e.kind, entity, expected, base);
  const now = nowIso();
  let version: VersionRow;
  let unchanged = false;
  if (base.status === "DRAFT") {
    if (body_hash === base.body_hash) {
      unchanged = true;
      version = { ...base, canonical, body: JSON.parse(canonical) };
    } else {
      const n = await repo.overwriteDraft(tx, e.kind, entity.id, expected, {
        canonical,
        body_hash,
        actor: ctx.actor.userId,
        now,
      });
      if (n !== 1) throw staleIfMatch(e.kind, entity, expected, baseOf(entity, await reread()));
      version = { ...base, body_hash, canonical, body: JSON.parse(canonical) };
      version.updated_by = ctx.actor.userId;
      version.updated_at = now;
    }
  } else if (body_hash === base.body_hash) {
    unchanged = true;
    version = { ...base, canonical, body: JSON.parse(canonical) };
  } else {
    const next = Math.max(...metas.map((m) => m.version)) + 1;
    await repo.insertVersion(tx, e.kind, entity.id, "DRAFT", {
      version: next,
      canonical,
      body_hash,
      actor: ctx.actor.userId,
      now,
    });
    version = draftRow(next, canonical, body_hash, ctx, now);
  }
  const attrsChange = Object.keys(attrs).some((c) => attrs[c] !== entity.attrs[c]);
  if (!unchanged || attrsChange) {
    await repo.updateEntity(tx, e.kind, entity.id, { attrs, updated_at: now });
    Object.assign(entity.attrs, attrs);
    entity.updated_at = now;
  }
  return { entity, version, unchanged };

  function reread() {
    return repo.listMeta(tx, e.kind, entity.id);
  }
}

/**
 * DRAFT → RELEASED: hash guard, then the registered and per-call `beforeRelease` hooks
 * (re-validation, pinned templates, checks), then the pointer moves to the release and the index
 * row adopts the body's name, display_name and description.
 */
export async function release(
  tx: Queryable,
  e: Engine,
  ctx: OpContext,
  id: string,
  ifMatch: string | null | undefined,
  options: ReleaseOptions = {},
): Promise<TransitionResult> {
  const opened = await openDraft(tx, e, ctx, "release", id, ifMatch, "release");
  const { row, entity, draft, expected } = opened;
  const version = await loadVersion(tx, e, entity, draft.version);
  const extras = await runHooks(
    tx,
    [...e.hooks.beforeRelease, ...(options.beforeRelease ?? [])],
    { kind: e.kind.kind, actor: ctx.actor, entity, version },
  );
  const now = nowIso();
  if (await repo.releaseDraft(tx, e.kind, entity.id, expected, ctx.actor.userId, now) !== 1) {
    throw staleIfMatch(
      e.kind,
      entity,
      expected,
      baseOf(entity, await repo.listMeta(tx, e.kind, entity.id)),
    );
  }
  const adopt = e.kind.adoptOnRelease(version.body);
  try {
    await repo.updateEntity(tx, e.kind, entity.id, {
      name: adopt.name,
      attrs: adopt.attrs,
      current_version: draft.version,
      updated_at: now,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(e, adopt.name ?? entity.name);
    throw error;
  }
  const previous = entity.current_version;
  const after: EntityRow = {
    ...entity,
    name: adopt.name ?? entity.name,
    attrs: { ...entity.attrs, ...adopt.attrs },
    current_version: draft.version,
    updated_at: now,
  };
  await audit(tx, e, row, ctx, after, {
    version: draft.version,
    body_hash: draft.body_hash,
    previous_current: previous,
    ...options.auditDetails,
    ...extras,
  });
  return {
    entity: after,
    version: { ...draft, status: "RELEASED", released_by: ctx.actor.userId, released_at: now },
    extras,
  };
}
