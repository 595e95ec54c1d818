/**
 * Named placeholders `:name` (the contract's statement form) → DuckDB's `$name`. Quoted strings,
 * quoted identifiers, comments and `::` casts pass through untouched, so a value never becomes
 * SQL text and a literal containing `:x` stays a literal.
 */
import { DuckDBBlobValue } from "@duckdb/node-api";
import { AppError } from "../../errors/mod.ts";

const NAME_START = /[A-Za-z_]/;
const NAME_PART = /[A-Za-z0-9_]/;

/** The rewritten SQL and the placeholder names in first-seen order. */
export function toDuckDbPlaceholders(sql: string): { sql: string; names: string[] } {
  let out = "";
  const names: string[] = [];
  let i = 0;
  const copyUntil = (end: string, from: number) => {
    const stop = sql.indexOf(end, from);
    const to = stop < 0 ? sql.length : stop + end.length;
    out += sql.slice(i, to);
    i = to;
  };
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      // A doubled quote inside ends one run and starts the next: same outcome.
      copyUntil(c, i + 1);
    } else if (c === "-" && sql[i + 1] === "-") {
      copyUntil("\n", i + 2);
    } else if (c === "/" && sql[i + 1] === "*") {
      copyUntil("*/", i + 2);
    } else if (c === ":" && sql[i + 1] === ":") {
      out += "::";
      i += 2;
    } else if (c === ":" && NAME_START.test(sql[i + 1] ?? "") && sql[i - 1] !== ":") {
      let j = i + 1;
      while (j < sql.length && NAME_PART.test(sql[j])) j++;
      const name = sql.slice(i + 1, j);
      if (!names.includes(name)) names.push(name);
      out += `$${name}`;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return { sql: out, names };
}

/** A JS parameter value in a form the DuckDB binder accepts. */
function bindable(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  if (value instanceof Date) return value.toISOString();
  // The binder cannot infer a type for a bare Uint8Array.
  if (value instanceof Uint8Array) return new DuckDBBlobValue(value);
  if (typeof value === "object") return JSON.stringify(value);
  return value;
}

/** The bind record for `names`; a name without a value is 400 `parameter_required`. */
export function bindRecord(
  names: string[],
  params: Record<string, unknown> = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    if (!Object.hasOwn(params, name)) {
      throw new AppError("pipeline.execution.parameter_required", { parameter: name });
    }
    out[name] = bindable(params[name]);
  }
  return out;
}
