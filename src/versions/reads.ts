/** Reads of versioned entities: the working version, one version, the version list. */
import { isUuid } from "../lib/ids.ts";
import type { Queryable } from "../store/mod.ts";
import { type Engine, requireVersion } from "./engine.ts";
import { kindError } from "./kind_error.ts";
import * as repo from "./repo.ts";
import type { EntityRow, EntityView, VersionMeta, VersionRow } from "./types.ts";

async function entityOf(
  db: Queryable,
  e: Engine,
  workspaceId: string,
  id: string,
): Promise<EntityRow> {
  const entity = isUuid(id) && isUuid(workspaceId)
    ? await repo.findEntity(db, e.kind, workspaceId, id.toLowerCase())
    : undefined;
  if (!entity) {
    throw kindError(e.kind, "not_found", String(id).slice(0, 200), {
      reason: "unknown in this workspace",
    });
  }
  return entity;
}

/**
 * The working version is the draft when one exists, else the current version; null when neither
 * exists (every release discarded), which lists show as version and status null.
 */
export async function readEntity(
  db: Queryable,
  e: Engine,
  workspaceId: string,
  id: string,
): Promise<EntityView> {
  const entity = await entityOf(db, e, workspaceId, id);
  const metas = await repo.listMeta(db, e.kind, entity.id);
  const draft = metas.find((m) => m.status === "DRAFT") ?? null;
  const workingNumber = draft?.version ?? entity.current_version;
  const working = workingNumber === null
    ? null
    : (await repo.getVersion(db, e.kind, entity.id, workingNumber)) ?? null;
  return {
    entity,
    working,
    draft: draft && {
      version: draft.version,
      body_hash: draft.body_hash,
      updated_by: draft.updated_by,
      updated_at: draft.updated_at,
    },
  };
}

export async function readVersion(
  db: Queryable,
  e: Engine,
  workspaceId: string,
  id: string,
  version: number,
): Promise<VersionRow> {
  const entity = await entityOf(db, e, workspaceId, id);
  const row = Number.isSafeInteger(version)
    ? await repo.getVersion(db, e.kind, entity.id, version)
    : undefined;
  if (!row) requireVersion(e, entity, [], version);
  return row!;
}

export async function readVersions(
  db: Queryable,
  e: Engine,
  workspaceId: string,
  id: string,
): Promise<VersionMeta[]> {
  const entity = await entityOf(db, e, workspaceId, id);
  return await repo.listMeta(db, e.kind, entity.id);
}
