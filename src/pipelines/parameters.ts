/**
 * Parameter declarations and their values (docs/authoring.md#parameters). A pipeline declares
 * `parameters: {name: {type, required?, default?, description?, enum?, min?, max?, max_length?}}`;
 * a run supplies values as JSON (execute, tools) or as query-string text (published endpoints,
 * parsed by type, lists comma-separated). `coerceParameters` reports every defect at once, so one
 * answer tells the caller all that is wrong.
 */
import { z } from "zod";
import { AppError } from "../errors/mod.ts";

export const PARAMETER_TYPES = [
  "string",
  "integer",
  "number",
  "boolean",
  "date",
  "timestamp",
  "string_list",
  "integer_list",
] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

/** A bound value: lists are arrays; dates and timestamps stay ISO 8601 text. */
export type ParameterValue = string | number | boolean | string[] | number[];

export const PARAMETER_NAME = /^[a-z_][a-z0-9_]{0,63}$/;

export const declarationSchema = z.strictObject({
  type: z.enum(PARAMETER_TYPES),
  required: z.boolean().optional(),
  default: z.unknown().optional(),
  description: z.string().max(2000).optional(),
  enum: z.array(z.union([z.string(), z.number()])).min(1).max(1000).optional(),
  min: z.union([z.number(), z.string()]).optional(),
  max: z.union([z.number(), z.string()]).optional(),
  max_length: z.int().min(1).max(1_000_000).optional(),
});
export type ParameterDeclaration = z.infer<typeof declarationSchema>;
export type ParameterDeclarations = Record<string, ParameterDeclaration>;

/** One defect of a supplied value (or of a declaration's default). */
export interface ParameterDefect {
  parameter: string;
  code: "pipeline.execution.invalid_parameter_type" | "pipeline.execution.parameter_required";
  message: string;
  /** A cap that was passed: the setting that sets it and its value. */
  cap?: { field: string; setting: string; max: number };
}

/**
 * How many values one execution may bind (`service.executor.max-list-items` and
 * `max-parameter-values`): a list item is one bound value on MySQL and SQLite, and a list of a
 * million items held the process at 2 GB while it was checked and bound.
 */
export interface ParameterCaps {
  /** Items in one list parameter. */
  maxListItems: number;
  /** Values over all parameters of one execution: each list item, and each other value, is one. */
  maxValues: number;
}

export const DEFAULT_PARAMETER_CAPS: Readonly<ParameterCaps> = Object.freeze({
  maxListItems: 10_000,
  maxValues: 20_000,
});

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;
const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/;
const NUMBER_TEXT = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

function validDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 &&
    d.getUTCDate() === Number(m[3]);
}

function validTimestamp(text: string): boolean {
  const m = TIMESTAMP.exec(text);
  return !!m && validDate(m[1]) && Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) < 60;
}

/** Parses one scalar of `type`; returns undefined when it does not fit. */
function scalar(type: ParameterType, raw: unknown, fromText: boolean): ParameterValue | undefined {
  switch (type) {
    case "string":
    case "string_list":
      return typeof raw === "string" ? raw : undefined;
    case "integer":
    case "integer_list": {
      const n = fromText && typeof raw === "string" && INTEGER_TEXT.test(raw) ? Number(raw) : raw;
      return typeof n === "number" && Number.isSafeInteger(n) ? n : undefined;
    }
    case "number": {
      const n = fromText && typeof raw === "string" && NUMBER_TEXT.test(raw) ? Number(raw) : raw;
      return typeof n === "number" && Number.isFinite(n) ? n : undefined;
    }
    case "boolean":
      if (fromText && (raw === "true" || raw === "false")) return raw === "true";
      return typeof raw === "boolean" ? raw : undefined;
    case "date":
      return typeof raw === "string" && validDate(raw) ? raw : undefined;
    case "timestamp":
      return typeof raw === "string" && validTimestamp(raw) ? raw : undefined;
  }
}

const isList = (type: ParameterType) => type === "string_list" || type === "integer_list";

/** Checks one present value against its declaration; returns the bound value or a defect. */
function checkValue(
  name: string,
  decl: ParameterDeclaration,
  raw: unknown,
  fromText: boolean,
  caps: ParameterCaps = DEFAULT_PARAMETER_CAPS,
): { value: ParameterValue } | { defect: ParameterDefect } {
  const invalid = (message: string) => ({
    defect: {
      parameter: name,
      code: "pipeline.execution.invalid_parameter_type" as const,
      message,
    },
  });
  let items: unknown[];
  if (isList(decl.type)) {
    if (fromText && typeof raw === "string") items = raw === "" ? [] : raw.split(",");
    else if (Array.isArray(raw)) items = raw;
    else return invalid(`expected a list (${decl.type})`);
  } else {
    items = [raw];
  }
  // Before any item is read, so an oversized list costs no more than its parse.
  if (items.length > caps.maxListItems) {
    const { defect } = invalid(`has ${items.length} items; at most ${caps.maxListItems} are taken`);
    const cap = {
      field: `parameters.${name}`,
      setting: "service.executor.max-list-items",
      max: caps.maxListItems,
    };
    return { defect: { ...defect, cap } };
  }
  const values: (string | number | boolean)[] = [];
  for (const item of items) {
    const value = scalar(
      decl.type,
      fromText && typeof item === "string" ? item.trim() : item,
      fromText,
    );
    if (value === undefined) return invalid(`expected ${describe(decl.type)}`);
    const problem = bounds(decl, value as string | number | boolean);
    if (problem) return invalid(problem);
    values.push(value as string | number | boolean);
  }
  return { value: isList(decl.type) ? values as string[] | number[] : values[0] };
}

function describe(type: ParameterType): string {
  return {
    string: "a string",
    integer: "an integer",
    number: "a number",
    boolean: "true or false",
    date: "a date YYYY-MM-DD",
    timestamp: "an ISO 8601 timestamp",
    string_list: "strings",
    integer_list: "integers",
  }[type];
}

/** enum, min, max (numbers compare as numbers, dates and timestamps as text), max_length. */
function bounds(decl: ParameterDeclaration, value: string | number | boolean): string | undefined {
  if (decl.enum && !decl.enum.some((allowed) => allowed === value)) {
    return `must be one of ${decl.enum.join(", ")}`;
  }
  if (
    typeof value === "string" && decl.max_length !== undefined && value.length > decl.max_length
  ) {
    return `must be at most ${decl.max_length} characters long`;
  }
  if (typeof value === "boolean") return undefined;
  if (decl.min !== undefined && value < decl.min) return `must be at least ${decl.min}`;
  if (decl.max !== undefined && value > decl.max) return `must be at most ${decl.max}`;
  return undefined;
}

/**
 * Validates declarations (at save): names, shapes, and that each default is itself a valid value.
 * Throws `pipeline.execution.invalid_parameter_type` naming the field.
 */
export function parseDeclarations(input: unknown): ParameterDeclarations {
  if (input === undefined || input === null) return {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw fieldError("parameters", "must be an object of declarations");
  }
  const out: ParameterDeclarations = {};
  for (const [name, raw] of Object.entries(input)) {
    if (!PARAMETER_NAME.test(name)) throw fieldError(`parameters.${name}`, "name_invalid");
    const parsed = declarationSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw fieldError(
        `parameters.${name}.${issue.path.join(".")}`.replace(/\.$/, ""),
        issue.message,
      );
    }
    const decl = parsed.data;
    const misfit = boundsMisfit(decl);
    if (misfit) throw fieldError(`parameters.${name}.${misfit[0]}`, misfit[1]);
    if (decl.default !== undefined) {
      const checked = checkValue(name, decl, decl.default, false);
      if ("defect" in checked) {
        throw fieldError(`parameters.${name}.default`, checked.defect.message);
      }
    }
    out[name] = decl;
  }
  return out;
}

/** min/max/max_length/enum must suit the type they bound. */
function boundsMisfit(decl: ParameterDeclaration): [string, string] | undefined {
  const numeric = ["integer", "number", "integer_list"].includes(decl.type);
  const temporal = decl.type === "date" || decl.type === "timestamp";
  for (const key of ["min", "max"] as const) {
    const bound = decl[key];
    if (bound === undefined) continue;
    if (numeric && typeof bound !== "number") return [key, "must be a number"];
    if (temporal && scalar(decl.type, bound, false) === undefined) {
      return [key, `must be ${describe(decl.type)}`];
    }
    if (!numeric && !temporal) return [key, `does not apply to ${decl.type}`];
  }
  if (decl.max_length !== undefined && decl.type !== "string" && decl.type !== "string_list") {
    return ["max_length", `does not apply to ${decl.type}`];
  }
  if (decl.type === "boolean" && decl.enum) return ["enum", "does not apply to boolean"];
  const bad = decl.enum?.find((v) => scalar(decl.type, v, false) === undefined);
  if (bad !== undefined) return ["enum", `${JSON.stringify(bad)} is not ${describe(decl.type)}`];
  return undefined;
}

function fieldError(field: string, reason: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", { field, reason });
}

export interface CoerceOptions {
  /** Values arrived as query-string text (published endpoints): parsed by type. */
  fromText?: boolean;
  caps?: ParameterCaps;
}

/**
 * Binds supplied values to the declarations: defaults fill absent values (null counts as
 * absent), required ones must be present, unknown names are defects. Returns the values or every
 * defect found.
 */
export function coerceParameters(
  declared: ParameterDeclarations,
  supplied: Record<string, unknown>,
  options: CoerceOptions = {},
): { values: Record<string, ParameterValue>; defects: ParameterDefect[] } {
  const caps = options.caps ?? DEFAULT_PARAMETER_CAPS;
  const values: Record<string, ParameterValue> = {};
  const defects: ParameterDefect[] = [];
  for (const name of Object.keys(supplied)) {
    if (!Object.hasOwn(declared, name)) {
      defects.push({
        parameter: name,
        code: "pipeline.execution.invalid_parameter_type",
        message: "not a declared parameter",
      });
    }
  }
  for (const [name, decl] of Object.entries(declared)) {
    let raw = Object.hasOwn(supplied, name) ? supplied[name] : undefined;
    let fromText = options.fromText ?? false;
    if (raw === undefined || raw === null) {
      if (decl.default === undefined) {
        if (decl.required) {
          defects.push({
            parameter: name,
            code: "pipeline.execution.parameter_required",
            message: "a value is required",
          });
        }
        continue;
      }
      // A default was valid at save, but the caps may have been lowered since.
      raw = decl.default;
      fromText = false;
    }
    const checked = checkValue(name, decl, raw, fromText, caps);
    if ("defect" in checked) defects.push(checked.defect);
    else values[name] = checked.value;
  }
  const total = Object.values(values).reduce(
    (n: number, v) => n + (Array.isArray(v) ? v.length : 1),
    0,
  );
  if (total > caps.maxValues) {
    defects.push({
      parameter: "",
      code: "pipeline.execution.invalid_parameter_type",
      message: `${total} values in all; at most ${caps.maxValues} are bound per execution`,
      cap: {
        field: "parameters",
        setting: "service.executor.max-parameter-values",
        max: caps.maxValues,
      },
    });
  }
  return { values, defects };
}

/**
 * The execute path's answer to defects: the first defect's code (a missing value outranks a
 * passed cap, which outranks a malformed value), with every defect in `details.errors`. A passed
 * cap is named in `details`: `field`, `setting` and `max`.
 */
export function parameterError(defects: ParameterDefect[]): AppError {
  const first = defects.find((d) => d.code === "pipeline.execution.parameter_required") ??
    defects.find((d) => d.cap) ?? defects[0];
  const details = {
    field: first.cap?.field ?? `parameters.${first.parameter}`,
    reason: first.message,
    ...(first.cap ? { setting: first.cap.setting, max: first.cap.max } : {}),
    errors: defects.map(({ cap: _, ...d }) => d),
  };
  // A missing value always names its parameter; a passed cap (parameter "") names none.
  return first.code === "pipeline.execution.parameter_required"
    ? new AppError(first.code, { parameter: first.parameter, ...details })
    : new AppError(first.code, {
      ...(first.parameter ? { parameter: first.parameter } : {}),
      ...details,
    });
}
