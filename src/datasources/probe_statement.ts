/**
 * The lexical half of the probe's read-only rule: one statement, starting with a read keyword,
 * naming no write keyword outside quotes and comments. It reads the statement with the same
 * lexer the connectors bind placeholders with (`lib/sql_placeholders.ts`), so what it takes for
 * quoted is what the driver takes for quoted. The connectors add the engine's own read-only
 * mode (`QueryOptions.readOnly`): this gate refuses early and with a reason, the engine catches
 * what words cannot show (a function that writes, a dialect quirk).
 */
import { AppError } from "../errors/mod.ts";
import { sqlCode, type SqlFlavor } from "../lib/sql_placeholders.ts";
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

const FLAVORS: Record<Dialect, SqlFlavor> = {
  POSTGRES: "postgres",
  MYSQL: "mysql",
  SQLITE: "sqlite",
  DUCKDB: "duckdb",
  LAKE: "duckdb",
};

export type RefusalReason =
  | "empty"
  | "multiple_statements"
  | "not_a_read"
  | "write_keyword"
  | "executable_comment"
  | "unterminated";

function notReadOnly(reason: RefusalReason, extra: Record<string, unknown> = {}): AppError {
  return new AppError("datasource.probe.not_read_only", { reason, ...extra });
}

/**
 * Throws `datasource.probe.not_read_only` (details.reason, and details.keyword for a word)
 * unless `sql` is a single statement that reads.
 */
export function assertReadStatement(sql: string, dialect: Dialect): void {
  const words: string[] = [];
  let ended = false;
  for (const token of sqlCode(sql, FLAVORS[dialect])) {
    if (token.kind === "unterminated" || token.kind === "executable_comment") {
      throw notReadOnly(token.kind);
    }
    if (token.kind === "semicolon") {
      ended = true;
      continue;
    }
    // Only whitespace and comments may follow the statement's one `;`.
    if (ended) throw notReadOnly("multiple_statements");
    if (token.kind === "word") words.push(token.text.toUpperCase());
  }
  if (words.length === 0) throw notReadOnly("empty");
  if (!READ_STARTS.has(words[0])) throw notReadOnly("not_a_read", { keyword: words[0] });
  const write = words.find((w) => WRITE_WORDS.has(w));
  if (write) throw notReadOnly("write_keyword", { keyword: write });
}
