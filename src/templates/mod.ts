/** SQL templates: the sandboxed Liquid renderer (template storage and versions come later). */
export { scanPlaceholders, type SqlFlavor } from "./placeholders.ts";
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
