/**
 * The embedded store: Deno's built-in `node:sqlite`, WAL mode, foreign keys on, busy timeout.
 * The connection is synchronous and shared, so a transaction holds an async mutex: statements of
 * other requests wait instead of landing inside someone else's transaction.
 */
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { sqliteOutage } from "./outage.ts";
import type { Db, Queryable, Row, SqlValue } from "./types.ts";

class Mutex {
  #tail: Promise<void> = Promise.resolve();
  #held = false;

  get held(): boolean {
    return this.#held;
  }

  async lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const previous = this.#tail;
    this.#tail = previous.then(() => next);
    await previous;
    this.#held = true;
    return () => {
      this.#held = false;
      release();
    };
  }
}

/** `$1` → `?1` outside quoted text, so both dialects share one SQL text. */
export function toSqlitePlaceholders(sql: string): string {
  return sql.replace(
    /('(?:[^']|'')*')|("(?:[^"]|"")*")|\$(\d+)/g,
    (m, _single, _double, n) => (n ? `?${n}` : m),
  );
}

function bind(params: SqlValue[]): SQLInputValue[] {
  return params.map((p) => {
    if (p === undefined || p === null) return null;
    if (typeof p === "boolean") return p ? 1 : 0;
    if (p instanceof Date) return p.toISOString();
    return p as SQLInputValue;
  });
}

export class SqliteDb implements Db {
  readonly dialect = "sqlite" as const;
  readonly #db: DatabaseSync;
  readonly #mutex = new Mutex();
  readonly #statements = new Map<string, ReturnType<DatabaseSync["prepare"]>>();

  constructor(path: string) {
    this.#db = new DatabaseSync(path);
    // The busy timeout first: switching to WAL needs a lock, and a second process opening the file
    // at the same moment must wait for it rather than fail with "database is locked".
    this.#db.exec("PRAGMA busy_timeout = 5000");
    // Before anything writes the file: a new database then lets the retention sweeps give freed
    // pages back (executions/retention.ts). An older one needs one VACUUM (ensureIncrementalVacuum).
    this.#db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    this.#db.exec("PRAGMA journal_mode = WAL");
    this.#db.exec("PRAGMA foreign_keys = ON");
    this.#db.exec("PRAGMA synchronous = NORMAL");
  }

  /**
   * Opens `sqlite:<path>`, creating the parent directory. The file holds password and key hashes
   * and sealed datasource secrets: it is created, and kept, readable by the service's user only.
   * SQLite gives its -wal and -shm files the database file's mode; an older install's files are
   * narrowed here too.
   */
  static async open(url: string): Promise<SqliteDb> {
    const path = url.slice("sqlite:".length);
    if (path === ":memory:") return new SqliteDb(path);
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
    if (dir) await Deno.mkdir(dir, { recursive: true });
    (await Deno.open(path, { create: true, write: true, mode: 0o600 })).close();
    const db = new SqliteDb(path);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      await Deno.chmod(file, 0o600).catch((e) => {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      });
    }
    return db;
  }

  #prepare(sql: string) {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(toSqlitePlaceholders(sql));
      if (this.#statements.size > 500) this.#statements.clear();
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  #direct: Queryable = {
    dialect: "sqlite",
    query: <T>(sql: string, params: SqlValue[] = []) =>
      Promise.resolve(this.#prepare(sql).all(...bind(params)) as T[]),
    first: <T>(sql: string, params: SqlValue[] = []) =>
      Promise.resolve(this.#prepare(sql).get(...bind(params)) as T | undefined),
    execute: (sql: string, params: SqlValue[] = []) =>
      Promise.resolve(Number(this.#prepare(sql).run(...bind(params)).changes)),
  };

  /** A statement outside any transaction (waiting for one to end); outages as `Unavailable`. */
  async #outside<T>(fn: () => Promise<T>): Promise<T> {
    try {
      if (!this.#mutex.held) return await fn();
      const release = await this.#mutex.lock();
      try {
        return await fn();
      } finally {
        release();
      }
    } catch (error) {
      throw sqliteOutage(error) ?? error;
    }
  }

  query<T = Row>(sql: string, params?: SqlValue[]): Promise<T[]> {
    return this.#outside(() => this.#direct.query<T>(sql, params));
  }

  first<T = Row>(sql: string, params?: SqlValue[]): Promise<T | undefined> {
    return this.#outside(() => this.#direct.first<T>(sql, params));
  }

  execute(sql: string, params?: SqlValue[]): Promise<number> {
    return this.#outside(() => this.#direct.execute(sql, params));
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const release = await this.#mutex.lock();
    try {
      // IMMEDIATE takes the write lock now, so another process waits (busy timeout) rather than
      // failing half-way with SQLITE_BUSY on its first write.
      this.#db.exec("BEGIN IMMEDIATE");
      try {
        const result = await fn(this.#direct);
        this.#db.exec("COMMIT");
        return result;
      } catch (e) {
        if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
        throw e;
      }
    } catch (error) {
      // Locked past the busy timeout, an I/O error, a full disk: BEGIN, a statement or COMMIT.
      throw sqliteOutage(error) ?? error;
    } finally {
      release();
    }
  }

  withMigrationLock<T>(
    fn: (tx: Queryable & { script(sql: string): Promise<void> }) => Promise<T>,
  ): Promise<T> {
    return this.transaction((tx) =>
      fn({ ...tx, script: (sql: string) => Promise.resolve(this.#db.exec(sql)) })
    );
  }

  /**
   * Writes a consistent copy of the database to `path` (absent or empty) with `VACUUM INTO`: one
   * read transaction, so the copy is the store as of one instant, while other connections (the
   * serving process) go on writing; in WAL mode they never wait for it. The copy is compacted
   * and holds no WAL of its own. The online backup API would restart on every write of another
   * process and might never finish under load.
   */
  snapshotInto(path: string): Promise<void> {
    return this.#outside(() => {
      this.#db.prepare("VACUUM INTO ?").run(path);
      return Promise.resolve();
    });
  }

  /** `PRAGMA integrity_check`: "ok", or the problems SQLite found. */
  async integrityCheck(): Promise<string[]> {
    const rows = await this.query<{ integrity_check: string }>("PRAGMA integrity_check");
    return rows.map((r) => r.integrity_check);
  }

  ping(): Promise<void> {
    return this.#outside(async () => {
      await this.#direct.first("SELECT 1");
    });
  }

  close(): Promise<void> {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
    return Promise.resolve();
  }
}
