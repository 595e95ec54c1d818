/**
 * Templates (docs/authoring.md): the template service over the shared version lifecycle, the pins
 * that pipelines and templates hold on template versions, and the sandboxed Liquid renderer.
 */
export { scanPlaceholders, type SqlFlavor } from "./placeholders.ts";
export {
  dropPins,
  type PinnerRef,
  pinnersOf,
  type PinRequest,
  recordPins,
  type ResolvedPin,
  resolvePins,
  type TemplatePin,
} from "./pins.ts";
export {
  DEFAULT_RENDER_LIMITS,
  IMPORT_ALIAS_RE,
  type ImportLoader,
  type ImportRef,
  type RenderedSql,
  type RenderLimits,
  type RenderRequest,
  renderTemplate,
  type ResolvedImport,
  type TemplateDialect,
  type TemplateSource,
} from "./render.ts";
export { type PreviewInput, type RenderInput } from "./rendering.ts";
export { TemplateService, type TemplateServiceOptions } from "./service.ts";
// A workspace holding templates cannot be deleted (`workspace.in_use`; see services.ts).
export { countTemplates } from "./repo.ts";
export {
  createTemplateSchema,
  libraryImportSchema,
  TEMPLATE_DIALECTS,
  TEMPLATE_TYPES,
  type TemplateFilter,
  type TemplateFolderLevel,
  type TemplateListRow,
  type TemplateType,
  type TemplateView,
  updateTemplateSchema,
} from "./types.ts";
export {
  importTemplateVersion,
  type TemplateVersionPayload,
  verifyTemplateVersion,
} from "./import_version.ts";
export {
  importRefView,
  libraryImportView,
  renderedSqlView,
  templateFolderView,
  templatePinnerView,
  templatePurgedView,
  templateRowView,
  templateView,
} from "./views.ts";
