/**
 * A released template version arriving from another deployment (a promotion push,
 * docs/promotion.md): the version number and body hash are honoured exactly, inside the caller's
 * transaction, with the same outcomes as a pipeline import
 * (docs/decisions.md#import-keeps-versions-and-hashes):
 * - the hash is recomputed from the hashed content `{id, type, dialect, imports, body}` and must
 *   equal the payload's (`pipeline.import.hash_mismatch`);
 * - the same version already RELEASED with the same hash is a no-op;
 * - the same version with another hash, as a draft or discarded is `pipeline.import.version_conflict`;
 * - an import naming a template version absent here is `pipeline.import.missing_template`.
 *
 * Decided here: the pipeline family's import codes serve templates too (the push is one batch, one
 * vocabulary); the receiving row is RELEASED with this deployment's stamps (the actor is the
 * caller's, the system actor on a push); the pointer moves when the version is newer than the
 * current one (or there is none), and display_name/description then move with it.
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { bodyHash, canonicalJson } from "../lib/canonical_json.ts";
import { newId } from "../lib/ids.ts";
import { nowIso } from "../lib/time.ts";
import type { Queryable } from "../store/mod.ts";
import { insertVersion, type OpContext, TEMPLATE_KIND } from "../versions/mod.ts";
import { checkBody, checkDialect, checkId, contentOf } from "./content.ts";
import { recordPins, resolvePins } from "./pins.ts";
import type { ImportRef } from "./render.ts";
import { TEMPLATE_TYPES, type TemplateType } from "./types.ts";

/** One template of a push: the portable content plus its number and hash. */
export interface TemplateVersionPayload {
  id: string;
  type?: string;
  dialect?: string | null;
  display_name?: string | null;
  description?: string | null;
  imports?: ImportRef[];
  body: string;
  version: number;
  body_hash: string;
}

const invalid = (field: string, reason: string) =>
  new AppError("pipeline.execution.invalid_parameter_type", { field, reason });

/** The hashed content and hash of a payload; throws on a malformed entry or a wrong hash. */
export function verifyTemplateVersion(p: TemplateVersionPayload) {
  if (typeof p?.id !== "string") throw invalid("templates.id", "a string is required");
  const name = checkId(p.id);
  const type = (p.type ?? "sql") as TemplateType;
  if (!TEMPLATE_TYPES.includes(type)) throw invalid("templates.type", "sql or html");
  if (typeof p.body !== "string") throw invalid("templates.body", "a string is required");
  if (!Number.isSafeInteger(p.version) || p.version < 1) {
    throw invalid("templates.version", "must be a positive integer");
  }
  const imports = Array.isArray(p.imports) ? p.imports : [];
  const dialect = checkDialect(type, p.dialect, null);
  const content = contentOf(name, type, dialect, imports, p.body);
  const computed = bodyHash(content);
  if (computed !== p.body_hash) {
    throw new AppError("pipeline.import.hash_mismatch", {
      body_hash: String(p.body_hash),
      computed_hash: computed,
    });
  }
  return { name, type, dialect, imports, content, computed };
}

/** Applies one verified template version in `tx`; `created` is false for the no-op. */
export async function importTemplateVersion(
  tx: Queryable,
  ctx: OpContext,
  p: TemplateVersionPayload,
): Promise<{ created: boolean; name: string; version: number }> {
  const { name, type, dialect, imports, content, computed } = verifyTemplateVersion(p);
  const entity = await tx.first<
    { id: string; current_version: number | null; type: string; dialect: string | null }
  >(
    "SELECT id, current_version, type, dialect FROM templates WHERE workspace_id = $1 AND name = $2",
    [ctx.workspaceId, name],
  );
  if (entity) {
    const at = await tx.first<{ status: string; body_hash: string }>(
      "SELECT status, body_hash FROM template_versions WHERE template_id = $1 AND version = $2",
      [entity.id, p.version],
    );
    if (at?.status === "RELEASED" && at.body_hash === computed) {
      return { created: false, name, version: p.version };
    }
    // A template keeps its type and dialect: another one here is a conflict, not a new version.
    if (at || entity.type !== type || (entity.dialect ?? undefined) !== dialect) {
      throw new AppError("pipeline.import.version_conflict", {
        name,
        version: p.version,
        status: at?.status ?? `a ${entity.type} ${entity.dialect ?? ""} template`.trim(),
        body_hash: at?.body_hash ?? null,
      });
    }
  }
  const { resolved, missing } = await resolvePins(tx, ctx.workspaceId, imports);
  if (missing.length > 0) {
    throw new AppError("pipeline.import.missing_template", {
      template_id: missing[0].id,
      template_version: missing[0].version,
      node_id: `template:${name}`,
    });
  }
  await checkBody(name, type, imports, p.body);
  const now = nowIso();
  const actor = ctx.actor.userId;
  const displayName = p.display_name || name.split("/").at(-1)!;
  const id = entity?.id ?? newId();
  if (!entity) {
    await tx.execute(
      `INSERT INTO templates (id, workspace_id, name, type, dialect, display_name, description,
         current_version, owner_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8, $9, $9)`,
      [
        id,
        ctx.workspaceId,
        name,
        type,
        dialect ?? null,
        displayName,
        p.description ?? null,
        actor,
        now,
      ],
    );
  }
  await insertVersion(tx, TEMPLATE_KIND, id, "RELEASED", {
    version: p.version,
    canonical: canonicalJson(content),
    body_hash: computed,
    actor,
    now,
  });
  await recordPins(tx, { kind: "template", id, version: p.version }, resolved);
  const current = entity?.current_version ?? null;
  if (current === null || p.version > current) {
    await tx.execute(
      `UPDATE templates SET current_version = $2, display_name = $3, description = $4,
         updated_at = $5 WHERE id = $1`,
      [id, p.version, displayName, p.description ?? null, now],
    );
  }
  await recordAudit(tx, {
    event: "template.version.imported",
    userId: actor,
    provider: ctx.actor.provider,
    workspaceId: ctx.workspaceId,
    details: { template_id: name, version: p.version, body_hash: computed },
  });
  return { created: true, name, version: p.version };
}
