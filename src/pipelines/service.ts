/**
 * Pipeline authoring (everything but execute) over the shared version lifecycle: the body is parsed
 * and its references checked at every save, template pins and datasource references are recorded in
 * the save's transaction, and a release re-validates, requires (or cascades) its pinned templates
 * and runs its release checks.
 *
 * Decided here:
 * - The stored body is the body as sent (server fields refused by the schema), so an export's
 *   hash is the hash of exactly what was authored; defaults are applied on read and run only.
 * - Discard, restore and switch answer the pipeline's working view after the move.
 * - Release checks run before the release's transaction (a probe never holds the store's write
 *   lock) against the draft the If-Match names; their runs are appended even when the release is
 *   then refused. `override_checks_reason` with every check passing is 400 (field named).
 * - A DISCARDED pinned template cannot be cascaded: it is always `template_not_released`.
 */
import { AppError } from "../errors/mod.ts";
import type { Principal, WorkspaceContext } from "../identity/mod.ts";
import { folderLevelAnswer, normalisePrefix } from "../lib/folder_path.ts";
import type { Db, Queryable } from "../store/mod.ts";
import { dropPins, recordPins, type TemplateService } from "../templates/mod.ts";
import {
  type EntityRow,
  type HookContext,
  type JsonObject,
  type OpContext,
  PIPELINE_KIND,
  requireIfMatch,
  VersionLifecycle,
  type VersionMeta,
  type VersionRow,
} from "../versions/mod.ts";
import { parseBody, type PipelineBody } from "./body.ts";
import { type CheckProbe, runChecks } from "./checks.ts";
import { checkReferences, type ReferenceCodes } from "./references.ts";
import * as repo from "./repo.ts";
import { exclusiveDraftTemplates, livePinners } from "./dependants.ts";
import { templatesReleased } from "./release.ts";
import { entityFields, type PipelineView, viewOf } from "./view.ts";
import type { Page } from "../lib/paged_view.ts";

export { type PipelineView, viewOf };

export interface PipelineServiceOptions {
  db: Db;
  authoringEnabled: boolean;
  templates: TemplateService;
  /** The bounded read-only probe release checks run through. */
  probe: CheckProbe;
}

/** A release's query options. */
export interface ReleaseInput {
  releasePinnedTemplates?: boolean;
  overrideChecksReason?: string;
}

/** Who acts, where, and (for probes) the caller's workspace context. */
export interface ScopedContext extends OpContext {
  scope: WorkspaceContext;
}

export class PipelineService {
  readonly lifecycle: VersionLifecycle;
  readonly db: Db;
  readonly templates: TemplateService;
  readonly #probe: CheckProbe;

  constructor(options: PipelineServiceOptions) {
    this.db = options.db;
    this.templates = options.templates;
    this.#probe = options.probe;
    this.lifecycle = new VersionLifecycle({
      db: options.db,
      kind: PIPELINE_KIND,
      authoringEnabled: options.authoringEnabled,
      hooks: {
        beforeRelease: [(tx, ctx) => this.#revalidate(tx, ctx)],
        pinnedBy: [(tx, ctx) => livePinners(tx, ctx)],
        beforePurge: [async (tx, ctx) => {
          await dropPins(tx, { kind: "pipeline", id: ctx.entity.id, version: ctx.version.version });
          await repo.dropVersionRows(tx, ctx.entity.id, ctx.version.version);
        }],
      },
    });
  }

  /** Every write's transaction; one of its own announces the change once committed. */
  async #tx<T>(ctx: OpContext, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    if (ctx.tx) return await fn(ctx.tx);
    const result = await this.db.transaction(fn);
    await this.lifecycle.changed();
    return result;
  }

  // --- writes -----------------------------------------------------------------------------------

  /** A new pipeline at DRAFT version 1 (docs/authoring.md#versions). */
  create(ctx: OpContext, input: unknown, codes?: ReferenceCodes): Promise<PipelineView> {
    return this.#tx(ctx, async (tx) => {
      const body = parseBody(input);
      const refs = await checkReferences(tx, ctx.workspaceId, undefined, body, codes);
      const saved = await this.lifecycle.create({ ...ctx, tx }, {
        name: body.name,
        body: input as JsonObject,
        attrs: { display_name: body.display_name ?? null, description: body.description ?? null },
      });
      await this.#record(tx, saved.entity.id, 1, refs);
      return await this.#view(tx, saved.entity, saved.version);
    });
  }

  /** Saves the full body against `ifMatch`: the draft, or RELEASED when identical. */
  update(
    ctx: OpContext,
    id: string,
    ifMatch: string | null | undefined,
    input: unknown,
  ): Promise<PipelineView> {
    // The precondition is answered before the body: a missing header is the caller's first fault.
    requireIfMatch(ifMatch);
    return this.#tx(ctx, async (tx) => {
      const entity = await this.#entity(tx, ctx.workspaceId, id);
      const body = parseBody(input, entity.id);
      if (body.name !== entity.name) {
        const taken = await this.lifecycle.findByName(ctx.workspaceId, body.name, tx);
        if (taken && taken.id !== entity.id) {
          throw new AppError("pipeline.validation.duplicate_name", { name: body.name });
        }
      }
      const refs = await checkReferences(tx, ctx.workspaceId, entity.id, body);
      const saved = await this.lifecycle.update({ ...ctx, tx }, entity.id, ifMatch, {
        body: input as JsonObject,
      });
      if (!saved.unchanged) await this.#record(tx, entity.id, saved.version.version, refs);
      return await this.#view(tx, saved.entity, saved.version);
    });
  }

  async #record(
    tx: Queryable,
    id: string,
    version: number,
    refs: Awaited<ReturnType<typeof checkReferences>>,
  ) {
    await recordPins(tx, { kind: "pipeline", id, version }, refs.templatePins);
    await repo.recordDatasourceRefs(tx, id, version, refs.datasourceRefs);
  }

  /** Releases the draft whose hash is `ifMatch`. */
  async release(
    ctx: ScopedContext,
    id: string,
    ifMatch: string | null | undefined,
    input: ReleaseInput = {},
  ): Promise<PipelineView> {
    const entity = await this.#entity(this.db, ctx.workspaceId, id);
    const reason = input.overrideChecksReason;
    if (reason !== undefined && reason.replace(/\s/g, "").length < 10) {
      throw new AppError("pipeline.execution.invalid_parameter_type", {
        field: "override_checks_reason",
        reason: "needs at least 10 non-blank characters",
      });
    }
    const checkDetails = await this.#releaseChecks(ctx, entity, ifMatch, reason);
    return await this.#tx(ctx, async (tx) => {
      const done = await this.lifecycle.release({ ...ctx, tx }, entity.id, ifMatch, {
        beforeRelease: [(t, h) => templatesReleased(this.templates, t, h, ctx, input)],
        auditDetails: checkDetails,
      });
      return await this.#viewAt(tx, done.entity, done.version.version);
    });
  }

  async #releaseChecks(
    ctx: ScopedContext,
    entity: EntityRow,
    ifMatch: string | null | undefined,
    reason: string | undefined,
  ): Promise<Record<string, unknown>> {
    const metas = await this.lifecycle.versions(ctx.workspaceId, entity.id);
    const draft = metas.find((m) => m.status === "DRAFT");
    const tag = ifMatch?.replace(/^"|"$/g, "");
    // A missing or stale precondition is the lifecycle's answer; checks run only on that draft.
    if (!draft || draft.body_hash !== tag) return {};
    const row = await this.lifecycle.version(ctx.workspaceId, entity.id, draft.version);
    const body = parseBody(row.body, entity.id);
    if (body.checks.length === 0) {
      if (reason !== undefined) throw noFailure();
      return {};
    }
    const runs = await this.#run(ctx, entity.id, draft.version, body, {});
    const failing = runs.filter((r) => r.verdict !== "pass");
    if (failing.length === 0) {
      if (reason !== undefined) throw noFailure();
      return { checks_passed: runs.length };
    }
    if (reason === undefined) {
      throw new AppError("pipeline.check.failed", {
        checks: failing.map((r) => ({
          check_id: r.check_id,
          name: r.name,
          verdict: r.verdict,
          expected: r.expected,
          observed: r.observed,
          message: r.message,
        })),
      });
    }
    return { override_checks_reason: reason, checks_overridden: failing.map((r) => r.check_id) };
  }

  /** Release hook: re-validation of the draft as stored (references may have moved since). */
  async #revalidate(tx: Queryable, h: HookContext): Promise<void> {
    const body = parseBody(h.version.body, h.entity.id);
    await checkReferences(tx, h.entity.workspace_id, h.entity.id, body);
  }

  /** Purges the draft whose hash is `ifMatch`. */
  async purgeDraft(ctx: OpContext, id: string, ifMatch: string | null | undefined): Promise<void> {
    const entity = await this.#entity(this.db, ctx.workspaceId, id);
    await this.lifecycle.purgeDraft(ctx, entity.id, ifMatch);
  }

  discard(ctx: OpContext, id: string, version: number): Promise<PipelineView> {
    return this.#move(ctx, id, (c, eid) => this.lifecycle.discard(c, eid, version));
  }

  restore(ctx: OpContext, id: string, version: number): Promise<PipelineView> {
    return this.#move(ctx, id, (c, eid) => this.lifecycle.restore(c, eid, version));
  }

  switchCurrent(ctx: OpContext, id: string, version: number): Promise<PipelineView> {
    return this.#move(ctx, id, (c, eid) => this.lifecycle.switchCurrent(c, eid, version));
  }

  async purgeVersion(ctx: OpContext, id: string, version: number): Promise<void> {
    const entity = await this.#entity(this.db, ctx.workspaceId, id);
    await this.lifecycle.purgeVersion(ctx, entity.id, version);
  }

  /**
   * Purges the pipeline (sole version a draft). Exclusive draft templates are template entities
   * whose only version is a draft pinned by this pipeline alone; they go too when asked.
   */
  deleteEntity(ctx: OpContext, id: string, includeExclusiveDraftTemplates: boolean) {
    return this.#tx(ctx, async (tx) => {
      const entity = await this.#entity(tx, ctx.workspaceId, id);
      const exclusive = await exclusiveDraftTemplates(tx, entity.id);
      await this.lifecycle.deleteEntity({ ...ctx, tx }, entity.id);
      if (includeExclusiveDraftTemplates) {
        for (const name of exclusive) {
          await this.templates.deleteEntity({ ...ctx, tx }, name);
        }
      }
      return {
        purged: true,
        exclusive_draft_templates: exclusive,
        exclusive_draft_templates_purged: includeExclusiveDraftTemplates && exclusive.length > 0,
      };
    });
  }

  // --- checks -----------------------------------------------------------------------------------

  /** Runs version `version`'s checks now and appends their runs. */
  async runChecks(
    ctx: ScopedContext,
    id: string,
    version: number,
    parameters: Record<string, unknown>,
  ) {
    const entity = await this.#entity(this.db, ctx.workspaceId, id);
    const row = await this.lifecycle.version(ctx.workspaceId, entity.id, version);
    const body = parseBody(row.body, entity.id);
    return { version, runs: await this.#run(ctx, entity.id, version, body, parameters) };
  }

  async #run(
    ctx: ScopedContext,
    id: string,
    version: number,
    body: PipelineBody,
    parameters: Record<string, unknown>,
  ) {
    const runs = await runChecks(this.#probe, ctx.actor, ctx.scope, body, parameters);
    await this.db.transaction(async (tx) => {
      for (const r of runs) await repo.appendRun(tx, id, version, r, ctx.actor.userId);
    });
    return runs;
  }

  /** Check definitions of a version with the latest run of each, or null. */
  async getChecks(workspaceId: string, id: string, version: number) {
    const entity = await this.#entity(this.db, workspaceId, id);
    const row = await this.lifecycle.version(workspaceId, entity.id, version);
    const body = parseBody(row.body, entity.id);
    const latest = await repo.latestRuns(this.db, entity.id, version);
    return {
      version,
      checks: body.checks.map((c) => ({ ...c, latest_run: latest.get(c.id) ?? null })),
    };
  }

  // --- reads ------------------------------------------------------------------------------------

  async get(workspaceId: string, id: string): Promise<PipelineView> {
    const entity = await this.#entity(this.db, workspaceId, id);
    const view = await this.lifecycle.view(workspaceId, entity.id);
    // Its only release discarded: the pipeline still exists, with no version to show
    // (`current_version` null).
    if (!view.working) return this.#bare(view.entity, view.draft);
    return await this.#view(this.db, view.entity, view.working);
  }

  async getVersion(workspaceId: string, id: string, version: number): Promise<PipelineView> {
    const entity = await this.#entity(this.db, workspaceId, id);
    return await this.#viewAt(this.db, entity, version);
  }

  async versions(workspaceId: string, id: string): Promise<VersionMeta[]> {
    const entity = await this.#entity(this.db, workspaceId, id);
    return await this.lifecycle.versions(workspaceId, entity.id);
  }

  list(workspaceId: string, filter: repo.ListFilter, page: Page) {
    return repo.listPipelines(this.db, workspaceId, filter, page);
  }

  async folder(workspaceId: string, prefix: string, page: Page) {
    const at = normalisePrefix(prefix);
    const names = await repo.namesUnder(this.db, workspaceId, at);
    return await folderLevelAnswer(
      "pipeline",
      at,
      names,
      page,
      (picked) => repo.rowsByName(this.db, workspaceId, picked),
    );
  }

  // --- helpers ----------------------------------------------------------------------------------

  async #entity(db: Queryable, workspaceId: string, id: string): Promise<EntityRow> {
    const name = await nameById(db, workspaceId, id);
    const view = name === undefined
      ? undefined
      : await this.lifecycle.findByName(workspaceId, name, db);
    if (!view) {
      throw new AppError("pipeline.not_found", {
        pipeline_id: id,
        reason: "unknown in this workspace",
      });
    }
    return view;
  }

  async #move(
    ctx: OpContext,
    id: string,
    act: (c: OpContext, id: string) => Promise<unknown>,
  ): Promise<PipelineView> {
    return await this.#tx(ctx, async (tx) => {
      const entity = await this.#entity(tx, ctx.workspaceId, id);
      await act({ ...ctx, tx }, entity.id);
      const view = await this.lifecycle.view(ctx.workspaceId, entity.id, tx);
      if (!view.working) return this.#bare(view.entity, view.draft);
      return await this.#view(tx, view.entity, view.working);
    });
  }

  async #viewAt(db: Queryable, entity: EntityRow, version: number): Promise<PipelineView> {
    const row = await this.lifecycle.version(entity.workspace_id, entity.id, version, db);
    return await this.#view(db, entity, row);
  }

  async #view(db: Queryable, entity: EntityRow, row: VersionRow): Promise<PipelineView> {
    const view = await this.lifecycle.view(entity.workspace_id, entity.id, db);
    return viewOf(view.entity, row, view.draft);
  }

  #bare(entity: EntityRow, draft: unknown): PipelineView {
    return { ...entityFields(entity), version: null, status: null, body_hash: null, draft };
  }
}

function noFailure(): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", {
    field: "override_checks_reason",
    reason: "no release check failed; the override is for a failing check only",
  });
}

async function nameById(db: Queryable, workspaceId: string, id: string) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const row = await db.first<{ name: string }>(
    "SELECT name FROM pipelines WHERE CAST(id AS TEXT) = $1 AND workspace_id = $2",
    [id.toLowerCase(), workspaceId],
  );
  return row ? String(row.name) : undefined;
}

export type { Principal };
