/** A pipeline version as reads serve it. */
import type { EntityRow, VersionRow } from "../versions/mod.ts";
import { derivedParameters, parseBody } from "./body.ts";

export type PipelineView = Record<string, unknown>;

export function entityFields(e: EntityRow) {
  return {
    id: e.id,
    name: e.name,
    current_version: e.current_version,
    owner: e.owner_id,
    created_at: e.created_at,
    updated_at: e.updated_at,
  };
}

/** A version as reads serve it: the body, derived parameters listed, lifecycle fields. */
export function viewOf(entity: EntityRow, row: VersionRow, draft: unknown): PipelineView {
  const body = row.body as Record<string, unknown>;
  const parsed = parseBody(body, entity.id);
  return {
    ...entityFields(entity),
    ...body,
    parameters: { ...parsed.parameters, ...derivedParameters(parsed.nodes, parsed.parameters) },
    version: row.version,
    status: row.status,
    body_hash: row.body_hash,
    released_at: row.released_at,
    draft,
  };
}
