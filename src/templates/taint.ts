/**
 * Parameter taint: every value a template reads from `params` is a `Tainted` wrapper, never the
 * value itself. Conditions, comparisons and loops see through it (the sandbox's operators and
 * control-flow tags unwrap it); every path that would turn it into text — liquidjs's `toValue`,
 * `String()`, `+x`, `JSON.stringify` — throws `ParameterLeak` instead. Filters keep the taint on
 * their result, so no chain of filters, assigns or captures launders a value into the SQL.
 */
import { Drop } from "liquidjs";
import { AppError } from "../errors/mod.ts";

/** A parameter value tried to become template data or output; carries which one. */
export class ParameterLeak extends Error {
  constructor(
    /** The top-level parameter name, or null for the whole `params` map. */
    readonly parameter: string | null,
    /** The expression it was read through, e.g. `params.regions[0]`. */
    readonly path: string,
  ) {
    super(`the value of ${path} cannot be written into the SQL text`);
    this.name = "ParameterLeak";
  }
}

/**
 * What a filter produced when it failed on a parameter (say `upcase` on an object). Printing it is
 * still a parameter leak, whatever the value; testing it raises the filter's own error.
 */
export class Poison {
  constructor(readonly error: unknown) {}
}

/** The deepest parameter structure accepted; deeper is almost surely a cycle. */
const MAX_DEPTH = 32;
const INDEX = /^-?(0|[1-9][0-9]*)$/;

/** A value read from `params`, or computed from one. */
export class Tainted extends Drop {
  readonly #raw: unknown;
  readonly #parameter: string | null;
  readonly #path: string;

  constructor(raw: unknown, parameter: string | null, path: string) {
    super();
    this.#raw = raw;
    this.#parameter = parameter;
    this.#path = path;
  }

  /** The `params` map itself; `inert` comes from `inertParams()`. */
  static root(inert: Record<string, unknown>): Tainted {
    return new Tainted(inert, null, "params");
  }

  static raw(value: Tainted): unknown {
    return value.#raw;
  }

  get poisoned(): boolean {
    return this.#raw instanceof Poison;
  }

  /** A value computed from this one (a filter or operator result): tainted by the same source. */
  derive(raw: unknown): Tainted {
    return new Tainted(raw, this.#parameter, this.#path);
  }

  leak(): ParameterLeak {
    return new ParameterLeak(this.#parameter, this.#path);
  }

  /** Property reads go here (liquidjs calls `toLiquid` before reading a property). */
  toLiquid(): object {
    return propertyView(this);
  }

  /** The items a `for` loop visits, each tainted, following liquidjs's `toEnumerable`. */
  items(): Tainted[] {
    const raw = this.#raw;
    if (raw instanceof Poison) throw raw.error;
    if (Array.isArray(raw)) return raw.map((_, i) => this.child(i));
    if (typeof raw === "string") return raw.length > 0 ? [this] : [];
    if (isRecord(raw)) {
      return Object.keys(raw).map((key) =>
        new Tainted([key, raw[key]], this.#parameter ?? key, `${this.#path}.${key}`)
      );
    }
    return [];
  }

  /** `params.x`, `list[0]`, `list.size`: always a Tainted, even when absent. */
  read(key: string): Tainted {
    const raw = this.#raw;
    if (raw instanceof Poison) return this;
    if (Array.isArray(raw)) {
      if (key === "size") return this.derive(raw.length);
      if (key === "first") return this.child(0);
      if (key === "last") return this.child(raw.length - 1);
      if (INDEX.test(key)) {
        const i = Number(key);
        return this.child(i < 0 ? raw.length + i : i);
      }
      return this.child(key);
    }
    if (typeof raw === "string" && key === "size") return this.derive(raw.length);
    if (isRecord(raw)) {
      if (Object.hasOwn(raw, key)) return this.child(key);
      if (key === "size") return this.derive(Object.keys(raw).length);
    }
    return this.child(key);
  }

  child(key: string | number): Tainted {
    const raw = this.#raw;
    let value: unknown = undefined;
    if (Array.isArray(raw) && typeof key === "number") {
      value = key >= 0 && key < raw.length ? raw[key] : undefined;
    } else if (isRecord(raw) && typeof key === "string" && Object.hasOwn(raw, key)) {
      value = raw[key];
    }
    const path = typeof key === "number" ? `${this.#path}[${key}]` : `${this.#path}.${key}`;
    return new Tainted(value, this.#parameter ?? String(key), path);
  }

  // Every conversion to a primitive or to text refuses.
  override valueOf(): never {
    throw this.leak();
  }
  override toString(): never {
    throw this.leak();
  }
  toJSON(): never {
    throw this.leak();
  }
  [Symbol.toPrimitive](): never {
    throw this.leak();
  }
}

/**
 * What liquidjs reads properties from: every string key is an own property (so `ownPropertyOnly`
 * lets it through) whose value is a Tainted child. It never exposes a prototype, a method or the
 * raw value, and it is never handed to a template as a value itself.
 */
function propertyView(source: Tainted): object {
  return new Proxy(Object.create(null), {
    get: (_target, key) => typeof key === "string" ? source.read(key) : undefined,
    getOwnPropertyDescriptor: (_target, key) =>
      typeof key === "string"
        ? { value: source.read(key), writable: false, enumerable: true, configurable: true }
        : undefined,
    has: (_target, key) => typeof key === "string",
    ownKeys: () => [],
    set: () => false,
    defineProperty: () => false,
    deleteProperty: () => false,
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Date);
}

/** The raw value behind a Tainted, looking one level into arrays (filter keyword arguments). */
export function untaint(value: unknown, depth = 0): unknown {
  if (value instanceof Tainted) {
    const raw = Tainted.raw(value);
    if (raw instanceof Poison) throw raw.error;
    return raw;
  }
  if (Array.isArray(value) && depth < 2 && value.some((v) => firstTaint([v], depth + 1))) {
    return value.map((v) => untaint(v, depth + 1));
  }
  return value;
}

/** The first Tainted among `values` (looking into arrays as `untaint` does), or null. */
export function firstTaint(values: unknown[], depth = 0): Tainted | null {
  for (const value of values) {
    if (value instanceof Tainted) return value;
    if (Array.isArray(value) && depth < 2) {
      const inner = firstTaint(value, depth + 1);
      if (inner) return inner;
    }
  }
  return null;
}

/**
 * A detached copy of the parameter map holding data only: strings, numbers, booleans, null,
 * bigints, dates, arrays and plain objects (as null-prototype records, so keys like `__proto__`
 * or `constructor` are ordinary data). Functions, getters, symbols, class instances and cycles
 * are refused: nothing a caller passes can run code inside the renderer.
 */
export function inertParams(params: unknown): Record<string, unknown> {
  if (params === undefined || params === null) return Object.create(null);
  if (!isPlainObject(params)) throw badParam("context", "must be an object");
  return inertRecord(params as object, "context", 0);
}

function inertValue(value: unknown, path: string, depth: number): unknown {
  if (depth > MAX_DEPTH) throw badParam(path, `is nested deeper than ${MAX_DEPTH} levels`);
  switch (typeof value) {
    case "string":
    case "number":
    case "boolean":
    case "bigint":
      return value;
    case "undefined":
      return null;
    case "object":
      if (value === null) return null;
      if (value instanceof Date) return new Date(value.getTime());
      if (Array.isArray(value)) {
        const out: unknown[] = [];
        for (let i = 0; i < value.length; i++) {
          out.push(inertValue(dataProperty(value, String(i), path), `${path}[${i}]`, depth + 1));
        }
        return out;
      }
      if (isPlainObject(value)) return inertRecord(value, path, depth);
      throw badParam(path, "must be JSON data, not an instance of a class");
    default:
      throw badParam(path, `must be JSON data, not a ${typeof value}`);
  }
}

function inertRecord(value: object, path: string, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value)) {
    const inner = inertValue(dataProperty(value, key, path), `${path}.${key}`, depth + 1);
    Object.defineProperty(out, key, { value: inner, enumerable: true, writable: false });
  }
  return out;
}

/** Reads an own data property without running a getter. */
function dataProperty(value: object, key: string, path: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(value, key);
  if (descriptor === undefined) return undefined;
  if (!("value" in descriptor)) throw badParam(`${path}.${key}`, "must be data, not an accessor");
  return descriptor.value;
}

function isPlainObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function badParam(field: string, reason: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", { field, reason });
}
