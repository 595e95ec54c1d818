/**
 * What a template version holds and the rules a save applies to it
 * (docs/authoring.md#authoring-templates): the id is a folder path, the type is fixed at creation,
 * sql templates carry one of the five dialects and html templates none, imports pin existing
 * versions of the same workspace under aliases the renderer accepts. The hashed content is `{id,
 * type, dialect, imports, body}`: naming the id makes a hash taken from another template stale
 * here, and display_name/description stay on the index row, outside the hash.
 */
import { AppError } from "../errors/mod.ts";
import { folderPathDefect } from "../lib/folder_path.ts";
import type { Queryable } from "../store/mod.ts";
import type { JsonObject, VersionRow } from "../versions/mod.ts";
import { type ResolvedPin, resolvePins } from "./pins.ts";
import {
  checkTemplateSyntax,
  IMPORT_ALIAS_RE,
  type ImportRef,
  type TemplateDialect,
} from "./render.ts";
import { TEMPLATE_DIALECTS, type TemplateContent, type TemplateType } from "./types.ts";

/** 400 `template.validation.id_invalid` unless `id` is a folder path. */
export function checkId(id: string): string {
  const defect = folderPathDefect(id);
  if (defect) {
    throw new AppError("template.validation.id_invalid", {
      id: id.slice(0, 250),
      reason: defect.reason,
      detail: defect.detail,
    });
  }
  return id;
}

/** A generated id under `test/` for a create without one. */
export function generatedId(): string {
  return `test/template-${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
}

/**
 * The dialect a save stores: required and known for sql, absent for html, and (on an update) the
 * established one. `given` null/undefined on an update inherits.
 */
export function checkDialect(
  type: TemplateType,
  given: string | null | undefined,
  established: { template_id: string; dialect: string | null } | null,
): TemplateDialect | undefined {
  const refuse = (reason: string) =>
    new AppError("template.validation.dialect_invalid", {
      dialect: given ?? null,
      established_dialect: established?.dialect ?? null,
      template_id: established?.template_id ?? null,
      reason,
    });
  if (type === "html") {
    if (given !== undefined && given !== null) throw refuse("an html template has no dialect");
    return undefined;
  }
  if (given === undefined || given === null) {
    if (established?.dialect) return established.dialect as TemplateDialect;
    throw refuse(`a sql template needs one of ${TEMPLATE_DIALECTS.join(", ")}`);
  }
  if (!(TEMPLATE_DIALECTS as readonly string[]).includes(given)) {
    throw refuse(`${given} is not one of ${TEMPLATE_DIALECTS.join(", ")}`);
  }
  if (established && established.dialect !== given) {
    throw refuse(`a template keeps the dialect it was created with (${established.dialect})`);
  }
  return given as TemplateDialect;
}

function importError(
  index: number,
  ref: Partial<ImportRef>,
  reason: string,
): AppError {
  return new AppError("template.validation.import_invalid", {
    field: `imports[${index}]`,
    import_id: ref.id ?? null,
    import_version: ref.version ?? null,
    alias: ref.alias ?? null,
    reason,
  });
}

/**
 * Checks the imports of a version about to be saved by template `selfName` and resolves them to
 * the pinned versions: aliases by the renderer's grammar and unique, each an existing version of
 * the same workspace, of the same type (and dialect, for sql), never the template itself.
 */
export async function resolveImports(
  tx: Queryable,
  workspaceId: string,
  self: { name: string; type: TemplateType; dialect: TemplateDialect | undefined },
  imports: readonly ImportRef[],
): Promise<ResolvedPin[]> {
  const aliases = new Set<string>();
  imports.forEach((ref, i) => {
    if (!IMPORT_ALIAS_RE.test(ref.alias)) {
      throw importError(i, ref, `the alias must match ${IMPORT_ALIAS_RE.source}`);
    }
    if (aliases.has(ref.alias)) throw importError(i, ref, `the alias '${ref.alias}' repeats`);
    aliases.add(ref.alias);
    if (ref.id === self.name) throw importError(i, ref, "a template cannot import itself");
  });
  const { resolved, missing } = await resolvePins(tx, workspaceId, imports);
  if (missing.length > 0) {
    const i = imports.indexOf(missing[0] as ImportRef);
    throw importError(i, missing[0], "no such template version in this workspace");
  }
  resolved.forEach((pin, i) => {
    if (pin.type !== self.type) {
      throw importError(i, imports[i], `a ${self.type} template cannot import a ${pin.type} one`);
    }
    if (self.type === "sql" && pin.dialect !== self.dialect) {
      throw importError(
        i,
        imports[i],
        `the imported template is ${pin.dialect}, this one ${self.dialect}`,
      );
    }
  });
  return resolved;
}

/**
 * The body of a sql version must parse as the renderer's Liquid before it is stored; html
 * templates are not rendered by the service, so their body is kept as given.
 */
export async function checkBody(
  id: string,
  type: TemplateType,
  imports: readonly ImportRef[],
  body: string,
): Promise<void> {
  if (type === "sql") await checkTemplateSyntax({ template: { id }, body, imports });
}

/** The hashed content of a version (as the lifecycle stores it), with keys only where set. */
export function contentOf(
  id: string,
  type: TemplateType,
  dialect: TemplateDialect | undefined,
  imports: readonly ImportRef[],
  body: string,
): JsonObject {
  const content: TemplateContent = {
    id,
    type,
    ...(dialect ? { dialect } : {}),
    imports: imports.map((r) => ({ alias: r.alias, id: r.id, version: r.version })),
    body,
  };
  return content as unknown as JsonObject;
}

/** The content a stored version holds (only this domain writes template version bodies). */
export function storedContent(row: VersionRow): TemplateContent {
  return row.body as unknown as TemplateContent;
}
