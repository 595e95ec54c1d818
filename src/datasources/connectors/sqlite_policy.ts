/**
 * What author SQL may ask of SQLite, decided by SQLite's own authorizer (consulted for every
 * action a statement takes while it is prepared, and again whenever SQLite re-prepares it), not
 * by reading the text: an escape spelled any way still asks for the same action.
 *
 * - `system`: the connector's and the staging engine's own fixed statements (transactions,
 *   staging tables, catalogue listings); everything is allowed.
 * - `author`: author SQL on a writable datasource or on the staging database. Reads and writes
 *   of its own database only: no ATTACH or DETACH (so no other file, VACUUM INTO attaches too),
 *   no PRAGMA beyond a few that only describe tables, no load_extension, no transaction control
 *   (the executor owns the transaction a DML node runs in).
 * - `read`: author SQL on a read-only datasource, or any probe: `author`'s rules, and nothing but
 *   reading.
 */
export type Phase = "system" | "author" | "read";

// SQLite's authorizer action codes (sqlite3.h).
const PRAGMA = 19;
const READ = 20;
const SELECT = 21;
const TRANSACTION = 22;
const ATTACH = 24;
const DETACH = 25;
const FUNCTION = 31;
const SAVEPOINT = 32;
const RECURSIVE = 33;

/** Pragmas that only describe a table or index (their argument is a name, never a setting). */
const DESCRIBING_PRAGMAS = new Set([
  "table_info",
  "table_xinfo",
  "table_list",
  "index_list",
  "index_info",
  "index_xinfo",
  "foreign_key_list",
]);

/**
 * Why `action` is refused in `phase`, or undefined when it is allowed. `arg1`/`arg2` are the
 * authorizer's first two arguments (a pragma's name and value, a function's name in `arg2`).
 */
export function refusal(
  phase: Phase,
  action: number,
  arg1: string | null,
  arg2: string | null,
): string | undefined {
  if (phase === "system") return undefined;
  switch (action) {
    case ATTACH:
      return "ATTACH is not allowed (author SQL reaches only its own database)";
    case DETACH:
      return "DETACH is not allowed";
    case PRAGMA:
      return DESCRIBING_PRAGMAS.has((arg1 ?? "").toLowerCase())
        ? undefined
        : `PRAGMA ${arg1 ?? ""} is not allowed (only ${[...DESCRIBING_PRAGMAS].join(", ")})`;
    case FUNCTION:
      return (arg2 ?? "").toLowerCase() === "load_extension"
        ? "load_extension is not allowed"
        : undefined;
    case TRANSACTION:
    case SAVEPOINT:
      return "transaction control is the executor's, not a statement's";
    case READ:
    case SELECT:
    case RECURSIVE:
      return undefined;
    default:
      return phase === "read" ? "the datasource is read-only: only reads are allowed" : undefined;
  }
}
