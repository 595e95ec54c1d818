/**
 * The lexer behind named placeholders (`:name`) and the probe's read-only gate: it reads SQL the
 * way the dialect's driver would, so `::` casts, string literals (doubled quotes, backslash
 * escapes where the dialect has them, PostgreSQL `E''` strings and dollar-quoted bodies), quoted
 * identifiers, backticks, `[brackets]` on SQLite, and `--` (MySQL: only before whitespace), `#`
 * (MySQL) and `/* *\/` comments (nested on PostgreSQL) hold no placeholders and no code. The
 * renderer lists placeholders with it, the connectors translate them to driver markers with it,
 * and the probe reads a statement's words with it, so none of them can disagree about what is
 * quoted.
 */

/** The lexical family of a statement, which decides what counts as quoted or commented. */
export type SqlFlavor = "postgres" | "mysql" | "sqlite" | "duckdb";

/**
 * What the lexer finds outside quotes and comments: a placeholder spanning `start`–`end` (the
 * colon included), or a driver bind marker already written in the text (`?`, `$1`).
 */
export type SqlToken =
  | { kind: "placeholder"; name: string; start: number; end: number }
  | { kind: "marker"; text: string };

/**
 * Everything else code is made of, for readers of the whole statement: a word (keyword or bare
 * identifier), a `;`, any other character; and the two things only a refusal should follow: a
 * quote or comment left open, and MySQL's `/*! … *\/` comment, whose body MySQL runs.
 */
export type SqlCodeToken =
  | SqlToken
  | { kind: "word"; text: string; start: number }
  | { kind: "semicolon" }
  | { kind: "other"; text: string; start: number }
  | { kind: "unterminated" }
  | { kind: "executable_comment" };

const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;

/** Placeholders and bind markers of `sql`, in text order. */
export function* sqlTokens(sql: string, flavor: SqlFlavor): Generator<SqlToken> {
  for (const token of sqlCode(sql, flavor)) {
    if (token.kind === "placeholder" || token.kind === "marker") yield token;
  }
}

const lexed: Record<SqlFlavor, Map<string, readonly SqlCodeToken[]>> = {
  postgres: new Map(),
  mysql: new Map(),
  sqlite: new Map(),
  duckdb: new Map(),
};
const LEXED_MAX = 500;
/** Longer texts are lexed on every call: 500 author texts of megabytes each would stay in memory. */
export const LEXED_TEXT_MAX = 16_384;

/**
 * `sqlCode(sql, flavor)` as a list, lexed once per text: statements are pipeline texts, a handful
 * per datasource, run again on every call (a serve lexed its read each time). A flood of distinct
 * texts starts the cache over, and a text past LEXED_TEXT_MAX is never kept. The tokens are
 * shared: not to be changed.
 */
export function sqlCodeTokens(sql: string, flavor: SqlFlavor): readonly SqlCodeToken[] {
  if (sql.length > LEXED_TEXT_MAX) return [...sqlCode(sql, flavor)];
  const cache = lexed[flavor];
  let tokens = cache.get(sql);
  if (tokens === undefined) {
    tokens = [...sqlCode(sql, flavor)];
    if (cache.size >= LEXED_MAX) cache.clear();
    cache.set(sql, tokens);
  }
  return tokens;
}

/** Every code token of `sql`, in text order (placeholders and markers included). */
export function* sqlCode(sql: string, flavor: SqlFlavor): Generator<SqlCodeToken> {
  const n = sql.length;
  let i = 0;
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "'") {
      // MySQL reads backslash escapes in every string; PostgreSQL only in E'' strings.
      const prev = sql[i - 1];
      const escaped = flavor === "mysql" ||
        (flavor === "postgres" && (prev === "E" || prev === "e") &&
          !IDENT_PART.test(sql[i - 2] ?? ""));
      i = skipQuoted(sql, i, "'", escaped);
    } else if (c === '"') {
      i = skipQuoted(sql, i, '"', flavor === "mysql");
    } else if (c === "`" && (flavor === "mysql" || flavor === "sqlite")) {
      i = skipQuoted(sql, i, "`", false);
    } else if (c === "[" && flavor === "sqlite") {
      const end = sql.indexOf("]", i + 1);
      i = end === -1 ? UNTERMINATED(sql) : end + 1;
    } else if (
      (c === "-" && next === "-" && (flavor !== "mysql" || !/\S/.test(sql[i + 2] ?? " "))) ||
      (c === "#" && flavor === "mysql")
    ) {
      // MySQL takes `--` as a comment only before whitespace: `1 --1` is 1 - -1.
      const end = sql.indexOf("\n", i + 1);
      i = end === -1 ? n : end + 1;
    } else if (c === "/" && next === "*") {
      if (flavor === "mysql" && (sql[i + 2] === "!" || sql[i + 2] === "+")) {
        yield { kind: "executable_comment" };
      }
      i = skipBlockComment(sql, i, flavor === "postgres");
    } else if (c === "$" && (flavor === "postgres" || flavor === "duckdb")) {
      const tag = dollarTag(sql, i);
      if (tag !== null) {
        const end = sql.indexOf(tag, i + tag.length);
        i = end === -1 ? UNTERMINATED(sql) : end + tag.length;
      } else {
        if (/[0-9]/.test(next ?? "") && !IDENT_PART.test(sql[i - 1] ?? "")) {
          yield { kind: "marker", text: `$${next}` };
        } else {
          yield { kind: "other", text: c, start: i };
        }
        i++;
      }
    } else if (c === "?" && flavor !== "postgres") {
      // PostgreSQL's jsonb operators `?`, `?|`, `?&` are not markers there; elsewhere `?` is one.
      yield { kind: "marker", text: "?" };
      i++;
    } else if (c === ":") {
      if (next === ":") {
        i += 2;
      } else if (
        next !== undefined && IDENT_START.test(next) && !IDENT_PART.test(sql[i - 1] ?? "")
      ) {
        let j = i + 2;
        while (j < n && IDENT_PART.test(sql[j])) j++;
        yield { kind: "placeholder", name: sql.slice(i + 1, j), start: i, end: j };
        i = j;
      } else {
        yield { kind: "other", text: c, start: i };
        i++;
      }
    } else if (c === ";") {
      yield { kind: "semicolon" };
      i++;
    } else if (IDENT_START.test(c) && !IDENT_PART.test(sql[i - 1] ?? "")) {
      let j = i + 1;
      while (j < n && IDENT_PART.test(sql[j])) j++;
      yield { kind: "word", text: sql.slice(i, j), start: i };
      i = j;
    } else {
      if (!/\s/.test(c)) yield { kind: "other", text: c, start: i };
      i++;
    }
    if (i > n) {
      // A quote or comment ran to the end of the text (the skips answer one past it).
      yield { kind: "unterminated" };
      i = n;
    }
  }
}

/** Where a skip lands when its quote or comment never closes: one past the end. */
const UNTERMINATED = (sql: string) => sql.length + 1;

/** Index just past a quoted run opened at `start`; doubled quotes stay inside. */
function skipQuoted(sql: string, start: number, quote: string, backslash: boolean): number {
  let j = start + 1;
  while (j < sql.length) {
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
  return UNTERMINATED(sql);
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
  return UNTERMINATED(sql);
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
