/**
 * Import and export of pipelines (docs/decisions.md#import-keeps-versions-and-hashes). Export
 * carries released content only: the current release's body with its number and hash, and the
 * template versions its nodes pin. Import honours an explicit version exactly: the hash is
 * recomputed from the body and compared, an absent version row is inserted RELEASED, an identical
 * one is a no-op.
 *
 * Decided here:
 * - The exported `pipeline` is the portable body plus `id`, `version`, `body_hash`, `released_at`;
 *   import strips exactly those four before hashing, so export → import round-trips the hash.
 * - An import keeps the payload's `id` when the workspace has no pipeline of that name and the id
 *   is free; else the pipeline of that name is the target (ids differ between instances).
 * - An imported RELEASED version moves the pointer when it is newer than the current one (or there
 *   is none), like a restore. Without `version` the payload is saved as a draft (create, or a
 *   write on the pipeline of that name against its working hash).
 * - Import writes the audit event `pipeline.version.imported`; the templates of an export are not
 *   imported by this route (templates have their own import).
 */
import { recordAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { canonicalJson, hashCanonical } from "../lib/canonical_json.ts";
import { isUuid, newId } from "../lib/ids.ts";
import { nowIso } from "../lib/time.ts";
import type { Queryable } from "../store/mod.ts";
import { insertVersion, type OpContext, PIPELINE_KIND } from "../versions/mod.ts";
import { parseBody, type PipelineBody } from "./body.ts";
import { checkReferences } from "./references.ts";
import * as repo from "./repo.ts";
import type { PipelineService, PipelineView } from "./service.ts";
import { viewOf } from "./service.ts";
import { recordPins } from "../templates/mod.ts";

const PORTABLE_EXTRAS = ["id", "version", "body_hash", "released_at"] as const;

export async function exportPipeline(
  svc: PipelineService,
  workspaceId: string,
  id: string,
  includeTemplates: boolean,
) {
  const working = await svc.get(workspaceId, id).catch((e) => {
    if (e instanceof AppError && e.code === "pipeline.execution.not_found") return undefined;
    throw e;
  });
  const versions = await svc.versions(workspaceId, id);
  const current = (working?.current_version ?? null) as number | null;
  const released = versions.find((v) => v.version === current && v.status === "RELEASED");
  if (!released) throw new AppError("pipeline.promotion.not_released", { pipeline_id: id });
  const row = await svc.lifecycle.version(workspaceId, id, released.version);
  const pipeline = {
    ...row.body,
    id,
    version: row.version,
    body_hash: row.body_hash,
    released_at: row.released_at,
  };
  const templates: unknown[] = [];
  if (includeTemplates) {
    const body = parseBody(row.body, id);
    const seen = new Set<string>();
    for (const n of body.nodes) {
      if (!n.template) continue;
      const key = `${n.template.id}@${n.template.version}`;
      if (seen.has(key)) continue;
      seen.add(key);
      templates.push(
        await svc.templates.getVersion(workspaceId, n.template.id, n.template.version),
      );
    }
  }
  return {
    pipeline,
    templates,
    manifest: {
      pipeline_id: id,
      pipeline_version: row.version,
      template_count: templates.length,
      exported_at: nowIso(),
    },
  };
}

/** Imports one pipeline payload; `created` says 201 or 200. */
export async function importPipeline(
  svc: PipelineService,
  ctx: OpContext,
  payload: Record<string, unknown>,
): Promise<{ created: boolean; pipeline: PipelineView }> {
  // Under the hardened posture content arrives only by promotion (the receiver applies it).
  svc.lifecycle.guardAuthoring("create");
  const input: Record<string, unknown> = { ...payload };
  for (const k of PORTABLE_EXTRAS) delete input[k];
  const body = parseBody(input);
  const version = payload.version;
  const codes = {
    missingDatasource: "pipeline.import.missing_datasource",
    missingTemplate: "pipeline.import.missing_template",
  } as const;
  const existing = await svc.lifecycle.findByName(ctx.workspaceId, body.name);
  if (version === undefined) {
    if (!existing) return { created: true, pipeline: await svc.create(ctx, input, codes) };
    const working = await svc.get(ctx.workspaceId, existing.id);
    return {
      created: false,
      pipeline: await svc.update(ctx, existing.id, String(working.body_hash), input),
    };
  }
  const verified = verifyReleasedImport(payload);
  const applied = await svc.db.transaction((tx) => applyReleasedImport(svc, tx, ctx, verified));
  await svc.lifecycle.changed();
  return applied;
}

/** A released import payload whose hash matched its body (see `verifyReleasedImport`). */
export interface VerifiedImport {
  payload: Record<string, unknown>;
  body: PipelineBody;
  version: number;
  canonical: string;
  computed: string;
}

/**
 * Checks an import payload that names its version: a positive integer version and a body_hash
 * equal to the hash recomputed from the portable body (409 `pipeline.import.hash_mismatch`).
 */
export function verifyReleasedImport(payload: Record<string, unknown>): VerifiedImport {
  const input: Record<string, unknown> = { ...payload };
  for (const k of PORTABLE_EXTRAS) delete input[k];
  const body = parseBody(input);
  const version = payload.version;
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "version",
      reason: "must be a positive integer",
    });
  }
  if (typeof payload.body_hash !== "string") {
    throw new AppError("pipeline.execution.invalid_parameter_type", {
      field: "body_hash",
      reason: "an import with a version must carry its body_hash",
    });
  }
  const canonical = canonicalJson(input);
  const computed = hashCanonical(canonical);
  if (computed !== payload.body_hash) {
    throw new AppError("pipeline.import.hash_mismatch", {
      body_hash: payload.body_hash,
      computed_hash: computed,
    });
  }
  return { payload, body, version, canonical, computed };
}

/**
 * Applies a verified released import inside the caller's transaction (the import route's own, or
 * a promotion push's one transaction for the whole batch).
 */
export async function applyReleasedImport(
  svc: PipelineService,
  tx: Queryable,
  ctx: OpContext,
  verified: VerifiedImport,
): Promise<{ created: boolean; applied: boolean; pipeline: PipelineView }> {
  const { payload, body, version, canonical, computed } = verified;
  const codes = {
    missingDatasource: "pipeline.import.missing_datasource",
    missingTemplate: "pipeline.import.missing_template",
  } as const;
  const existing = await svc.lifecycle.findByName(ctx.workspaceId, body.name, tx);
  const refs = await checkReferences(tx, ctx.workspaceId, existing?.id, body, codes);
  const at = await tx.first<{ status: string; body_hash: string }>(
    "SELECT status, body_hash FROM pipeline_versions WHERE pipeline_id = $1 AND version = $2",
    [existing?.id ?? newId(), version],
  );
  if (existing && at) {
    if (at.status === "RELEASED" && at.body_hash === computed) {
      // Read inside the transaction: on SQLite another connection would wait for this one.
      const row = await svc.lifecycle.version(ctx.workspaceId, existing.id, version, tx);
      const view = await svc.lifecycle.view(ctx.workspaceId, existing.id, tx);
      return { created: false, applied: false, pipeline: viewOf(view.entity, row, view.draft) };
    }
    throw new AppError("pipeline.import.version_conflict", {
      name: body.name,
      version,
      status: at.status,
      body_hash: at.body_hash,
    });
  }
  const now = nowIso();
  const actor = ctx.actor.userId;
  let id = existing?.id;
  if (!id) {
    const wanted = typeof payload.id === "string" && isUuid(payload.id) ? payload.id : undefined;
    const taken = wanted &&
      await tx.first("SELECT 1 AS one FROM pipelines WHERE CAST(id AS TEXT) = $1", [wanted]);
    id = wanted && !taken ? wanted : newId();
    await tx.execute(
      `INSERT INTO pipelines (id, workspace_id, name, display_name, description, current_version,
         owner_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, NULL, $6, $7, $7)`,
      [
        id,
        ctx.workspaceId,
        body.name,
        body.display_name ?? null,
        body.description ?? null,
        actor,
        now,
      ],
    );
  }
  await insertVersion(tx, PIPELINE_KIND, id, "RELEASED", {
    version,
    canonical,
    body_hash: computed,
    actor,
    now,
  });
  await recordPins(tx, { kind: "pipeline", id, version }, refs.templatePins);
  await repo.recordDatasourceRefs(tx, id, version, refs.datasourceRefs);
  const current = existing?.current_version ?? null;
  if (current === null || version > current) {
    await tx.execute(
      `UPDATE pipelines SET current_version = $2, name = $3, display_name = $4, description = $5,
         updated_at = $6 WHERE id = $1`,
      [id, version, body.name, body.display_name ?? null, body.description ?? null, now],
    );
  }
  await recordAudit(tx, {
    event: "pipeline.version.imported",
    userId: actor,
    provider: ctx.actor.provider,
    workspaceId: ctx.workspaceId,
    details: { pipeline_id: id, name: body.name, version, body_hash: computed },
  });
  const entity = (await svc.lifecycle.findByName(ctx.workspaceId, body.name, tx))!;
  const row = await svc.lifecycle.version(ctx.workspaceId, id, version, tx);
  const view = await svc.lifecycle.view(ctx.workspaceId, id, tx);
  return { created: !existing, applied: true, pipeline: viewOf(entity, row, view.draft) };
}
