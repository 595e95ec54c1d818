/**
 * Named placeholders (`:name`, the renderer's output) to a driver's bind markers. The scanner knows
 * enough of each dialect's lexical grammar to tell a placeholder from text that only looks like
 * one: `::` casts, string literals, quoted identifiers and comments are copied untouched. Values
 * are never spliced into the SQL: the result is a SQL text with markers and a separate value list.
 */
import { AppError } from "../../errors/mod.ts";
import { type SqlFlavor, sqlTokens } from "../../lib/sql_placeholders.ts";

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
 * The same name used twice binds the same value. An array value expands to a comma-separated list
 * of markers (for `IN (:ids)`); an empty array becomes `NULL`, so `IN (NULL)` matches nothing.
 * A name with no entry in `params` is `pipeline.execution.parameter_required`; `null` binds NULL.
 * Bind markers already written in the text (`?`, `$1`) are refused, so every bound value comes
 * from a named parameter.
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
  let copied = 0;

  const emit = (name: string): string => {
    if (!Object.hasOwn(params, name) || params[name] === undefined) {
      throw new AppError("pipeline.execution.parameter_required", { parameter: name });
    }
    if (!names.includes(name)) names.push(name);
    const known = assigned.get(name);
    if (known !== undefined && style !== "question") return known;
    const value = params[name];
    const items = Array.isArray(value) ? value : [value];
    if (items.length === 0) {
      assigned.set(name, "NULL");
      return "NULL";
    }
    const markers = items.map((item) => {
      values.push(item);
      return style === "dollar"
        ? `$${values.length}`
        : style === "question_numbered"
        ? `?${values.length}`
        : "?";
    });
    const text = markers.join(", ");
    assigned.set(name, text);
    return text;
  };

  for (const token of sqlTokens(sql, flavor)) {
    if (token.kind === "marker") throw refusedMarker(token.text);
    out.push(sql.slice(copied, token.start), emit(token.name));
    copied = token.end;
  }
  out.push(sql.slice(copied));
  return { sql: out.join(""), values, names };
}

function refusedMarker(marker: string): AppError {
  return new AppError("pipeline.execution.invalid_parameter_type", {
    field: "sql",
    reason: `the bind marker ${marker} is not allowed; use a named placeholder :name`,
  });
}
