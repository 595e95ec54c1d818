/**
 * The pinned-template rule of a pipeline release: every template version a node pins must be
 * RELEASED, unless `release_pinned_templates=true` releases the pinned drafts in the same
 * transaction, templates first, each audited with `cascade_from_pipeline_id`/`_version`. Any
 * refusal rolls back everything, because this runs as a hook inside the release's transaction.
 */
import { AppError } from "../errors/mod.ts";
import type { Queryable } from "../store/mod.ts";
import { resolvePins, type TemplateService } from "../templates/mod.ts";
import type { HookContext, OpContext } from "../versions/mod.ts";
import { parseBody } from "./body.ts";
import type { ReleaseInput } from "./service.ts";

/** Release hook: pinned template versions RELEASED, or cascaded (templates first). */
export async function templatesReleased(
  templates: TemplateService,
  tx: Queryable,
  h: HookContext,
  ctx: OpContext,
  input: ReleaseInput,
): Promise<Record<string, unknown>> {
  const body = parseBody(h.version.body, h.entity.id);
  const requests = body.nodes.flatMap((n) => n.template ? [n.template] : []);
  const { resolved } = await resolvePins(tx, h.entity.workspace_id, requests);
  const pending = resolved.filter((p) => p.status !== "RELEASED");
  const blocked = input.releasePinnedTemplates
    ? pending.filter((p) => p.status !== "DRAFT")
    : pending;
  if (blocked.length > 0) {
    throw new AppError("pipeline.release.template_not_released", {
      template_id: blocked[0].name,
      template_version: blocked[0].version,
      template_status: blocked[0].status,
      pins_not_released: pending.map((p) => ({
        template_id: p.name,
        template_version: p.version,
        template_status: p.status,
      })),
    });
  }
  const released: { id: string; version: number }[] = [];
  const done = new Set<string>();
  for (const p of pending) {
    if (done.has(p.template_id)) continue;
    done.add(p.template_id);
    const metas = await templates.lifecycle.versions(
      h.entity.workspace_id,
      p.template_id,
      tx,
    );
    const draft = metas.find((m) => m.version === p.version)!;
    await templates.release({ ...ctx, tx }, p.name, draft.body_hash, {
      auditDetails: {
        cascade_from_pipeline_id: h.entity.id,
        cascade_from_version: h.version.version,
      },
    });
    released.push({ id: p.name, version: p.version });
  }
  return released.length > 0 ? { templates_released: released } : {};
}
