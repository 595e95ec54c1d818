/**
 * Warm staging instances (docs/executions.md#the-staging-pool): sandboxed in-memory DuckDB
 * instances, each lent to one run at a time, so a staged run does not pay the ~10 ms of CPU that
 * creating an instance costs.
 *
 * A run stages in a database of its own, `tempdb`, attached fresh to the lent instance (a new
 * in-memory database: nothing of an earlier run is in it). When the run gives the instance back,
 * its connections are closed and `tempdb` is detached, which frees every table, view, macro, type,
 * sequence and schema made in it. What a run could leave elsewhere (an object written into the
 * instance's own `memory` database by its full name, a secret, a setting, a spill file) is caught
 * by comparing the instance's catalogue, settings, secrets and temporary files with what the same
 * instance showed when it was new: any difference, or any failure on the way, discards the
 * instance instead of lending it again. Spares are made in the background, never while a run
 * waits for one, unless there is none at all.
 */
import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import {
  privateTempDirectory,
  removeTempDirectory,
  sandboxConfig,
  SqliteThread,
} from "../datasources/mod.ts";
import type { Logger } from "../lib/log.ts";
import { type Warm, WarmPool, type WarmPoolStats } from "./warm_pool.ts";

/** The name of every run's staging database inside a lent instance. */
export const STAGING_DATABASE = "tempdb";

/**
 * What a run could leave in an instance outside its own database, one line per item: the
 * attached databases, the schemas, tables, views, sequences and indexes of every catalogue, the
 * settings, variables and temporary files. Read on the pool's own connection, which never runs
 * author SQL. Macros and types are not listed (listing the ~3000 built-in functions costs more
 * than a new instance): outside `tempdb` an author can make them only in the read-only base
 * database, which refuses them, in `system`, which refuses them too, or in the connection's own
 * `temp` catalogue, which closes with the connection. `max_temp_directory_size` is left out: by
 * default it is a share of the free disk, computed when the instance first spills, and no run can
 * set it (the configuration is locked).
 */
const STATE = `
SELECT 'database ' || database_name || ' ' || type || ' ' || readonly FROM duckdb_databases()
UNION ALL SELECT 'schema ' || database_name || '.' || schema_name FROM duckdb_schemas()
UNION ALL SELECT 'table ' || database_name || '.' || schema_name || '.' || table_name
  FROM duckdb_tables()
UNION ALL SELECT 'view ' || database_name || '.' || schema_name || '.' || view_name
  FROM duckdb_views() WHERE NOT internal
UNION ALL SELECT 'sequence ' || database_name || '.' || schema_name || '.' || sequence_name
  FROM duckdb_sequences()
UNION ALL SELECT 'index ' || database_name || '.' || schema_name || '.' || index_name
  FROM duckdb_indexes()
UNION ALL SELECT 'setting ' || name || '=' || coalesce(value, 'NULL') FROM duckdb_settings()
  WHERE name <> 'max_temp_directory_size'
UNION ALL SELECT 'variable ' || name FROM duckdb_variables()
UNION ALL SELECT 'temporary file ' || path FROM duckdb_temporary_files()
ORDER BY 1`;

/** A run's fresh database. The instance is read-only; its run's database is not. */
const ATTACH = `ATTACH ':memory:' AS ${STAGING_DATABASE} (READ_WRITE)`;

let base: Promise<string> | undefined;

/**
 * An empty database file every pooled instance opens read-only as its default database, so
 * nothing can be created there: a run's objects can only land in its own `tempdb`.
 */
function baseFile(): Promise<string> {
  base ??= (async () => {
    const path = `${await privateTempDirectory("staging-base")}.duckdb`;
    const maker = await DuckDBInstance.create(path);
    maker.closeSync();
    return path;
  })();
  base.catch(() => (base = undefined));
  return base;
}

/** The instance's state after `before` (statements run first, in the same call). */
async function stateOf(conn: DuckDBConnection, before: string): Promise<string> {
  const rows = (await conn.runAndReadAll(`${before} ${STATE}`)).getRows();
  return rows.map((r) => String(r[0])).join("\n");
}

/** One pooled instance, with the pool's own connection and what it showed when new. */
export class DuckdbHost implements Warm {
  readonly reusable = true;

  private constructor(
    readonly instance: DuckDBInstance,
    readonly control: DuckDBConnection,
    readonly tempDirectory: string,
    readonly baseline: string,
  ) {}

  static async create(memoryMb: number): Promise<DuckdbHost> {
    const tempDirectory = await privateTempDirectory();
    const instance = await DuckDBInstance.create(
      await baseFile(),
      sandboxConfig({ tempDirectory, memoryMb, accessMode: "READ_ONLY" }),
    );
    try {
      const control = await instance.connect();
      const baseline = await stateOf(control, `${ATTACH};`);
      return new DuckdbHost(instance, control, tempDirectory, baseline);
    } catch (error) {
      instance.closeSync();
      await removeTempDirectory(tempDirectory);
      throw error;
    }
  }

  /**
   * Detaches the run's database and attaches a fresh one, then answers what differs from the
   * instance as it was new (then it must not be lent again), or undefined. One call: every call
   * into DuckDB after a run competes with the next run's statements on other instances.
   */
  async reset(): Promise<string | undefined> {
    const state = await stateOf(this.control, `DETACH ${STAGING_DATABASE}; ${ATTACH};`);
    if (state !== this.baseline) return firstDifference(state, this.baseline);
    if (await hasFiles(this.tempDirectory)) return "files in its spill directory";
    return undefined;
  }

  async close(): Promise<void> {
    try {
      this.control.closeSync();
      this.instance.closeSync();
    } finally {
      await removeTempDirectory(this.tempDirectory);
    }
  }
}

function firstDifference(state: string, baseline: string): string {
  const was = new Set(baseline.split("\n"));
  const is = new Set(state.split("\n"));
  const added = [...is].find((line) => !was.has(line));
  const gone = [...was].find((line) => !is.has(line));
  return added ? `left: ${added}` : `gone: ${gone}`;
}

async function hasFiles(directory: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(directory)) return true;
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * One SQLite worker with a private in-memory database (the SQLite staging engine's). Starting a
 * worker costs tens of milliseconds of CPU, opening a database on a running one well under one:
 * between runs the database is closed (everything a run made lives in it and goes with it) and a
 * new one opened on the same worker, through a new connection object, so nothing the last run
 * held can reach the next database (`SqliteThread.reopen`). A worker an abort ended is discarded.
 */
export class SqliteHost implements Warm {
  private constructor(public thread: SqliteThread) {}

  static async create(): Promise<SqliteHost> {
    return new SqliteHost(await new SqliteThread({ path: ":memory:" }).ready());
  }

  get reusable(): boolean {
    return this.thread.alive;
  }

  async reset(): Promise<string | undefined> {
    const next = await this.thread.reopen();
    if (!next) return "its worker could not close its database";
    this.thread = await next.ready();
    return undefined;
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}

export interface StagingPoolOptions {
  /**
   * `service.executor.staging-pool-size`: hosts of each engine kept warm between runs. 0 keeps
   * none: every run makes its own and closes it at its end (the benchmark's baseline).
   */
  size: number;
  /** `service.executor.duckdb-memory-limit-mb`. */
  memoryMb: number;
  logger?: Logger;
}

/** The staging pool's counters, per engine. */
export interface StagingPoolStats extends WarmPoolStats {
  sqlite: WarmPoolStats;
}

/** Warm staging hosts of both engines: DuckDB instances and SQLite workers. */
export class StagingPool {
  readonly duckdb: WarmPool<DuckdbHost>;
  readonly sqlite: WarmPool<SqliteHost>;

  constructor(options: StagingPoolOptions) {
    const { size, memoryMb, logger } = options;
    this.duckdb = new WarmPool({
      size,
      make: () => DuckdbHost.create(memoryMb),
      what: "staging instance",
      logger,
    });
    this.sqlite = new WarmPool({
      size,
      make: () => SqliteHost.create(),
      what: "SQLite staging worker",
      logger,
    });
  }

  get size(): number {
    return this.duckdb.size;
  }

  /** DuckDB's counters, as before SQLite was pooled, with SQLite's beside them. */
  stats(): StagingPoolStats {
    return { ...this.duckdb.stats(), sqlite: this.sqlite.stats() };
  }

  async settled(): Promise<void> {
    await Promise.all([this.duckdb.settled(), this.sqlite.settled()]);
  }

  async close(): Promise<void> {
    await Promise.all([this.duckdb.close(), this.sqlite.close()]);
  }
}
