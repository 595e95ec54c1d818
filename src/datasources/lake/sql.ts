/**
 * The one place lake code turns text into DuckDB SQL. DuckDB cannot bind parameters inside
 * `CREATE VIEW` (the views carry their file paths), so paths become string literals here and
 * nowhere else. Locations are already validated (no quotes, backslashes, whitespace or controls);
 * these helpers stay safe even for text that was not.
 */

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * A DuckDB string literal for `value`. DuckDB's standard strings know one escape, the doubled
 * quote (backslashes are literal outside E'' strings), so doubling quotes is complete; control
 * characters are refused outright rather than trusted to every tool that later prints the SQL.
 */
export function sqlString(value: string): string {
  if (CONTROL.test(value)) throw new Error("control characters cannot enter a SQL literal");
  return `'${value.replaceAll("'", "''")}'`;
}

/** A DuckDB quoted identifier (schema, view or column name). */
export function sqlIdent(value: string): string {
  if (CONTROL.test(value) || value.length === 0) throw new Error("unusable identifier");
  return `"${value.replaceAll('"', '""')}"`;
}

/** `[ 'a', 'b' ]`, the list form `read_parquet` takes for an explicit file set. */
export function sqlStringList(values: string[]): string {
  return `[${values.map(sqlString).join(", ")}]`;
}
