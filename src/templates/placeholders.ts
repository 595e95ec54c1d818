/**
 * The `:name` placeholders a rendered statement binds, read with the same lexer the connectors
 * translate them with (`src/lib/sql_placeholders.ts`).
 */
import { type SqlFlavor, sqlTokens } from "../lib/sql_placeholders.ts";

export type { SqlFlavor };

/** Placeholder names of `sql` in first-seen order, each once. */
export function scanPlaceholders(sql: string, flavor: SqlFlavor): string[] {
  const names = new Set<string>();
  for (const token of sqlTokens(sql, flavor)) {
    if (token.kind === "placeholder") names.add(token.name);
  }
  return [...names];
}
