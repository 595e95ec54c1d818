/**
 * Named placeholders (`:name`, the renderer's output) to a driver's bind markers. The scanner knows
 * enough of each dialect's lexical grammar to tell a placeholder from text that only looks like
 * one: `::` casts, string literals, quoted identifiers and comments are copied untouched. Values
 * are never spliced into the SQL: the result is a SQL text with markers and a separate value list.
 */
import { AppError } from "../../errors/mod.ts";

/** How a driver wants its markers: `$1` (postgres, duckdb), `?1` (sqlite), bare `?` (mysql). */
export type MarkerStyle = "dollar" | "question_numbered" | "question";

/** The lexical family of the SQL text, which decides what counts as quoted or commented. */
export type SqlFlavor = "postgres" | "mysql" | "sqlite" | "duckdb";

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

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;

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
  let i = 0;
  let copied = 0;
  const n = sql.length;

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

  /** Index just past a quoted run opened at `start` by `quote`; doubled quotes stay inside. */
  const skipQuoted = (start: number, quote: string, backslash: boolean): number => {
    let j = start + 1;
    while (j < n) {
      const c = sql[j];
      if (backslash && c === "\\") {
        j += 2;
        continue;
      }
      if (c === quote) {
        if (sql[j + 1] === quote) {
          j += 2;
          continue;
        }
        return j + 1;
      }
      j++;
    }
    // Unterminated: the rest is quoted text, and the server will refuse the statement.
    return n;
  };

  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "'") {
      // MySQL reads backslash escapes in every string; PostgreSQL only in E'' strings.
      const prev = sql[i - 1];
      const escaped = flavor === "mysql" ||
        (flavor === "postgres" && (prev === "E" || prev === "e") &&
          !IDENT_PART.test(sql[i - 2] ?? ""));
      i = skipQuoted(i, "'", escaped);
    } else if (c === '"') {
      i = skipQuoted(i, '"', flavor === "mysql");
    } else if (c === "`" && (flavor === "mysql" || flavor === "sqlite")) {
      i = skipQuoted(i, "`", false);
    } else if (c === "[" && flavor === "sqlite") {
      const end = sql.indexOf("]", i + 1);
      i = end === -1 ? n : end + 1;
    } else if (c === "-" && next === "-") {
      const end = sql.indexOf("\n", i + 2);
      i = end === -1 ? n : end + 1;
    } else if (c === "#" && flavor === "mysql") {
      const end = sql.indexOf("\n", i + 1);
      i = end === -1 ? n : end + 1;
    } else if (c === "/" && next === "*") {
      i = skipBlockComment(sql, i, flavor === "postgres");
    } else if (c === "$" && (flavor === "postgres" || flavor === "duckdb")) {
      const tag = dollarTag(sql, i);
      if (tag !== null) {
        const end = sql.indexOf(tag, i + tag.length);
        i = end === -1 ? n : end + tag.length;
      } else if (/[0-9]/.test(next ?? "") && !IDENT_PART.test(sql[i - 1] ?? "")) {
        throw refusedMarker(`$${next}`);
      } else {
        i++;
      }
    } else if (c === "?" && flavor !== "postgres") {
      // PostgreSQL's jsonb operators `?`, `?|`, `?&` are not markers there; elsewhere `?` is one.
      throw refusedMarker("?");
    } else if (c === ":") {
      if (next === ":") {
        i += 2;
      } else if (
        next !== undefined && IDENT_START.test(next) && !IDENT_PART.test(sql[i - 1] ?? "")
      ) {
        let j = i + 2;
        while (j < n && IDENT_PART.test(sql[j])) j++;
        out.push(sql.slice(copied, i), emit(sql.slice(i + 1, j)));
        copied = j;
        i = j;
      } else {
        i++;
      }
    } else {
      i++;
    }
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

/** Index past a `/* … *\/` comment; PostgreSQL nests them, the others end at the first `*\/`. */
function skipBlockComment(sql: string, start: number, nested: boolean): number {
  let depth = 0;
  let j = start;
  while (j < sql.length) {
    if (sql[j] === "/" && sql[j + 1] === "*") {
      depth = nested ? depth + 1 : 1;
      j += 2;
    } else if (sql[j] === "*" && sql[j + 1] === "/") {
      depth--;
      j += 2;
      if (depth === 0) return j;
    } else {
      j++;
    }
  }
  return sql.length;
}

/** `$tag$` opening a dollar-quoted body at `start`, or null when `$` starts something else. */
function dollarTag(sql: string, start: number): string | null {
  // `a$b$` is an identifier containing dollars, not a quote.
  if (IDENT_PART.test(sql[start - 1] ?? "") || sql[start - 1] === "$") return null;
  let j = start + 1;
  if (sql[j] !== "$" && !IDENT_START.test(sql[j] ?? "")) return null;
  while (j < sql.length && IDENT_PART.test(sql[j])) j++;
  return sql[j] === "$" ? sql.slice(start, j + 1) : null;
}
