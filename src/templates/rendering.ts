/**
 * Rendering a workspace's sql templates: a stored version, or text not yet saved (the editor's
 * preview) exactly as a saved version would render. Either way the imports, and theirs, are read
 * from the same workspace at their pinned versions, and `context` is `params`.
 */
import { AppError } from "../errors/mod.ts";
import type { EntityRow, VersionLifecycle } from "../versions/mod.ts";
import { checkDialect, storedContent } from "./content.ts";
import {
  type ImportRef,
  type RenderedSql,
  renderTemplate,
  type TemplateDialect,
  type TemplateSource,
} from "./render.ts";

/** What a render request names: a version (the working one when absent) and the parameters. */
export interface RenderInput {
  name: string;
  version?: number;
  context?: Record<string, unknown>;
}

/** Unsaved template text to render: the editor's preview. */
export interface PreviewInput {
  id?: string;
  dialect: string;
  body: string;
  imports: ImportRef[];
  context?: Record<string, unknown>;
}

/** What rendering reads through the template service. */
export interface TemplateReader {
  lifecycle: VersionLifecycle;
  /** The workspace's template called `name`; `template.not_found` when there is none. */
  entity(workspaceId: string, name: string): Promise<EntityRow>;
  /** The version a render that names none uses: the draft, else the current one. */
  workingNumber(entity: EntityRow): Promise<number>;
}

/** Renders a stored sql template version (the working one when `version` is absent). */
export async function renderStored(
  reader: TemplateReader,
  workspaceId: string,
  input: RenderInput,
): Promise<RenderedSql> {
  const entity = await reader.entity(workspaceId, input.name);
  const number = input.version ?? await reader.workingNumber(entity);
  const row = await reader.lifecycle.version(workspaceId, entity.id, number);
  const content = storedContent(row);
  if (content.type !== "sql") {
    throw new AppError("template.render.type_unsupported", {
      template_id: entity.name,
      version: number,
      type: content.type,
    });
  }
  return await renderSource(reader, workspaceId, {
    template: { id: entity.name, version: number },
    body: content.body,
    dialect: content.dialect!,
    imports: content.imports,
    context: input.context ?? {},
  });
}

/** Renders unsaved text as version 0 of its id (or of "(unsaved)"). */
export async function renderPreview(
  reader: TemplateReader,
  workspaceId: string,
  input: PreviewInput,
): Promise<RenderedSql> {
  const dialect = checkDialect("sql", input.dialect, null)!;
  return await renderSource(reader, workspaceId, {
    template: { id: input.id || "(unsaved)", version: 0 },
    body: input.body,
    dialect,
    imports: input.imports,
    context: input.context ?? {},
  });
}

async function renderSource(
  reader: TemplateReader,
  workspaceId: string,
  source: {
    template: { id: string; version: number };
    body: string;
    dialect: TemplateDialect;
    imports: ImportRef[];
    context: Record<string, unknown>;
  },
): Promise<RenderedSql> {
  const load = async (id: string, version: number): Promise<TemplateSource> => {
    const target = await reader.entity(workspaceId, id);
    const c = storedContent(await reader.lifecycle.version(workspaceId, target.id, version));
    return { body: c.body, imports: c.imports };
  };
  const imports = [];
  for (const ref of source.imports) imports.push({ ...ref, ...await load(ref.id, ref.version) });
  return await renderTemplate({
    template: source.template,
    body: source.body,
    dialect: source.dialect,
    imports,
    params: source.context,
    loadImport: load,
  });
}
