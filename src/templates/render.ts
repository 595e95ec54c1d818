/**
 * The SQL template renderer (docs/authoring.md#sql-templates): Liquid in a sandbox, storage-free.
 * The caller hands in the template body, its pinned imports already resolved, a loader for imports
 * of imports, and the parameter map that templates read as `params`. The answer is the SQL with
 * `:name` placeholders, the placeholders it binds and the imports it used.
 *
 * Parameters never become SQL text: a template names one as `:name` and may only test it in
 * control flow; printing it, by any path, is `template.render.parameter_interpolation`. A list
 * parameter binds as one placeholder (`IN (:regions)`), which the connector expands to one marker
 * per item.
 */
import { LiquidError, type Template, type Token } from "liquidjs";
import { AppError } from "../errors/mod.ts";
import { scanPlaceholders, type SqlFlavor } from "./placeholders.ts";
import {
  type ImportTable,
  ParameterLeak,
  RenderLimit,
  type RenderLimits,
  SqlLiquid,
  UnknownImport,
} from "./sandbox.ts";
import { inertParams, Tainted } from "./taint.ts";
import { type PoolOptions, renderPool, type SyntaxCheck } from "./render_pool.ts";
import { utf8Length } from "../lib/utf8.ts";

export type { RenderLimits } from "./sandbox.ts";

/**
 * A template's dialect (docs/authoring.md#authoring-templates); decides how placeholders are read.
 */
export type TemplateDialect = "POSTGRES" | "MYSQL" | "SQLITE" | "DUCKDB" | "LAKE";

/** An import pin: the template `id` at `version`, reachable as `alias`. */
export interface ImportRef {
  alias: string;
  id: string;
  version: number;
}

/** What the loader answers for one template version. */
export interface TemplateSource {
  body: string;
  imports: ImportRef[];
}

/** A pinned import with its body (and its own pins) already read by the caller. */
export interface ResolvedImport extends ImportRef, TemplateSource {}

/**
 * Reads a pinned template version for an import of an import. It throws the caller's own error
 * (e.g. `template.not_found`) when the version is gone; the renderer passes that error on.
 */
export type ImportLoader = (id: string, version: number) => Promise<TemplateSource>;

export interface RenderRequest {
  /** The template being rendered, named in error details; absent for an unsaved body. */
  template?: { id: string; version?: number | null };
  body: string;
  dialect: TemplateDialect;
  imports: ResolvedImport[];
  /** The parameter map, read as `params` (the route's `context`). */
  params?: Record<string, unknown>;
  /** Needed only when an import's body renders imports of its own. */
  loadImport?: ImportLoader;
  limits?: Partial<RenderLimits>;
}

export interface RenderedSql {
  sql: string;
  /** Placeholder names in first-seen order, each once. */
  placeholders: string[];
  /** Imports actually rendered, at any depth, in first-use order, each once. */
  imports: ImportRef[];
}

/** Import aliases follow the node id grammar, so an alias can never look like a path. */
export const IMPORT_ALIAS_RE = /^[a-z][a-z0-9_]{0,63}$/;

export const DEFAULT_RENDER_LIMITS: Readonly<RenderLimits> = Object.freeze({
  max_depth: 10,
  max_output_bytes: 1024 * 1024,
  max_time_ms: 2000,
  max_memory: 10_000_000,
  max_source_chars: 1024 * 1024,
  max_tags: 5_000,
});

const FLAVORS: Record<TemplateDialect, SqlFlavor> = {
  POSTGRES: "postgres",
  MYSQL: "mysql",
  SQLITE: "sqlite",
  DUCKDB: "duckdb",
  // Lake tables are read through DuckDB.
  LAKE: "duckdb",
};

const LIQUID_LIMITS: Record<string, RenderLimit["limit"]> = {
  "memory alloc limit exceeded": "memory",
  "template render limit exceeded": "time",
  "parse length limit exceeded": "source_size",
};

/**
 * Renders a SQL template in a worker of the render pool; every refusal is an `AppError` of the
 * `template.render.*` family, and a render past its time limit (or aborted by `signal`) stops
 * wherever it is.
 */
export async function renderTemplate(
  request: RenderRequest & PoolOptions,
): Promise<RenderedSql> {
  const { loadImport, signal, ...rest } = request;
  const limits = withDefaults(request.limits);
  // Checked here so what crosses to the worker is plain data (a function in it would not).
  inertParams(request.params);
  const job = { kind: "render" as const, request: rest, canLoad: loadImport !== undefined };
  return (await renderPool().run(job, limits.max_time_ms, loadImport, signal))!;
}

/**
 * Parses a sql template body without rendering it, in a worker of the render pool (see
 * `checkSyntaxInProcess`).
 */
export async function checkTemplateSyntax(request: SyntaxCheck): Promise<void> {
  const job = { kind: "check" as const, request: { ...request, imports: [...request.imports] } };
  await renderPool().run(job, DEFAULT_RENDER_LIMITS.max_time_ms, undefined, undefined);
}

/** The renderer itself, as a render worker runs it. */
export async function renderInProcess(request: RenderRequest): Promise<RenderedSql> {
  const limits = withDefaults(request.limits);
  if (!Object.hasOwn(FLAVORS, request.dialect)) {
    throw invalid("dialect", `must be one of ${Object.keys(FLAVORS).join(", ")}`);
  }
  const flavor = FLAVORS[request.dialect];
  if (typeof request.body !== "string") throw invalid("body", "must be a string");
  const params = inertParams(request.params);
  const graph = new ImportGraph(request, limits);
  try {
    await graph.load();
    const out = await graph.liquid.render(graph.root.templates, Object.create(null), {
      globals: Object.assign(Object.create(null), { params: Tainted.root(params) }),
    });
    const sql = String(out);
    if (utf8Length(sql) > limits.max_output_bytes) {
      throw new RenderLimit("output_size", limits.max_output_bytes);
    }
    return { sql, placeholders: scanPlaceholders(sql, flavor), imports: graph.used };
  } catch (error) {
    throw explain(error, graph);
  }
}

/**
 * Parses a sql template body without rendering it, with the engine and alias table a render uses:
 * a save calls it so Liquid that does not parse (`template.render.syntax_error` with line and
 * column) or a `render`/`include` of an alias the template does not import
 * (`template.render.unknown_import`) is refused when written rather than at its first run.
 * Imports are not read: each version is checked when it is saved.
 */
export function checkSyntaxInProcess(request: SyntaxCheck): void {
  const graph = new ImportGraph({
    template: request.template,
    body: request.body,
    dialect: "POSTGRES",
    imports: request.imports.map((ref) => ({ ...ref, body: "", imports: [] })),
  }, withDefaults());
  try {
    graph.parseRoot();
  } catch (error) {
    throw explain(error, graph);
  }
}

/** The defaults, overridden only by limits actually given (an undefined one must not lift it). */
function withDefaults(given: Partial<RenderLimits> = {}): RenderLimits {
  const limits = { ...DEFAULT_RENDER_LIMITS };
  for (const key of Object.keys(limits) as (keyof RenderLimits)[]) {
    const value = given[key];
    if (value !== undefined) {
      if (!(typeof value === "number" && value > 0)) throw invalid(`limits.${key}`, "must be > 0");
      limits[key] = value;
    }
  }
  return limits;
}

/** One template version in this render: the root or an import. */
interface Unit {
  key: string;
  id: string | null;
  version: number | null;
  /** The alias it was first reached by; null for the root. */
  alias: string | null;
  body: string;
  imports: Map<string, ImportRef>;
  templates: Template[];
  /** Aliases its `render`/`include` tags name, found while parsing. */
  referenced: Set<string>;
  /** Alias → the loaded unit it names. */
  links: Map<string, Unit>;
}

/** The templates reachable from the root, parsed up front; the engine's `ImportTable`. */
class ImportGraph implements ImportTable {
  readonly liquid: SqlLiquid;
  readonly root: Unit;
  readonly used: ImportRef[] = [];
  readonly #units = new Map<string, Unit>();
  readonly #byVersion = new Map<string, Unit>();
  readonly #given = new Map<string, TemplateSource>();
  readonly #usedKeys = new Set<string>();
  readonly #loader: ImportLoader | undefined;
  readonly limits: RenderLimits;
  #sourceChars = 0;
  #tags = 0;

  constructor(request: RenderRequest, limits: RenderLimits) {
    this.limits = limits;
    this.#loader = request.loadImport;
    this.liquid = new SqlLiquid(this, limits);
    const imports = checkImports(request.imports, "imports");
    request.imports.forEach((imp, i) => {
      if (typeof imp.body !== "string") throw invalid(`imports[${i}].body`, "must be a string");
      const nested = checkImports(imp.imports, `imports[${i}].imports`);
      this.#given.set(versionKey(imp), { body: imp.body, imports: [...nested.values()] });
    });
    const template = request.template;
    this.root = this.#unit(template?.id ?? null, template?.version ?? null, null, {
      body: request.body,
      imports: [...imports.values()],
    });
  }

  parseRoot(): void {
    this.#parse(this.root);
  }

  /** Parses the root, then each referenced import breadth first, down to the depth limit. */
  async load(): Promise<void> {
    this.parseRoot();
    let frontier = [this.root];
    for (let depth = 1; depth <= this.limits.max_depth && frontier.length > 0; depth++) {
      const next: Unit[] = [];
      for (const unit of frontier) {
        for (const alias of unit.referenced) {
          const ref = unit.imports.get(alias)!;
          let target = this.#byVersion.get(versionKey(ref));
          if (!target) {
            const source = this.#given.get(versionKey(ref)) ?? await this.#load(ref);
            target = this.#unit(ref.id, ref.version, alias, source);
            this.#parse(target);
            next.push(target);
          }
          unit.links.set(alias, target);
        }
      }
      frontier = next;
    }
  }

  reference(file: string | undefined, alias: string): void {
    const unit = file === undefined ? undefined : this.#units.get(file);
    if (!unit || !unit.imports.has(alias)) {
      throw new UnknownImport(alias, unit ? [...unit.imports.keys()] : []);
    }
    unit.referenced.add(alias);
  }

  partial(file: string | undefined, alias: string): Template[] {
    const unit = file === undefined ? undefined : this.#units.get(file);
    const target = unit?.links.get(alias);
    // Every referenced alias within the depth limit was linked by load().
    if (!target) throw new RenderLimit("depth", this.limits.max_depth);
    const ref = unit!.imports.get(alias)!;
    const key = `${alias}\u0000${versionKey(ref)}`;
    if (!this.#usedKeys.has(key)) {
      this.#usedKeys.add(key);
      this.used.push({ alias, id: ref.id, version: ref.version });
    }
    return target.templates;
  }

  /**
   * The template a liquidjs token belongs to: tokens carry the unit key as their file, except the
   * few liquidjs makes without one (e.g. for undefined variables), which still carry the source.
   */
  unitOf(token: Token | undefined): Unit | undefined {
    if (!token) return undefined;
    if (token.file !== undefined) return this.#units.get(token.file);
    for (const unit of this.#units.values()) if (unit.body === token.input) return unit;
    return undefined;
  }

  async #load(ref: ImportRef): Promise<TemplateSource> {
    if (!this.#loader) throw new Error(`no import loader to read ${ref.id} version ${ref.version}`);
    const source = await this.#loader(ref.id, ref.version);
    if (typeof source?.body !== "string") {
      throw new Error(`the import loader answered no body for ${ref.id} version ${ref.version}`);
    }
    checkImports(source.imports, `${ref.id}@${ref.version}.imports`);
    return source;
  }

  #unit(id: string | null, version: number | null, alias: string | null, source: TemplateSource) {
    const unit: Unit = {
      key: `t${this.#units.size}`,
      id,
      version,
      alias,
      body: source.body,
      imports: new Map(source.imports.map((ref) => [ref.alias, ref])),
      templates: [],
      referenced: new Set(),
      links: new Map(),
    };
    this.#units.set(unit.key, unit);
    if (id !== null && version !== null) this.#byVersion.set(versionKey({ id, version }), unit);
    return unit;
  }

  #parse(unit: Unit): void {
    this.#sourceChars += unit.body.length;
    if (this.#sourceChars > this.limits.max_source_chars) {
      throw new RenderLimit("source_size", this.limits.max_source_chars);
    }
    this.#tags += countTags(unit.body);
    if (this.#tags > this.limits.max_tags) throw new RenderLimit("tags", this.limits.max_tags);
    unit.templates = this.liquid.parse(unit.body, unit.key);
  }
}

function countTags(body: string): number {
  let count = 0;
  for (let i = body.indexOf("{"); i >= 0 && i < body.length - 1; i = body.indexOf("{", i + 1)) {
    const next = body[i + 1];
    if (next === "{" || next === "%") {
      count++;
      i++;
    }
  }
  return count;
}

function versionKey(ref: { id: string; version: number }): string {
  return `${ref.id}@${ref.version}`;
}

/** Import pins by alias; refuses malformed pins and a repeated alias. */
function checkImports(imports: unknown, field: string): Map<string, ImportRef> {
  if (!Array.isArray(imports)) throw invalid(field, "must be an array");
  const out = new Map<string, ImportRef>();
  imports.forEach((imp: Partial<ImportRef>, i) => {
    const at = `${field}[${i}]`;
    if (typeof imp?.alias !== "string" || !IMPORT_ALIAS_RE.test(imp.alias)) {
      throw invalid(`${at}.alias`, `must match ${IMPORT_ALIAS_RE.source}`);
    }
    if (typeof imp.id !== "string" || imp.id.length === 0) throw invalid(`${at}.id`, "required");
    if (!Number.isSafeInteger(imp.version) || imp.version! < 1) {
      throw invalid(`${at}.version`, "must be a positive integer");
    }
    if (out.has(imp.alias)) throw invalid(`${at}.alias`, `repeats the alias '${imp.alias}'`);
    out.set(imp.alias, { alias: imp.alias, id: imp.id, version: imp.version! });
  });
  return out;
}

function invalid(field: string, reason: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", { field, reason });
}

/** Where in which template an error happened, as error details; `at` says it in words. */
function locate(token: Token | undefined, graph: ImportGraph): Location {
  const unit = graph.unitOf(token);
  const [line, column] = token ? token.getPosition() : [null, null];
  const position = line === null ? UNKNOWN_POSITION : `line ${line}, column ${column}`;
  return {
    template: unit?.id ?? null,
    version: unit?.version ?? null,
    alias: unit?.alias ?? null,
    line,
    column,
    at: unit ? `${position} of template ${unit.id}` : position,
  };
}

/** liquidjs appends `, file:…, line:…, col:…` to its messages; details carry those apart. */
function bareMessage(message: string): string {
  return message.replace(/(, file:\S+)?, line:\d+, col:\d+$/, "");
}

/** Turns whatever rendering threw into the catalogue's answer. */
function explain(error: unknown, graph: ImportGraph): unknown {
  if (error instanceof AppError) return error;
  if (!LiquidError.is(error)) {
    return explainCause(error, { at: UNKNOWN_POSITION }, graph.limits) ?? error;
  }
  const liquidError = error as LiquidError & { originalError?: unknown; token?: Token };
  const where = locate(liquidError.token, graph);
  const cause = liquidError.originalError;
  const known = explainCause(cause, where, graph.limits);
  if (known) return known;
  const message = bareMessage(cause instanceof Error ? cause.message : liquidError.message);
  if (liquidError.name === "ParseError" || liquidError.name === "TokenizationError") {
    return new AppError("template.render.syntax_error", { ...where, message });
  }
  return new AppError("template.render.failed", { ...where, message });
}

const UNKNOWN_POSITION = "an unknown position";

interface Location {
  template: string | null;
  version: number | null;
  alias: string | null;
  line: number | null;
  column: number | null;
  at: string;
}

function explainCause(
  cause: unknown,
  where: Location | { at: string },
  limits: RenderLimits,
): AppError | null {
  if (cause instanceof AppError) return cause;
  if (cause instanceof ParameterLeak) {
    return new AppError("template.render.parameter_interpolation", {
      parameter: cause.parameter,
      path: cause.path,
      ...where,
    });
  }
  if (cause instanceof RenderLimit) {
    return new AppError("template.render.limit_exceeded", { limit: cause.limit, max: cause.max });
  }
  if (cause instanceof UnknownImport) {
    return new AppError("template.render.unknown_import", {
      name: cause.importName,
      known: cause.known,
      ...where,
    });
  }
  if (cause instanceof Error && LIQUID_LIMITS[cause.message]) {
    const limit = LIQUID_LIMITS[cause.message];
    const max = { memory: limits.max_memory, time: limits.max_time_ms }[limit as string] ??
      limits.max_source_chars;
    return new AppError("template.render.limit_exceeded", { limit, max });
  }
  return null;
}
