/**
 * The lexical half of the probe's read-only rule: one statement, starting with a read keyword,
 * naming no write keyword outside quotes and comments. The connectors add the engine's own
 * read-only mode (see `QueryOptions.readOnly`); this gate refuses early and with a reason, the
 * engine catches what a lexer cannot see (a function that writes, a dialect quirk).
 *
 * The lexer errs towards refusing: where dialects disagree about a comment or a string, it picks
 * the reading that exposes more text as code.
 */
import { AppError } from "../errors/mod.ts";
import type { Dialect } from "./connectors/types.ts";

const READ_STARTS = new Set(["SELECT", "WITH", "VALUES"]);

/**
 * Words that only a write or a side effect needs. `INTO` covers `SELECT … INTO table`,
 * `INTO OUTFILE` and `INSERT INTO`; the rest catch data-modifying CTEs and DuckDB/SQLite
 * statements that reach outside the database. Quoted identifiers are not words.
 */
const WRITE_WORDS = new Set([
  "INSERT",
  "UPDATE",
  "DELETE",
  "MERGE",
  "UPSERT",
  "DROP",
  "CREATE",
  "ALTER",
  "TRUNCATE",
  "GRANT",
  "REVOKE",
  "COPY",
  "ATTACH",
  "DETACH",
  "INSTALL",
  "PRAGMA",
  "INTO",
]);

export type RefusalReason =
  | "empty"
  | "multiple_statements"
  | "not_a_read"
  | "write_keyword"
  | "executable_comment"
  | "unterminated";

export interface Lexed {
  /** Upper-cased words outside strings, quoted identifiers and comments, in order. */
  words: string[];
  /** Whether code (not only whitespace or comments) follows the first `;`. */
  afterSemicolon: boolean;
}

/** Splits `sql` into its code words the way `dialect` reads quotes and comments. */
export function lex(sql: string, dialect: Dialect): Lexed {
  const mysql = dialect === "MYSQL";
  const words: string[] = [];
  let semicolon = false;
  let afterSemicolon = false;
  let i = 0;
  const n = sql.length;
  const refuse = (reason: RefusalReason): never => {
    throw notReadOnly(reason);
  };
  const skipQuoted = (close: string, backslash: boolean) => {
    i++;
    while (i < n) {
      const c = sql[i];
      if (backslash && c === "\\") {
        i += 2;
        continue;
      }
      if (c === close) {
        if (sql[i + 1] === close) {
          i += 2;
          continue;
        }
        i++;
        return;
      }
      i++;
    }
    refuse("unterminated");
  };
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    // MySQL needs whitespace after `--`; elsewhere `--` always starts a comment.
    if (c === "-" && next === "-" && (!mysql || i + 2 >= n || /\s/.test(sql[i + 2]))) {
      while (i < n && sql[i] !== "\n") i++;
      continue;
    }
    if (c === "#" && mysql) {
      while (i < n && sql[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && next === "*") {
      // MySQL runs the body of `/*! … */` as code.
      if (mysql && (sql[i + 2] === "!" || sql[i + 2] === "+")) refuse("executable_comment");
      // Not nested (PostgreSQL nests): ending at the first `*/` shows more as code, never less.
      const end = sql.indexOf("*/", i + 2);
      if (end < 0) refuse("unterminated");
      i = end + 2;
      continue;
    }
    if (semicolon) {
      afterSemicolon = true;
      break;
    }
    if (c === ";") {
      semicolon = true;
      i++;
      continue;
    }
    if (c === "'") {
      // Backslash escapes: MySQL strings, and E'…' strings on PostgreSQL and DuckDB.
      const prev = sql[i - 1];
      const escape = mysql || ((prev === "E" || prev === "e") && !/\w/.test(sql[i - 2] ?? ""));
      skipQuoted("'", escape);
      continue;
    }
    if (c === '"') {
      skipQuoted('"', mysql);
      continue;
    }
    if (c === "`" && dialect !== "POSTGRES") {
      skipQuoted("`", false);
      continue;
    }
    if (c === "[" && dialect === "SQLITE") {
      const end = sql.indexOf("]", i + 1);
      if (end < 0) refuse("unterminated");
      i = end + 1;
      continue;
    }
    if (c === "$" && (dialect === "POSTGRES" || dialect === "DUCKDB")) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        if (end < 0) refuse("unterminated");
        i = end + tag[0].length;
        continue;
      }
    }
    const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i, i + 128));
    if (word) {
      words.push(word[0].toUpperCase());
      i += word[0].length;
      continue;
    }
    i++;
  }
  return { words, afterSemicolon };
}

export function notReadOnly(reason: RefusalReason, extra: Record<string, unknown> = {}): AppError {
  return new AppError("datasource.probe.not_read_only", { reason, ...extra });
}

/**
 * Throws `datasource.probe.not_read_only` (details.reason, and details.keyword for a write word)
 * unless `sql` is a single statement that reads.
 */
export function assertReadStatement(sql: string, dialect: Dialect): void {
  const { words, afterSemicolon } = lex(sql, dialect);
  if (words.length === 0) throw notReadOnly("empty");
  if (afterSemicolon) throw notReadOnly("multiple_statements");
  if (!READ_STARTS.has(words[0])) throw notReadOnly("not_a_read", { keyword: words[0] });
  const write = words.find((w) => WRITE_WORDS.has(w));
  if (write) throw notReadOnly("write_keyword", { keyword: write });
}
