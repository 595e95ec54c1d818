/**
 * Named placeholders (`:name`, the renderer's output) to a driver's bind markers. The scanner knows
 * enough of each dialect's lexical grammar to tell a placeholder from text that only looks like
 * one: `::` casts, string literals, quoted identifiers and comments are copied untouched. Values
 * are never spliced into the SQL: the result is a SQL text with markers and a separate value list.
 */
import { AppError } from "../../errors/mod.ts";
import { type SqlCodeToken, sqlCodeTokens, type SqlFlavor } from "../../lib/sql_placeholders.ts";

/** How a driver wants its markers: `$1` (postgres, duckdb), `?1` (sqlite), bare `?` (mysql). */
export type MarkerStyle = "dollar" | "question_numbered" | "question";

export type { SqlFlavor };

export interface Translated {
  sql: string;
  /** Bind values in marker order (for `question`, one per marker even when a name repeats). */
  values: unknown[];
  /** Placeholder names in first-seen order. */
  names: string[];
}

const MARKERS: Record<SqlFlavor, MarkerStyle> = {
  postgres: "dollar",
  duckdb: "dollar",
  sqlite: "question_numbered",
  mysql: "question",
};

/**
 * Translates `:name` placeholders of `sql` for `flavor` and collects their values from `params`.
 * The same name used twice binds the same value. A name with no entry in `params` is
 * `pipeline.execution.parameter_required`; `null` binds NULL. Bind markers already written in the
 * text (`?`, `$1`) are refused, so every bound value comes from a named parameter.
 *
 * A list written as the whole of an `IN (…)` (`x IN (:ids)`, `x NOT IN (:ids)`) binds as one
 * value where the engine takes an array: PostgreSQL `x = ANY($1)` / `x <> ALL($1)` with the list
 * as an array literal (the column's type decides the element type, as it did for each item), and
 * DuckDB `x IN (SELECT unnest(CAST($1 AS BIGINT[])))` for a list of integers. Anywhere else, and
 * on MySQL and SQLite (no array binding; `service.executor.max-list-items` keeps the markers under
 * their limits), a list expands to one marker per item. An empty list becomes `NULL`, so
 * `IN (NULL)` matches nothing and `NOT IN (NULL)` nothing either.
 */
export function translatePlaceholders(
  sql: string,
  params: Record<string, unknown> = {},
  flavor: SqlFlavor,
): Translated {
  const style = MARKERS[flavor];
  const out: string[] = [];
  const values: unknown[] = [];
  const names: string[] = [];
  // For numbered styles, the marker text already emitted for a name, so a repeat reuses it.
  const assigned = new Map<string, string>();
  const arrays = new Map<string, string>();
  let copied = 0;

  const valueOf = (name: string): unknown => {
    if (!Object.hasOwn(params, name) || params[name] === undefined) {
      throw new AppError("pipeline.execution.parameter_required", { parameter: name });
    }
    if (!names.includes(name)) names.push(name);
    return params[name];
  };
  const marker = () =>
    style === "dollar"
      ? `$${values.length}`
      : style === "question_numbered"
      ? `?${values.length}`
      : "?";

  const emit = (name: string): string => {
    const value = valueOf(name);
    const known = assigned.get(name);
    if (known !== undefined && style !== "question") return known;
    const items = Array.isArray(value) ? value : [value];
    if (items.length === 0) {
      assigned.set(name, "NULL");
      return "NULL";
    }
    const text = items.map((item) => {
      values.push(item);
      return marker();
    }).join(", ");
    assigned.set(name, text);
    return text;
  };

  /** The marker of `name` bound as one array value, or null when it cannot be. */
  const arrayMarker = (name: string): string | null => {
    const value = valueOf(name);
    if (!Array.isArray(value) || value.length === 0) return null;
    const known = arrays.get(name);
    if (known !== undefined) return known;
    const bound = flavor === "postgres"
      ? pgArrayLiteral(value)
      : flavor === "duckdb" && value.every(Number.isSafeInteger)
      ? JSON.stringify(value)
      : null;
    if (bound === null) return null;
    values.push(bound);
    arrays.set(name, marker());
    return arrays.get(name)!;
  };

  const tokens = sqlCodeTokens(sql, flavor);
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    if (token.kind === "marker") throw refusedMarker(token.text);
    if (token.kind !== "placeholder") continue;
    const list = wholeInList(tokens, k);
    const array = list && style !== "question" ? arrayMarker(token.name) : null;
    if (list && array !== null && flavor === "postgres") {
      out.push(sql.slice(copied, list.start), `${list.not ? "<> ALL" : "= ANY"}(${array})`);
      copied = list.end;
    } else if (array !== null) {
      out.push(sql.slice(copied, token.start), `SELECT unnest(CAST(${array} AS BIGINT[]))`);
      copied = token.end;
    } else {
      out.push(sql.slice(copied, token.start), emit(token.name));
      copied = token.end;
    }
  }
  out.push(sql.slice(copied));
  return { sql: out.join(""), values, names };
}

/**
 * When the placeholder at `k` is all an `IN (…)` holds: where `[NOT] IN` starts and where its
 * closing parenthesis ends. Read from code tokens, so nothing quoted or commented can pass for it.
 */
function wholeInList(
  tokens: readonly SqlCodeToken[],
  k: number,
): { start: number; end: number; not: boolean } | null {
  const open = tokens[k - 1];
  const keyword = tokens[k - 2];
  const close = tokens[k + 1];
  if (open?.kind !== "other" || open.text !== "(") return null;
  if (keyword?.kind !== "word" || keyword.text.toUpperCase() !== "IN") return null;
  if (close?.kind !== "other" || close.text !== ")") return null;
  const before = tokens[k - 3];
  const not = before?.kind === "word" && before.text.toUpperCase() === "NOT";
  return { start: not ? before.start : keyword.start, end: close.start + 1, not };
}

/** A PostgreSQL array literal of scalars (`{1,2}`, `{"a","b\"c"}`); the server types it. */
export function pgArrayLiteral(items: unknown[]): string | null {
  const parts: string[] = [];
  for (const item of items) {
    if (item === null) parts.push("NULL");
    else if (typeof item === "number" && Number.isFinite(item)) parts.push(String(item));
    else if (typeof item === "boolean") parts.push(String(item));
    else if (typeof item === "string") parts.push(`"${item.replace(/["\\]/g, "\\$&")}"`);
    else return null;
  }
  return `{${parts.join(",")}}`;
}

function refusedMarker(marker: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", {
    field: "sql",
    reason: `the bind marker ${marker} is not allowed; use a named placeholder :name`,
  });
}
