/**
 * The most rows a PostgreSQL statement can answer, when its text says so: a `LIMIT n` of the
 * statement itself (outside every parenthesis, so not a subquery's or a CTE's) with a plain
 * integer literal, followed by nothing that could make it an expression (`LIMIT 10 * 1000`).
 * The connector reads such a statement whole, in one round trip, when the bound fits one batch:
 * it holds no more rows than a cursor's batch would. Anything less certain answers undefined.
 */
import { sqlCode } from "../../lib/sql_placeholders.ts";

/** What may follow the literal: the clauses that never add rows. */
const AFTER_LIMIT = new Set(["offset", "for"]);

const cache = new Map<string, number | undefined>();
const CACHE_MAX = 500;

/** The row bound of `sql` (PostgreSQL text, before or after placeholder translation). */
export function rowBound(sql: string): number | undefined {
  if (cache.has(sql)) return cache.get(sql);
  const bound = scan(sql);
  // Statements are pipeline texts, a handful per datasource; a flood of distinct ones starts over.
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(sql, bound);
  return bound;
}

function scan(sql: string): number | undefined {
  const tokens = [...sqlCode(sql, "postgres")];
  let depth = 0;
  let bound: number | undefined;
  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    if (token.kind === "unterminated" || token.kind === "semicolon" && k < tokens.length - 1) {
      return undefined;
    }
    if (token.kind === "other" && token.text === "(") depth++;
    if (token.kind === "other" && token.text === ")") depth--;
    if (depth !== 0 || token.kind !== "word" || token.text.toLowerCase() !== "limit") continue;
    // A second top-level LIMIT is not a statement PostgreSQL takes: no claim about it.
    if (bound !== undefined) return undefined;
    const literal = tokens[k + 1];
    if (literal?.kind !== "other") return undefined;
    const digits = /^[0-9]+(?![0-9A-Za-z_.$])/.exec(sql.slice(literal.start))?.[0];
    if (digits === undefined) return undefined;
    const end = literal.start + digits.length;
    let next = k + 2;
    while (tokens[next]?.kind === "other" && (tokens[next] as { start: number }).start < end) {
      next++;
    }
    const after = tokens[next];
    if (
      after !== undefined && after.kind !== "semicolon" &&
      !(after.kind === "word" && AFTER_LIMIT.has(after.text.toLowerCase()))
    ) {
      return undefined;
    }
    bound = Number(digits);
    k = next - 1;
  }
  return bound;
}
