/**
 * The first-boot demo content: fills the `demo` workspace (created by the workspace seeder) with
 * the generated files, their datasources, released templates and released pipelines, through the
 * domain services as the system actor, so every row and audit record is the one the API writes.
 *
 * Once only: the last step records `demo.content_seeded` in the audit log of the workspace, and a
 * boot that finds it does nothing, so content a user deleted is never put back. A boot that
 * finds no record resumes: each item is looked up by name first and kept when present (a draft
 * left by an interrupted seed is released), so two boots never duplicate anything. A deactivated
 * or deleted demo workspace is never filled. A seeded instance missing the generated files (a
 * replica with its own data directory) writes them again, identical, at boot.
 */
import { queryAudit, recordAudit } from "../audit/mod.ts";
import type { DatasourceService } from "../datasources/mod.ts";
import { AppError } from "../errors/mod.ts";
import {
  SYSTEM_PROVIDER,
  type SystemActor,
  systemPrincipal,
  type WorkspaceContext,
} from "../identity/mod.ts";
import type { Logger } from "../lib/log.ts";
import type { PipelineService } from "../pipelines/mod.ts";
import type { Db } from "../store/mod.ts";
import type { TemplateService } from "../templates/mod.ts";
import type { OpContext } from "../versions/mod.ts";
import { DEMO_WORKSPACE } from "../workspaces/mod.ts";
import { DEMO_PIPELINES, DEMO_TEMPLATES, demoDatasources, type DemoPins } from "./content.ts";
import { demoFiles, generateDemoFiles } from "./data.ts";

export const SEEDED_EVENT = "demo.content_seeded";

export interface DemoSeedDeps {
  db: Db;
  dataDir: string;
  logger: Logger;
  systemActor: SystemActor;
  findWorkspace(name: string): Promise<
    { id: string; name: string; deactivated_at: string | null } | null
  >;
  datasources: DatasourceService;
  templates: TemplateService;
  pipelines: PipelineService;
}

export type DemoSeedOutcome =
  | { seeded: true; ms: number; datasources: string[]; templates: string[]; pipelines: string[] }
  | { seeded: false; reason: "no_workspace" | "deactivated" | "already_seeded" };

const notFound = (e: unknown, code: string) => e instanceof AppError && e.code === code;

/**
 * Another replica (or a wiped data directory) lacks the files a seeded demo datasource points at:
 * they are deterministic, so this instance writes the very same ones. Only while a demo
 * datasource still names this instance's path; one a user removed or re-pointed stays as it is.
 */
async function restoreFiles(deps: DemoSeedDeps, workspaceId: string): Promise<void> {
  const wanted = demoDatasources(demoFiles(deps.dataDir));
  for (const body of wanted) {
    const record = await deps.datasources.recordInWorkspace(workspaceId, body.name as string)
      .catch((e) => {
        if (notFound(e, "datasource.not_found")) return null;
        throw e;
      });
    if (record?.jdbc_url === body.jdbc_url) {
      await generateDemoFiles(deps.dataDir); // writes only the missing ones
      return;
    }
  }
}

/** Seeds the demo content unless it was seeded before; see the module comment. */
export async function seedDemoContent(deps: DemoSeedDeps): Promise<DemoSeedOutcome> {
  const ws = await deps.findWorkspace(DEMO_WORKSPACE.name);
  if (!ws) return { seeded: false, reason: "no_workspace" };
  if (ws.deactivated_at) return { seeded: false, reason: "deactivated" };
  const marker = await queryAudit(deps.db, {
    workspaceId: ws.id,
    event: SEEDED_EVENT,
    offset: 0,
    limit: 1,
  });
  if (marker.total > 0) {
    await restoreFiles(deps, ws.id);
    return { seeded: false, reason: "already_seeded" };
  }

  const started = performance.now();
  const actor = systemPrincipal(deps.systemActor);
  const scope: WorkspaceContext = {
    id: ws.id,
    name: ws.name,
    flags: { author: true, promoter: true, admin: true },
    implicit: true,
  };
  const ctx: OpContext = { actor, workspaceId: ws.id };

  const files = await generateDemoFiles(deps.dataDir);
  const datasources: string[] = [];
  for (const body of demoDatasources(files)) {
    const name = body.name as string;
    try {
      await deps.datasources.recordInWorkspace(ws.id, name);
    } catch (e) {
      if (!notFound(e, "datasource.not_found")) throw e;
      await deps.datasources.create(actor, scope, body);
    }
    datasources.push(name);
  }

  const templateVersions = new Map<string, number>();
  for (const t of DEMO_TEMPLATES) {
    let view;
    try {
      view = await deps.templates.get(ws.id, t.id);
    } catch (e) {
      if (!notFound(e, "template.not_found")) throw e;
      view = await deps.templates.create(ctx, {
        id: t.id,
        type: "sql",
        dialect: t.dialect,
        display_name: t.display_name,
        description: t.description,
        imports: Object.entries(t.imports ?? {}).map(([alias, id]) => ({
          id,
          alias,
          version: templateVersions.get(id)!,
        })),
        body: t.body,
      });
    }
    // Only an interrupted seed leaves a template without a release: finish it.
    if (view.current_version === null) {
      view = await deps.templates.release(ctx, t.id, view.body_hash);
    }
    templateVersions.set(t.id, view.current_version!);
  }

  const pipelineVersions = new Map<string, { id: string; version: number }>();
  const pins: DemoPins = {
    template: (id) => ({ id, version: templateVersions.get(id)! }),
    pipeline: (name) => pipelineVersions.get(name)!,
  };
  // A pipeline view is loosely typed (the body's own fields); these three are always present.
  type Released = { id: string; body_hash: string; current_version: number | null };
  for (const p of DEMO_PIPELINES) {
    const entity = await deps.pipelines.lifecycle.findByName(ws.id, p.name);
    let view = (entity
      ? await deps.pipelines.get(ws.id, entity.id)
      : await deps.pipelines.create(ctx, p.body(pins))) as Released;
    if (view.current_version === null) {
      view = await deps.pipelines.release({ ...ctx, scope }, view.id, view.body_hash) as Released;
    }
    pipelineVersions.set(p.name, { id: view.id, version: view.current_version! });
  }

  const outcome = {
    seeded: true as const,
    ms: Math.round(performance.now() - started),
    datasources,
    templates: [...templateVersions.keys()],
    pipelines: [...pipelineVersions.keys()],
  };
  await recordAudit(deps.db, {
    event: SEEDED_EVENT,
    userId: deps.systemActor.id,
    provider: SYSTEM_PROVIDER,
    workspaceId: ws.id,
    details: {
      datasources,
      templates: Object.fromEntries(templateVersions),
      pipelines: Object.fromEntries(pipelineVersions),
    },
  });
  deps.logger.info("demo content seeded", {
    workspace: ws.name,
    ms: outcome.ms,
    datasources: datasources.length,
    templates: outcome.templates.length,
    pipelines: outcome.pipelines.length,
  });
  return outcome;
}
