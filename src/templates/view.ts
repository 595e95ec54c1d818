/** A template version as reads answer it: the version's content with the entity's index fields. */
import type { EntityRow, VersionMeta, VersionRow } from "../versions/mod.ts";
import { storedContent } from "./content.ts";
import type { TemplateView } from "./types.ts";

/** `metas` are the entity's versions (for the draft pointer). */
export function viewOf(entity: EntityRow, row: VersionRow, metas: VersionMeta[]): TemplateView {
  const draft = metas.find((m) => m.status === "DRAFT");
  const content = storedContent(row);
  return {
    id: entity.name,
    type: content.type,
    ...(content.dialect ? { dialect: content.dialect } : {}),
    display_name: entity.attrs.display_name ?? entity.name,
    description: entity.attrs.description,
    imports: content.imports,
    body: content.body,
    version: row.version,
    status: row.status,
    body_hash: row.body_hash,
    created_at: row.created_at,
    created_by: row.created_by,
    updated_at: row.updated_at,
    updated_by: row.updated_by,
    released_at: row.released_at,
    released_by: row.released_by,
    current_version: entity.current_version,
    draft: draft
      ? {
        version: draft.version,
        body_hash: draft.body_hash,
        updated_by: draft.updated_by,
        updated_at: draft.updated_at,
      }
      : null,
    owner: entity.owner_id,
  };
}
