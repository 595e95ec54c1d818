/**
 * The Liquid engine the renderer runs: liquidjs with its file system removed, imports resolved
 * only through the caller's alias table, parameters tainted (see `taint.ts`) and every limit
 * enforced. One `SqlLiquid` serves one render call, so its depth counter and used-import log
 * belong to that call alone.
 *
 * What changes from stock liquidjs, and why:
 * - `if`, `unless`, `case`, `for` and `render … for` look through taint: parameters may steer
 *   control flow. Everything else that turns a value into text goes through liquidjs's `toValue`,
 *   which a Tainted refuses, so new output paths are refused by default rather than allowed.
 * - Operators and filters are wrapped so their results stay tainted when an input was.
 * - `layout`, `block`, `tablerow`, `increment` and `decrement` are gone: the first two load files,
 *   the third writes HTML, the last two write counters into the scope that holds `params`.
 * - `render`/`include` take a quoted alias only, checked at parse time against the including
 *   template's own imports.
 */
import {
  CaseTag,
  type Context,
  defaultOperators,
  type Emitter,
  evalToken,
  type FilterImplOptions,
  filters,
  ForTag,
  type FS,
  IfTag,
  IncludeTag,
  Liquid,
  type Operators,
  type Parser,
  RenderTag,
  type TagToken,
  type Template,
  type TopLevelToken,
  toValue,
  UnlessTag,
  type Value,
} from "liquidjs";
import { firstTaint, ParameterLeak, Poison, Tainted, untaint } from "./taint.ts";

/** The limits one render call runs under. */
export interface RenderLimits {
  /** Nested `render`/`include` levels. */
  max_depth: number;
  /** UTF-8 bytes of rendered SQL (also bounds each `capture`). */
  max_output_bytes: number;
  /** Wall-clock milliseconds of rendering. */
  max_time_ms: number;
  /** liquidjs's allocation budget: array items and string characters created by filters and ranges. */
  max_memory: number;
  /** Characters of template source, summed over the template and every import loaded. */
  max_source_chars: number;
  /**
   * Liquid tags (`{{` and `{%`), summed like the source. liquidjs parses tag-dense source in
   * worse than linear time (5,000 `if` blocks take about 0.3 s, 10,000 about 2 s), so the count is
   * bounded before the parse starts, at save and at render alike.
   */
  max_tags: number;
}

/** A limit was reached; `limit` names it as `details.limit` does. */
export class RenderLimit extends Error {
  constructor(
    readonly limit: "depth" | "output_size" | "time" | "memory" | "source_size" | "tags",
    readonly max: number,
  ) {
    super(`the ${limit} limit of ${max} was exceeded`);
    this.name = "RenderLimit";
  }
}

/** A `render`/`include` names something that is not an import alias of its template. */
export class UnknownImport extends Error {
  constructor(readonly importName: string, readonly known: string[]) {
    super(`'${importName}' is not an import alias of this template`);
    this.name = "UnknownImport";
  }
}

/** How the engine reaches the import graph; implemented by the renderer. */
export interface ImportTable {
  /** Throws `UnknownImport` unless `alias` is an import of the template parsed as `file`. */
  reference(file: string | undefined, alias: string): void;
  /** The parsed templates `alias` names from `file`, recording the import as used. */
  partial(file: string | undefined, alias: string): Template[];
}

const REFUSED_TAGS = ["layout", "block", "tablerow", "increment", "decrement"];
const UNARY = new Set(["not"]);

/** No template is ever read from disk: every file operation fails. */
const noFiles: FS = {
  exists: () => Promise.resolve(false),
  existsSync: () => false,
  readFile: () => Promise.reject(new Error("templates have no file system")),
  readFileSync: () => {
    throw new Error("templates have no file system");
  },
  resolve: (_dir, file) => file,
  contains: () => Promise.resolve(false),
  containsSync: () => false,
};

/** liquidjs's `stringify`, with the output cap applied as text accumulates. */
class CappedEmitter implements Emitter {
  buffer = "";
  constructor(private readonly maxChars: number, private readonly maxBytes: number) {}

  write(html: unknown): void {
    this.buffer += text(html);
    // Characters never outnumber UTF-8 bytes, so this is a cheap early stop.
    if (this.buffer.length > this.maxChars) throw new RenderLimit("output_size", this.maxBytes);
  }
}

function text(value: unknown): string {
  const v = toValue(value);
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(text).join("");
  return String(v);
}

/** A stand-in token whose evaluation is an already computed value (see `evalToken`). */
function computed<T>(content: unknown, original: T): T {
  const source = original as { getText(): string };
  return { content, getText: () => source.getText() } as unknown as T;
}

/** Runs `value` and hands back what is behind its taint, for a test of truth. */
function untainted(value: Value): Value {
  return Object.create(value, {
    value: {
      value: function* (ctx: Context, lenient?: boolean) {
        return untaint(yield value.value(ctx, lenient));
      },
    },
  });
}

/** The items a loop visits: a tainted collection yields tainted items. */
function loopItems(value: unknown): unknown {
  return value instanceof Tainted ? value.items() : value;
}

class SafeIf extends IfTag {
  constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid, parser: Parser) {
    super(token, remain, liquid, parser);
    this.branches = this.branches.map((b) => ({ ...b, value: untainted(b.value) }));
  }
}

class SafeUnless extends UnlessTag {
  constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid, parser: Parser) {
    super(token, remain, liquid, parser);
    const self = this as unknown as { branches: { value: Value }[] };
    self.branches = self.branches.map((b) => ({ ...b, value: untainted(b.value) }));
  }
}

class SafeCase extends CaseTag {
  override *render(ctx: Context, emitter: Emitter): Generator<unknown, void, unknown> {
    const r = this.liquid.renderer;
    const lenient = ctx.opts.lenientIf;
    const target = toValue(untaint(yield this.value.value(ctx, lenient)));
    // As in liquidjs, every matching `when` renders, each at most once.
    let hit = false;
    for (const branch of this.branches) {
      for (const token of branch.values) {
        const candidate = untaint(yield evalToken(token, ctx, lenient));
        if (yield defaultOperators["=="](target, candidate, ctx)) {
          yield r.renderTemplates(branch.templates, ctx, emitter);
          hit = true;
          break;
        }
      }
    }
    if (!hit) yield r.renderTemplates(this.elseTemplates, ctx, emitter);
  }
}

class SafeFor extends ForTag {
  override *render(ctx: Context, emitter: Emitter): Generator<unknown, void | string, Template[]> {
    const value = yield evalToken(this.collection, ctx);
    // A per-call view keeps the parsed tag reusable while a loop over it is still running.
    const view = Object.create(this, {
      collection: { value: computed(loopItems(value), this.collection) },
    });
    return yield* ForTag.prototype.render.call(view, ctx, emitter);
  }
}

/** Parse-time checks shared by `render` and `include`. */
function checkImportName(tag: { file?: unknown }, token: TagToken, liquid: Liquid): string {
  if (typeof tag.file !== "string") {
    throw new Error(`${token.name} takes a quoted import alias, e.g. {% ${token.name} 'alias' %}`);
  }
  (liquid as SqlLiquid).imports.reference(token.file, tag.file);
  return tag.file;
}

class SafeRender extends RenderTag {
  constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid, parser: Parser) {
    super(token, remain, liquid, parser);
    checkImportName(this as unknown as { file?: unknown }, token, liquid);
  }

  override *render(ctx: Context, emitter: Emitter): Generator<unknown, void, unknown> {
    const binding = (this as unknown as { forBinding?: { value: unknown; alias?: string } })
      .forBinding;
    const items = binding
      ? loopItems(yield evalToken(binding.value as Parameters<typeof evalToken>[0], ctx))
      : undefined;
    const target: RenderTag = binding
      ? Object.create(this, {
        forBinding: { value: { value: computed(items, binding.value), alias: binding.alias } },
      })
      : this;
    yield* (this.liquid as SqlLiquid).nested(RenderTag.prototype.render.call(target, ctx, emitter));
  }
}

class SafeInclude extends IncludeTag {
  constructor(token: TagToken, remain: TopLevelToken[], liquid: Liquid, parser: Parser) {
    super(token, remain, liquid, parser);
    checkImportName(this as unknown as { file?: unknown }, token, liquid);
  }

  override *render(ctx: Context, emitter: Emitter): Generator<unknown, void, unknown> {
    yield* (this.liquid as SqlLiquid).nested(IncludeTag.prototype.render.call(this, ctx, emitter));
  }
}

/** Operators that compare what is behind the taint and keep the taint on their result. */
function taintedOperators(): Operators {
  const out: Operators = {};
  for (const [name, op] of Object.entries(defaultOperators)) {
    const arity = UNARY.has(name) ? 1 : 2;
    out[name] = function* (...args: unknown[]): Generator<unknown, boolean, unknown> {
      const operands = args.slice(0, arity);
      const source = firstTaint(operands);
      const call = op as (...a: unknown[]) => unknown;
      const result = yield call(...operands.map((v) => untaint(v)), args[arity]);
      return (source ? source.derive(result) : result) as boolean;
    };
  }
  return out;
}

/**
 * A filter that runs on what is behind the taint and taints its result. The `*_exp` filters parse
 * an argument as a Liquid expression: a parameter there would be template code, so it is refused.
 */
function taintedFilter(name: string, impl: FilterImplOptions): FilterImplOptions {
  const handler = typeof impl === "function" ? impl : impl.handler;
  return function* (
    this: unknown,
    value: unknown,
    ...args: unknown[]
  ): Generator<unknown, unknown, unknown> {
    const source = firstTaint([value, ...args]);
    if (!source) return yield handler.call(this as never, value, ...args);
    if (name.endsWith("_exp")) {
      const inArgs = firstTaint(args);
      if (inArgs) throw inArgs.leak();
    }
    const poisoned = [value, ...args].find((v) => v instanceof Tainted && v.poisoned);
    if (poisoned) return poisoned;
    try {
      const result = yield handler.call(
        this as never,
        untaint(value),
        ...args.map((a) => untaint(a)),
      );
      return source.derive(result);
    } catch (error) {
      // A filter failing on a parameter must not decide whether printing it is refused.
      if (error instanceof ParameterLeak || isLimit(error)) throw error;
      return source.derive(new Poison(error));
    }
  };
}

/** liquidjs's limiters fail with `… limit exceeded`; those stop the render wherever they hit. */
function isLimit(error: unknown): boolean {
  return error instanceof Error && error.message.endsWith("limit exceeded");
}

// Stateless, so built once for every engine.
const TAINTED_OPERATORS = taintedOperators();
const TAINTED_FILTERS = Object.entries(filters).map(([name, impl]) =>
  [name, taintedFilter(name, impl)] as const
);
const WRAPPED = new Set<FilterImplOptions>(TAINTED_FILTERS.map(([, impl]) => impl));

/** One render call's engine. */
export class SqlLiquid extends Liquid {
  readonly imports: ImportTable;
  readonly #maxDepth: number;
  #depth = 0;

  constructor(imports: ImportTable, limits: RenderLimits) {
    super({
      fs: noFiles,
      root: [],
      partials: [],
      layouts: [],
      relativeReference: false,
      dynamicPartials: true,
      cache: false,
      strictFilters: true,
      strictVariables: true,
      ownPropertyOnly: true,
      lenientIf: false,
      jsTruthy: false,
      keepOutputType: false,
      catchAllErrors: false,
      operators: TAINTED_OPERATORS,
      parseLimit: limits.max_source_chars,
      renderLimit: limits.max_time_ms,
      memoryLimit: limits.max_memory,
    });
    this.imports = imports;
    this.#maxDepth = limits.max_depth;
    for (const name of REFUSED_TAGS) delete this.tags[name];
    this.registerTag("if", SafeIf);
    this.registerTag("unless", SafeUnless);
    this.registerTag("case", SafeCase);
    this.registerTag("for", SafeFor);
    this.registerTag("render", SafeRender);
    this.registerTag("include", SafeInclude);
    for (const [name, impl] of TAINTED_FILTERS) this.registerFilter(name, impl);
    // A filter a future liquidjs registers outside its `filters` export would see raw values.
    const unwrapped = Object.values(this.filters).filter((f) => !WRAPPED.has(f));
    if (unwrapped.length > 0) throw new Error("a liquidjs filter escaped the taint wrapper");
    const renderer = this.renderer;
    const base = renderer.renderTemplates.bind(renderer);
    const maxBytes = limits.max_output_bytes;
    renderer.renderTemplates = (templates, ctx, emitter) =>
      base(templates, ctx, emitter ?? new CappedEmitter(maxBytes, maxBytes));
  }

  /** Runs a `render`/`include` one level deeper, refused past the depth limit. */
  *nested(render: Generator<unknown, void, unknown>): Generator<unknown, void, unknown> {
    if (this.#depth >= this.#maxDepth) throw new RenderLimit("depth", this.#maxDepth);
    this.#depth++;
    try {
      yield* render;
    } finally {
      this.#depth--;
    }
  }

  // deno-lint-ignore require-yield -- liquidjs drives this as a generator
  override *_parsePartialFile(
    file: string,
    _sync?: boolean,
    currentFile?: string,
  ): Generator<unknown, Template[], string | Template[]> {
    return this.imports.partial(currentFile, file);
  }

  // deno-lint-ignore require-yield -- liquidjs drives this as a generator
  override *_parseLayoutFile(): Generator<unknown, Template[], string | Template[]> {
    throw new Error("layouts are not available in SQL templates");
  }

  // deno-lint-ignore require-yield -- liquidjs drives this as a generator
  override *_parseFile(): Generator<unknown, Template[]> {
    throw new Error("templates have no file system");
  }
}

export { ParameterLeak };
