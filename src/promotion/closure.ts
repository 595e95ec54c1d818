/**
 * What a promotion of one pipeline carries (docs/decisions.md#what-a-promotion-carries): the
 * pipeline's current release, the released child pipelines it pins (at their pinned version, or the
 * child's current release when the pin names none), the template versions their nodes pin and those
 * templates' own imports, transitively, and the published endpoints serving any of them. Entries
 * come out in closure order (templates imported before importers, children before parents).
 *
 * Any member not RELEASED refuses with 409 `pipeline.promotion.not_released` naming it.
 */
import { AppError } from "../errors/mod.ts";
import { type PipelineService, STAGING } from "../pipelines/mod.ts";
import type { PipelineBody } from "../pipelines/mod.ts";
import type { TemplateService } from "../templates/mod.ts";

export interface Bundle {
  root: { id: string; name: string; version: number; body_hash: string };
  templates: Record<string, unknown>[];
  pipelines: Record<string, unknown>[];
  /** Every pipeline id of the closure (sender side). */
  pipelineIds: string[];
  /** Datasource names the closure's nodes and checks use. */
  datasources: string[];
}

const notReleased = (id: string, reason: string) =>
  new AppError("pipeline.promotion.not_released", { pipeline_id: id, reason });

export async function buildBundle(
  pipelines: PipelineService,
  templates: TemplateService,
  workspaceId: string,
  pipelineId: string,
  includeTemplates: boolean,
): Promise<Bundle> {
  const out: Bundle = {
    root: undefined as unknown as Bundle["root"],
    templates: [],
    pipelines: [],
    pipelineIds: [],
    datasources: [],
  };
  const seenPipelines = new Set<string>();
  const seenTemplates = new Set<string>();
  const datasources = new Set<string>();

  const currentRelease = async (id: string): Promise<number> => {
    const working = await pipelines.get(workspaceId, id).catch((e) => {
      if (e instanceof AppError && /not_found$/.test(e.code)) {
        throw new AppError("pipeline.not_found", {
          pipeline_id: id,
          reason: "not in this workspace",
        });
      }
      throw e;
    });
    const current = working.current_version as number | null;
    const metas = await pipelines.versions(workspaceId, id);
    if (current === null || !metas.some((m) => m.version === current && m.status === "RELEASED")) {
      throw notReleased(id, "it has no released version");
    }
    return current;
  };

  const visitTemplate = async (name: string, version: number) => {
    const key = `${name}@${version}`;
    if (seenTemplates.has(key)) return;
    seenTemplates.add(key);
    const t = await templates.getVersion(workspaceId, name, version);
    if (t.status !== "RELEASED") {
      throw notReleased(name, `template version ${version} is ${t.status}`);
    }
    for (const i of t.imports) await visitTemplate(i.id, i.version);
    out.templates.push({
      id: t.id,
      type: t.type,
      ...(t.dialect ? { dialect: t.dialect } : {}),
      display_name: t.display_name,
      description: t.description ?? null,
      imports: t.imports,
      body: t.body,
      version: t.version,
      body_hash: t.body_hash,
      released_at: t.released_at,
    });
  };

  const visitPipeline = async (id: string, version: number) => {
    const key = `${id}@${version}`;
    if (seenPipelines.has(key)) return;
    seenPipelines.add(key);
    const row = await pipelines.lifecycle.version(workspaceId, id, version);
    if (row.status !== "RELEASED") throw notReleased(id, `version ${version} is ${row.status}`);
    const body = row.body as unknown as PipelineBody;
    for (const n of body.nodes ?? []) {
      if (n.pipeline) {
        const v = n.pipeline.version ?? await currentRelease(n.pipeline.id);
        await visitPipeline(n.pipeline.id, v);
      }
      if (n.template && includeTemplates) await visitTemplate(n.template.id, n.template.version);
      for (const d of [n.source, n.output?.datasource]) if (d && d !== STAGING) datasources.add(d);
    }
    for (const c of body.checks ?? []) datasources.add(c.datasource);
    out.pipelines.push({
      ...row.body,
      id,
      version: row.version,
      body_hash: row.body_hash,
      released_at: row.released_at,
    });
    if (!out.pipelineIds.includes(id)) out.pipelineIds.push(id);
    return { name: String(body.name), body_hash: row.body_hash };
  };

  const version = await currentRelease(pipelineId);
  const root = await visitPipeline(pipelineId, version);
  out.root = { id: pipelineId, name: root!.name, version, body_hash: root!.body_hash };
  out.datasources = [...datasources].sort();
  return out;
}
