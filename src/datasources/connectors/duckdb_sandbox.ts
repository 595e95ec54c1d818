/**
 * The sandbox every DuckDB instance that runs author SQL is opened in (staging, DUCKDB
 * datasources; LAKE builds its views first and then applies the same settings itself).
 *
 * The engine does the confining: external access off (no file or network outside what the
 * instance itself opened, no extension install or load), extension auto-install and auto-load off,
 * spill files in a directory of its own, and the configuration locked, so `SET` cannot undo any
 * of it. DuckDB adds the database file and its WAL to the allowed paths itself; nothing else of
 * the data directory is reachable (`allowed_paths` is exact files, not the directory).
 *
 * Two gaps the lock leaves (DuckDB 1.5.4, verified by experiment) are closed here, before the
 * engine sees the statement: statement kinds that change the session or the instance (ATTACH,
 * USE, PRAGMA, COPY, EXPORT, INSTALL, transactions…) are refused by the type DuckDB's own parser
 * gives them; and a handful of table functions that change the instance despite the lock
 * (`enable_logging` with a file target makes every later statement fail and aborts the process
 * when the instance closes) are refused by name, with `query()` and
 * `json_execute_serialized_sql()`, through which such a name could be assembled at run time.
 */
import {
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  StatementType,
} from "@duckdb/node-api";
import type { DuckDBValue } from "@duckdb/node-api";

/** A statement or a file the sandbox refused; its message is shown to the author as-is. */
export class DuckdbRefusal extends Error {
  override name = "DuckdbRefusal";
}

let tempRoot: Promise<string> | undefined;

/**
 * A fresh, not yet created spill directory for one instance, under a per-process directory only
 * this user can enter. DuckDB creates it when it first spills and may read it: other
 * executions' spill files are never inside.
 */
export async function privateTempDirectory(key?: string): Promise<string> {
  if (!tempRoot) {
    tempRoot = Deno.makeTempDir({ prefix: "pipeline-duckdb-" });
    tempRoot.then((root) =>
      globalThis.addEventListener("unload", () => {
        try {
          Deno.removeSync(root, { recursive: true });
        } catch { /* already gone */ }
      })
    ).catch(() => (tempRoot = undefined));
  }
  return `${await tempRoot}/${key ?? crypto.randomUUID()}`;
}

/** Removes an instance's spill directory after the instance closed. */
export async function removeTempDirectory(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch(() => {});
}

/**
 * The configuration an instance is created with. Order matters: DuckDB refuses to change
 * `temp_directory` once external access is off, and nothing once the configuration is locked.
 */
export function sandboxConfig(options: {
  tempDirectory: string;
  accessMode?: string;
  threads?: string;
  /** `service.executor.duckdb-memory-limit-mb`. */
  memoryMb: number;
}): Record<string, string> {
  const config: Record<string, string> = {
    temp_directory: options.tempDirectory,
    memory_limit: `${options.memoryMb}MiB`,
  };
  if (options.accessMode) config.access_mode = options.accessMode;
  if (options.threads) config.threads = options.threads;
  return {
    ...config,
    autoinstall_known_extensions: "false",
    autoload_known_extensions: "false",
    enable_external_access: "false",
    lock_configuration: "true",
  };
}

/** Statement kinds an author's read may be: DuckDB compiles `FROM t`, SUMMARIZE, DESCRIBE… to SELECT. */
export const READ_STATEMENTS: ReadonlySet<StatementType> = new Set([StatementType.SELECT]);

/** Statement kinds a DML or DDL node (and a writeback) may run; never session or instance changes. */
export const WRITE_STATEMENTS: ReadonlySet<StatementType> = new Set([
  StatementType.SELECT,
  StatementType.INSERT,
  StatementType.UPDATE,
  StatementType.DELETE,
  StatementType.CREATE,
  StatementType.DROP,
  StatementType.ALTER,
  StatementType.ANALYZE,
  StatementType.VACUUM,
]);

/** Table functions that act on the instance although its configuration is locked. */
const UNLOCKED_FUNCTIONS =
  /\b(enable_logging|disable_logging|truncate_duckdb_logs|enable_profil\w*|disable_profil\w*|\w*peg_parser|json_execute_serialized_sql)\b/;
/** `query(...)` runs a SQL text built at run time: any of the names above could hide in it. */
const QUERY_CALL = /\bquery(?:\s|\/\*[\s\S]*?\*\/|--[^\n]*(?:\n|$))*\(/;

/** Refuses SQL naming a function the lock does not cover; quoting a name does not hide it. */
export function refuseUnlockedFunctions(sql: string): void {
  const text = sql.toLowerCase().replaceAll('"', "");
  const named = UNLOCKED_FUNCTIONS.exec(text)?.[1] ?? (QUERY_CALL.test(text) ? "query" : null);
  if (named) {
    throw new DuckdbRefusal(
      `refused: ${named}() changes the database engine itself and is not available to pipeline SQL`,
    );
  }
}

/**
 * Prepares each statement of `sql` in turn and hands it to `run`, after checking its kind
 * against `allowed` (`READ_STATEMENTS` also takes one statement only). Statements are prepared
 * one at a time so a later one may use what an earlier one created. Returns what the last `run`
 * returned.
 */
export async function runAuthorStatements<T>(
  conn: DuckDBConnection,
  sql: string,
  values: DuckDBValue[],
  allowed: ReadonlySet<StatementType>,
  run: (prepared: DuckDBPreparedStatement) => Promise<T>,
): Promise<T> {
  refuseUnlockedFunctions(sql);
  const extracted = await conn.extractStatements(sql);
  if (extracted.count === 0) throw new DuckdbRefusal("refused: the SQL holds no statement");
  // A read streams one result: a statement before it could only have changed something.
  if (allowed === READ_STATEMENTS && extracted.count > 1) {
    throw new DuckdbRefusal("refused: a read is one statement");
  }
  let last: T | undefined;
  for (let i = 0; i < extracted.count; i++) {
    const prepared = await extracted.prepare(i);
    if (!allowed.has(prepared.statementType)) {
      prepared.destroySync();
      throw new DuckdbRefusal(
        `refused: ${
          StatementType[prepared.statementType]
        } statements are not available to pipeline SQL here`,
      );
    }
    try {
      if (values.length > 0 && prepared.parameterCount > 0) prepared.bind(values);
      last = await run(prepared);
    } finally {
      // A streamed result outlives its prepared statement (as in DuckDB's own `stream()`).
      prepared.destroySync();
    }
  }
  return last as T;
}

/**
 * DuckDB's own refusals (a file outside the allowed ones, a locked setting, an extension) as
 * `DuckdbRefusal`, message kept: it names only what the author asked for, never whether the file
 * exists or a host answered, since the engine refuses before it looks.
 */
export function asRefusal(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof DuckdbRefusal) return error;
  const text = error.message;
  if (
    /Permission Error:|configuration has been locked|external extensions is disabled/.test(text)
  ) {
    const refusal = new DuckdbRefusal(`refused: ${text.split("\n")[0]}`);
    refusal.cause = error;
    return refusal;
  }
  return error;
}
