/**
 * The built-in calculator catalogue (docs/decisions.md#calculators-are-pure). A `CALCULATOR` node
 * names one, feeds its inputs and says which derived parameters its outputs write:
 *
 *   {"id": "period", "type": "CALCULATOR",
 *    "calculator": {"name": "date_range", "inputs": {"period": {"param": "window"}},
 *                   "writes": {"start": "from_day", "end": "to_day"}}}
 *
 * An input is a literal JSON value or `{"param": "<name>"}`, a reference to a declared or earlier
 * derived parameter. Calculators are pure: the same inputs (and the same `today`) give the same
 * outputs, so a run is reproducible from its record. Dates are UTC calendar days.
 */
import { AppError } from "../errors/mod.ts";
import type { ParameterType, ParameterValue } from "./parameters.ts";

export interface CalculatorInput {
  type: ParameterType | "any" | "list" | "object";
  required: boolean;
  description: string;
}

export interface Calculator {
  name: string;
  description: string;
  inputs: Record<string, CalculatorInput>;
  /** Output name → type; `"input"` means the type of the values fed in. */
  outputs: Record<string, ParameterType | "input">;
  run(inputs: Record<string, unknown>, today: string): Record<string, ParameterValue | null>;
}

const PERIODS = [
  "today",
  "yesterday",
  "last_7_days",
  "last_30_days",
  "last_90_days",
  "week_to_date",
  "month_to_date",
  "quarter_to_date",
  "year_to_date",
  "last_week",
  "last_month",
  "last_quarter",
  "last_year",
] as const;
const UNITS = ["day", "week", "month", "quarter", "year"] as const;

function fail(calculator: string, input: string, reason: string): never {
  throw new AppError("pipeline.calculator.invalid_input", { calculator, input, reason });
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(calc: string, input: string, value: unknown): Date {
  if (typeof value !== "string" || !DAY.test(value)) fail(calc, input, "expected YYYY-MM-DD");
  const d = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) {
    fail(calc, input, "not a calendar date");
  }
  return d;
}

const iso = (d: Date) => d.toISOString().slice(0, 10);
const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m, d));

function addDays(d: Date, n: number): Date {
  return utc(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n);
}

/** Adds months, clamping to the month's last day (Jan 31 + 1 month = Feb 28/29). */
function addMonths(d: Date, n: number): Date {
  const first = utc(d.getUTCFullYear(), d.getUTCMonth() + n, 1);
  const last = utc(first.getUTCFullYear(), first.getUTCMonth() + 1, 0).getUTCDate();
  return utc(first.getUTCFullYear(), first.getUTCMonth(), Math.min(d.getUTCDate(), last));
}

/** Start of the unit containing `d`; weeks start on Monday (ISO 8601). */
function truncate(d: Date, unit: (typeof UNITS)[number]): Date {
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  switch (unit) {
    case "day":
      return d;
    case "week":
      return addDays(d, -((d.getUTCDay() + 6) % 7));
    case "month":
      return utc(y, m, 1);
    case "quarter":
      return utc(y, m - (m % 3), 1);
    case "year":
      return utc(y, 0, 1);
  }
}

function range(period: (typeof PERIODS)[number], today: Date): [Date, Date] {
  switch (period) {
    case "today":
      return [today, today];
    case "yesterday":
      return [addDays(today, -1), addDays(today, -1)];
    case "last_7_days":
      return [addDays(today, -6), today];
    case "last_30_days":
      return [addDays(today, -29), today];
    case "last_90_days":
      return [addDays(today, -89), today];
    case "week_to_date":
      return [truncate(today, "week"), today];
    case "month_to_date":
      return [truncate(today, "month"), today];
    case "quarter_to_date":
      return [truncate(today, "quarter"), today];
    case "year_to_date":
      return [truncate(today, "year"), today];
    case "last_week": {
      const start = addDays(truncate(today, "week"), -7);
      return [start, addDays(start, 6)];
    }
    case "last_month": {
      const start = addMonths(truncate(today, "month"), -1);
      return [start, addDays(truncate(today, "month"), -1)];
    }
    case "last_quarter": {
      const start = addMonths(truncate(today, "quarter"), -3);
      return [start, addDays(truncate(today, "quarter"), -1)];
    }
    case "last_year": {
      const start = utc(today.getUTCFullYear() - 1, 0, 1);
      return [start, utc(today.getUTCFullYear() - 1, 11, 31)];
    }
  }
}

function integer(calc: string, input: string, value: unknown, fallback = 0): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    fail(calc, input, "expected an integer");
  }
  return value;
}

function text(calc: string, input: string, value: unknown, fallback?: string): string {
  if ((value === undefined || value === null) && fallback !== undefined) return fallback;
  if (typeof value !== "string") fail(calc, input, "expected a string");
  return value;
}

function list(calc: string, input: string, value: unknown): unknown[] {
  if (!Array.isArray(value)) fail(calc, input, "expected a list");
  return value;
}

const empty = (v: unknown) => v === null || v === undefined || v === "";

const CATALOGUE: Calculator[] = [
  {
    name: "today",
    description: "The run's current UTC date.",
    inputs: {},
    outputs: { value: "date" },
    run: (_inputs, today) => ({ value: today }),
  },
  {
    name: "date_range",
    description: `First and last day (inclusive) of a named period relative to today: ${
      PERIODS.join(", ")
    }. Weeks start on Monday.`,
    inputs: {
      period: { type: "string", required: true, description: "One of the named periods" },
      today: { type: "date", required: false, description: "Anchor day; default the run's date" },
    },
    outputs: { start: "date", end: "date" },
    run(inputs, today) {
      const period = text("date_range", "period", inputs.period);
      if (!(PERIODS as readonly string[]).includes(period)) {
        fail("date_range", "period", `expected one of ${PERIODS.join(", ")}`);
      }
      const anchor = parseDay("date_range", "today", inputs.today ?? today);
      const [start, end] = range(period as (typeof PERIODS)[number], anchor);
      return { start: iso(start), end: iso(end) };
    },
  },
  {
    name: "date_add",
    description:
      "A date moved by days, months and years (month ends clamp: Jan 31 + 1 month is Feb 28 or 29).",
    inputs: {
      date: { type: "date", required: true, description: "Starting day" },
      days: { type: "integer", required: false, description: "Days to add (negative subtracts)" },
      months: { type: "integer", required: false, description: "Months to add" },
      years: { type: "integer", required: false, description: "Years to add" },
    },
    outputs: { value: "date" },
    run(inputs) {
      const start = parseDay("date_add", "date", inputs.date);
      const months = integer("date_add", "months", inputs.months) +
        12 * integer("date_add", "years", inputs.years);
      return {
        value: iso(addDays(addMonths(start, months), integer("date_add", "days", inputs.days))),
      };
    },
  },
  {
    name: "date_trunc",
    description: `The first day of the ${
      UNITS.join("/")
    } containing a date (weeks start on Monday).`,
    inputs: {
      date: { type: "date", required: true, description: "Any day" },
      unit: { type: "string", required: true, description: UNITS.join(", ") },
    },
    outputs: { value: "date" },
    run(inputs) {
      const unit = text("date_trunc", "unit", inputs.unit);
      if (!(UNITS as readonly string[]).includes(unit)) {
        fail("date_trunc", "unit", `expected one of ${UNITS.join(", ")}`);
      }
      return {
        value: iso(
          truncate(parseDay("date_trunc", "date", inputs.date), unit as (typeof UNITS)[number]),
        ),
      };
    },
  },
  {
    name: "coalesce",
    description: "The first value that is neither null nor empty text; null when there is none.",
    inputs: { values: { type: "list", required: true, description: "Candidates, in order" } },
    outputs: { value: "input" },
    run(inputs) {
      const found = list("coalesce", "values", inputs.values).find((v) => !empty(v));
      return { value: (found ?? null) as ParameterValue | null };
    },
  },
  {
    name: "concat",
    description: "Values joined as text with a separator (default none); nulls are skipped.",
    inputs: {
      values: { type: "list", required: true, description: "Parts, in order" },
      separator: { type: "string", required: false, description: "Put between parts" },
    },
    outputs: { value: "string" },
    run(inputs) {
      const separator = text("concat", "separator", inputs.separator, "");
      const parts = list("concat", "values", inputs.values).filter((v) => !empty(v));
      if (parts.some((v) => typeof v === "object")) fail("concat", "values", "expected scalars");
      return { value: parts.map(String).join(separator) };
    },
  },
  {
    name: "split",
    description:
      "Text split on a separator (default ',') into a trimmed list; empty parts dropped.",
    inputs: {
      value: { type: "string", required: true, description: "Text to split" },
      separator: { type: "string", required: false, description: "Default ','" },
    },
    outputs: { value: "string_list" },
    run(inputs) {
      const separator = text("split", "separator", inputs.separator, ",");
      if (separator === "") fail("split", "separator", "must not be empty");
      return {
        value: text("split", "value", inputs.value).split(separator).map((s) => s.trim())
          .filter((s) => s !== ""),
      };
    },
  },
  {
    name: "to_integer",
    description: "A number or decimal text as an integer (fractions truncate toward zero).",
    inputs: { value: { type: "any", required: true, description: "Number or numeric text" } },
    outputs: { value: "integer" },
    run(inputs) {
      const raw = typeof inputs.value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(inputs.value)
        ? Number(inputs.value)
        : inputs.value;
      if (typeof raw !== "number" || !Number.isFinite(raw)) {
        fail("to_integer", "value", "expected a number or numeric text");
      }
      const value = Math.trunc(raw);
      if (!Number.isSafeInteger(value)) fail("to_integer", "value", "out of the integer range");
      return { value };
    },
  },
  {
    name: "lookup",
    description: "The value a key maps to in a table, else the default (null when none).",
    inputs: {
      key: { type: "any", required: true, description: "Key to look up (compared as text)" },
      table: { type: "object", required: true, description: "Object of key → value" },
      default: { type: "any", required: false, description: "Answer for a missing key" },
    },
    outputs: { value: "input" },
    run(inputs) {
      const table = inputs.table;
      if (!table || typeof table !== "object" || Array.isArray(table)) {
        fail("lookup", "table", "expected an object");
      }
      const key = String(inputs.key);
      const found = Object.hasOwn(table, key) ? (table as Record<string, unknown>)[key] : undefined;
      return { value: (found ?? inputs.default ?? null) as ParameterValue | null };
    },
  },
];

const BY_NAME = new Map(CATALOGUE.map((c) => [c.name, c]));

/** The catalogue, for `calculators_list` and the docs. */
export function listCalculators(): Omit<Calculator, "run">[] {
  return CATALOGUE.map(({ run: _, ...rest }) => rest);
}

/** One calculator, or undefined (callers answer their own not-found). */
export function getCalculator(name: string): Calculator | undefined {
  return BY_NAME.get(name);
}

/** `{"param": "name"}` refers to a parameter; any other value is a literal. */
export function isParamRef(value: unknown): value is { param: string } {
  return !!value && typeof value === "object" && !Array.isArray(value) &&
    Object.keys(value).length === 1 && typeof (value as { param?: unknown }).param === "string";
}

/**
 * Runs one calculator node: resolves references against the parameters known so far, checks
 * required inputs, and returns the derived parameters named by `writes`.
 */
export function runCalculator(
  spec: { name: string; inputs?: Record<string, unknown>; writes: Record<string, string> },
  params: Record<string, unknown>,
  today: string,
): Record<string, ParameterValue | null> {
  const calc = getCalculator(spec.name);
  if (!calc) fail(spec.name, "name", "no such calculator");
  const resolve = (v: unknown): unknown =>
    isParamRef(v) ? (params[v.param] ?? null) : Array.isArray(v) ? v.map(resolve) : v;
  const inputs: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(spec.inputs ?? {})) {
    if (!Object.hasOwn(calc.inputs, name)) fail(calc.name, name, "not an input of this calculator");
    inputs[name] = resolve(value);
  }
  for (const [name, input] of Object.entries(calc.inputs)) {
    if (input.required && (inputs[name] === undefined || inputs[name] === null)) {
      fail(calc.name, name, "required");
    }
  }
  const outputs = calc.run(inputs, today);
  const derived: Record<string, ParameterValue | null> = {};
  for (const [output, param] of Object.entries(spec.writes)) {
    if (!Object.hasOwn(outputs, output)) {
      fail(calc.name, output, "not an output of this calculator");
    }
    derived[param] = outputs[output];
  }
  return derived;
}
