/**
 * Template use cases (docs/authoring.md#authoring-templates) over the shared version lifecycle: the
 * service checks content (content.ts), keeps the pins of imports in step with the versions that
 * hold them, and turns names into the entity ids the lifecycle works with. Templates are addressed
 * by name, and only within the caller's workspace: another workspace's template is
 * `template.not_found`.
 *
 * Lifecycle hooks this service registers:
 * - release: every imported version must be RELEASED (`template.release.import_not_released`), so
 *   released content never depends on a draft that can still change;
 * - discard: refused while any stored pipeline or template version pins the version
 *   (`template.in_use` naming the pinners);
 * - purges (draft discard, purge by version, entity delete): refused likewise while pinned (a
 *   pinner would otherwise point at nothing), then the purged version's own import pins go.
 */
import { AppError } from "../errors/mod.ts";
import { folderLevelAnswer, normalisePrefix } from "../lib/folder_path.ts";
import type { Db, Queryable } from "../store/mod.ts";
import {
  type EntityRow,
  type HookContext,
  type OpContext,
  type Pinner,
  type ReleaseOptions,
  requireIfMatch,
  TEMPLATE_KIND,
  VersionLifecycle,
  type VersionMeta,
  type VersionRow,
} from "../versions/mod.ts";
import {
  checkBody,
  checkDialect,
  checkId,
  contentOf,
  generatedId,
  resolveImports,
  storedContent,
} from "./content.ts";
import { importLibrary } from "./library.ts";
import { dropPins, pinnersOf, recordPins, resolvePins } from "./pins.ts";
import type { RenderedSql } from "./render.ts";
import {
  type PreviewInput,
  type RenderInput,
  renderPreview,
  renderStored,
  type TemplateReader,
} from "./rendering.ts";
import * as repo from "./repo.ts";
import { viewOf } from "./view.ts";
import type {
  CreateTemplateInput,
  LibraryImportInput,
  LibraryOutcome,
  TemplateFilter,
  TemplateFolderLevel,
  TemplateListRow,
  TemplateType,
  TemplateView,
  UpdateTemplateInput,
} from "./types.ts";
import type { Page } from "../lib/paged_view.ts";

export interface TemplateServiceOptions {
  db: Db;
  /** `service.deployment.authoring-enabled`; false is the hardened posture. */
  authoringEnabled: boolean;
}

function notFound(name: string, reason = "unknown in this workspace"): AppError {
  return new AppError("template.not_found", { template_id: String(name).slice(0, 250), reason });
}

function inUse(entity: EntityRow, version: number | null, pinners: Pinner[]): AppError {
  return new AppError("template.in_use", {
    template_id: entity.name,
    version,
    pinned_by: pinners,
    pinned_by_summary: pinners.map((p) => `${p.kind} ${p.name} v${p.version}`).join(", "),
  });
}

/** The template lifecycle plus content rules, pins, listings, render and the library import. */
export class TemplateService {
  readonly lifecycle: VersionLifecycle;
  readonly #db: Db;
  readonly #reader: TemplateReader;

  constructor(options: TemplateServiceOptions) {
    this.#db = options.db;
    this.lifecycle = new VersionLifecycle({
      db: options.db,
      kind: TEMPLATE_KIND,
      authoringEnabled: options.authoringEnabled,
      hooks: {
        beforeRelease: [(tx, ctx) => this.#importsReleased(tx, ctx)],
        pinnedBy: [(tx, ctx) => pinnersOf(tx, ctx.entity.id, ctx.version.version)],
        beforePurge: [(tx, ctx) => this.#purgeable(tx, ctx)],
      },
    });
    this.#reader = {
      lifecycle: this.lifecycle,
      entity: (workspaceId, name) => this.#entity(this.#db, workspaceId, name),
      workingNumber: (entity) => this.#workingNumber(entity),
    };
  }

  // --- writes -----------------------------------------------------------------------------------

  /** A new template at DRAFT version 1 (docs/authoring.md#versions). */
  create(ctx: OpContext, input: CreateTemplateInput): Promise<TemplateView> {
    return this.#tx(ctx, async (tx) => {
      const name = checkId(input.id ?? generatedId());
      const type: TemplateType = input.type ?? "sql";
      const dialect = checkDialect(type, input.dialect, null);
      const imports = input.imports ?? [];
      const pins = await resolveImports(tx, ctx.workspaceId, { name, type, dialect }, imports);
      await checkBody(name, type, imports, input.body);
      const saved = await this.lifecycle.create({ ...ctx, tx }, {
        name,
        body: contentOf(name, type, dialect, imports, input.body),
        attrs: {
          type,
          dialect: dialect ?? null,
          display_name: input.display_name,
          description: input.description ?? null,
        },
      });
      await recordPins(tx, { kind: "template", id: saved.entity.id, version: 1 }, pins);
      return await this.#view(tx, saved.entity, saved.version);
    });
  }

  /**
   * Saves the full content against `ifMatch`: type and dialect are inherited and may not change;
   * identical content answers the release unchanged.
   */
  async update(
    ctx: OpContext,
    ifMatch: string | null | undefined,
    input: UpdateTemplateInput,
  ): Promise<TemplateView> {
    this.lifecycle.guardAuthoring("update");
    requireIfMatch(ifMatch);
    return await this.#tx(ctx, async (tx) => {
      const entity = await this.#entity(tx, ctx.workspaceId, input.id);
      const type = entity.attrs.type as TemplateType;
      if (input.type !== undefined && input.type !== type) {
        throw new AppError("template.validation.type_immutable", {
          template_id: entity.name,
          type: input.type,
          established_type: type,
        });
      }
      const dialect = checkDialect(type, input.dialect, {
        template_id: entity.name,
        dialect: entity.attrs.dialect,
      });
      const imports = input.imports ?? [];
      const self = { name: entity.name, type, dialect };
      const pins = await resolveImports(tx, ctx.workspaceId, self, imports);
      await checkBody(entity.name, type, imports, input.body);
      const saved = await this.lifecycle.update({ ...ctx, tx }, entity.id, ifMatch, {
        body: contentOf(entity.name, type, dialect, imports, input.body),
        attrs: { display_name: input.display_name, description: input.description ?? null },
      });
      if (!saved.unchanged) {
        const pinner = { kind: "template" as const, id: entity.id, version: saved.version.version };
        await recordPins(tx, pinner, pins);
      }
      return await this.#view(tx, saved.entity, saved.version);
    });
  }

  /**
   * Releases the draft whose hash is `ifMatch`. A pipeline release cascading its pinned drafts
   * passes its transaction in `ctx.tx` and its `cascade_from_*` audit details in `options`.
   */
  async release(
    ctx: OpContext,
    name: string,
    ifMatch: string | null | undefined,
    options?: ReleaseOptions,
  ): Promise<TemplateView> {
    this.lifecycle.guardAuthoring("release");
    return await this.#tx(ctx, async (tx) => {
      const entity = await this.#entity(tx, ctx.workspaceId, name);
      const done = await this.lifecycle.release({ ...ctx, tx }, entity.id, ifMatch, options);
      return await this.#viewAt(tx, done.entity, done.version.version);
    });
  }

  /** Purges the draft whose hash is `ifMatch` (a sole draft takes the template with it). */
  async purgeDraft(ctx: OpContext, name: string, ifMatch: string | null | undefined) {
    this.lifecycle.guardAuthoring("purge_draft");
    const entity = await this.#entity(this.#db, ctx.workspaceId, name);
    await this.lifecycle.purgeDraft(ctx, entity.id, ifMatch);
  }

  /** RELEASED → DISCARDED unless pinned; answers the version as it now stands. */
  async discard(ctx: OpContext, name: string, version: number): Promise<TemplateView> {
    this.lifecycle.guardAuthoring("discard");
    return await this.#move(ctx, name, (c, id) => this.lifecycle.discard(c, id, version));
  }

  /** DISCARDED → RELEASED. */
  async restore(ctx: OpContext, name: string, version: number): Promise<TemplateView> {
    this.lifecycle.guardAuthoring("restore");
    return await this.#move(ctx, name, (c, id) => this.lifecycle.restore(c, id, version));
  }

  /** Points `current_version` at `version`. */
  switchCurrent(ctx: OpContext, name: string, version: number): Promise<TemplateView> {
    return this.#move(ctx, name, (c, id) => this.lifecycle.switchCurrent(c, id, version));
  }

  /** Deletes version `version`, which must be the draft. */
  async purgeVersion(ctx: OpContext, name: string, version: number): Promise<void> {
    this.lifecycle.guardAuthoring("purge_version");
    const entity = await this.#entity(this.#db, ctx.workspaceId, name);
    await this.lifecycle.purgeVersion(ctx, entity.id, version);
  }

  /**
   * Purges the template: refused while any version is pinned (`template.in_use`, checked first so
   * the answer names what blocks it), then only when its sole version is a draft.
   */
  async deleteEntity(ctx: OpContext, name: string): Promise<{ purged: true; id: string }> {
    this.lifecycle.guardAuthoring("delete");
    return await this.#tx(ctx, async (tx) => {
      const entity = await this.#entity(tx, ctx.workspaceId, name);
      const pinners = await pinnersOf(tx, entity.id);
      if (pinners.length > 0) throw inUse(entity, null, pinners);
      await this.lifecycle.deleteEntity({ ...ctx, tx }, entity.id);
      return { purged: true as const, id: entity.name };
    });
  }

  /** Library templates (`POST /templates/import`), all or nothing; see library.ts. */
  importLibrary(ctx: OpContext, input: LibraryImportInput): Promise<LibraryOutcome[]> {
    return this.#tx(ctx, (tx) => importLibrary(tx, this.lifecycle, { ...ctx, tx }, input));
  }

  // --- reads ------------------------------------------------------------------------------------

  /** The working version: the draft, else the current release. */
  async get(workspaceId: string, name: string): Promise<TemplateView> {
    const entity = await this.#entity(this.#db, workspaceId, name);
    const view = await this.lifecycle.view(workspaceId, entity.id);
    if (!view.working) throw notFound(name, "no live version (every release is discarded)");
    return await this.#view(this.#db, view.entity, view.working);
  }

  /** One version. */
  async getVersion(workspaceId: string, name: string, version: number): Promise<TemplateView> {
    const entity = await this.#entity(this.#db, workspaceId, name);
    return await this.#viewAt(this.#db, entity, version);
  }

  /**
   * `templates_used_by`: every stored version that pins this template (at `version`, or at any):
   * pipeline versions through a node's `template`, template versions through an import; pipelines
   * first, each by name and version, with the `pinned_version` it holds.
   */
  async usedBy(workspaceId: string, name: string, version?: number) {
    const entity = await this.#entity(this.#db, workspaceId, name);
    if (version !== undefined) await this.lifecycle.version(workspaceId, entity.id, version);
    return await pinnersOf(this.#db, entity.id, version);
  }

  /** Every version's metadata, lowest first. */
  async versions(workspaceId: string, name: string): Promise<VersionMeta[]> {
    const entity = await this.#entity(this.#db, workspaceId, name);
    return await this.lifecycle.versions(workspaceId, entity.id);
  }

  /** The paged list. */
  list(workspaceId: string, filter: TemplateFilter, page: Page) {
    return repo.listTemplates(this.#db, workspaceId, filter, page);
  }

  /** One folder level (`q` is ignored; an unknown prefix is an empty level). */
  async folder(
    workspaceId: string,
    prefix: string,
    filter: TemplateFilter,
    page: Page,
  ): Promise<TemplateFolderLevel> {
    const at = normalisePrefix(prefix);
    const names = await repo.namesUnder(this.#db, workspaceId, at, filter);
    return await folderLevelAnswer(
      "template",
      at,
      names,
      page,
      (picked): Promise<TemplateListRow[]> => repo.rowsByName(this.#db, workspaceId, picked),
    );
  }

  /**
   * Renders a sql template version (the working one when `version` is absent) with `context` as
   * `params` (rendering.ts).
   */
  render(workspaceId: string, input: RenderInput): Promise<RenderedSql> {
    return renderStored(this.#reader, workspaceId, input);
  }

  /** Renders unsaved text (the editor's preview) exactly as a saved version would render. */
  preview(workspaceId: string, input: PreviewInput): Promise<RenderedSql> {
    return renderPreview(this.#reader, workspaceId, input);
  }

  // --- internals --------------------------------------------------------------------------------

  #tx<T>(ctx: OpContext, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return ctx.tx ? fn(ctx.tx) : this.#db.transaction(fn);
  }

  async #entity(db: Queryable, workspaceId: string, name: string): Promise<EntityRow> {
    const entity = typeof name === "string" && name.length <= 250
      ? await this.lifecycle.findByName(workspaceId, name, db)
      : null;
    if (!entity) throw notFound(name);
    return entity;
  }

  async #workingNumber(entity: EntityRow): Promise<number> {
    const metas = await this.lifecycle.versions(entity.workspace_id, entity.id);
    const n = metas.find((m) => m.status === "DRAFT")?.version ?? entity.current_version;
    if (n === null) throw notFound(entity.name, "no live version (every release is discarded)");
    return n;
  }

  async #move(
    ctx: OpContext,
    name: string,
    act: (c: OpContext, id: string) => Promise<{ entity: EntityRow; version: VersionMeta }>,
  ): Promise<TemplateView> {
    return await this.#tx(ctx, async (tx) => {
      const entity = await this.#entity(tx, ctx.workspaceId, name);
      const done = await act({ ...ctx, tx }, entity.id);
      return await this.#viewAt(tx, done.entity, done.version.version);
    });
  }

  async #viewAt(db: Queryable, entity: EntityRow, version: number): Promise<TemplateView> {
    const row = await this.lifecycle.version(entity.workspace_id, entity.id, version, db);
    return await this.#view(db, entity, row);
  }

  async #view(db: Queryable, entity: EntityRow, row: VersionRow): Promise<TemplateView> {
    return viewOf(entity, row, await this.lifecycle.versions(entity.workspace_id, entity.id, db));
  }

  /** Release hook: every import of the version must be RELEASED. */
  async #importsReleased(tx: Queryable, ctx: HookContext): Promise<void> {
    const { imports } = storedContent(ctx.version);
    const { resolved } = await resolvePins(tx, ctx.entity.workspace_id, imports);
    const pending = resolved.find((p) => p.status !== "RELEASED");
    if (pending) {
      throw new AppError("template.release.import_not_released", {
        template_id: ctx.entity.name,
        import_id: pending.name,
        import_version: pending.version,
        import_status: pending.status,
        imports_not_released: resolved.filter((p) => p.status !== "RELEASED").map((p) => ({
          id: p.name,
          version: p.version,
          status: p.status,
        })),
      });
    }
  }

  /** Purge hook: refused while pinned; then the purged version's own import pins go. */
  async #purgeable(tx: Queryable, ctx: HookContext): Promise<void> {
    const version = ctx.version.version;
    const pinners = await pinnersOf(tx, ctx.entity.id, ctx.takes_entity ? undefined : version);
    if (pinners.length > 0) throw inUse(ctx.entity, version, pinners);
    await dropPins(tx, { kind: "template", id: ctx.entity.id, version });
  }
}
