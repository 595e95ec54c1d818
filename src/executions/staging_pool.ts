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
import { privateTempDirectory, removeTempDirectory, sandboxConfig } from "../datasources/mod.ts";
import type { Logger } from "../lib/log.ts";

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

async function stateOf(conn: DuckDBConnection): Promise<string> {
  const rows = (await conn.runAndReadAll(STATE)).getRows();
  return rows.map((r) => String(r[0])).join("\n");
}

/** One pooled instance, with the pool's own connection and what it showed when new. */
class Host {
  private constructor(
    readonly instance: DuckDBInstance,
    readonly control: DuckDBConnection,
    readonly tempDirectory: string,
    readonly baseline: string,
  ) {}

  static async create(memoryMb: number): Promise<Host> {
    const tempDirectory = await privateTempDirectory();
    const instance = await DuckDBInstance.create(
      await baseFile(),
      sandboxConfig({ tempDirectory, memoryMb, accessMode: "READ_ONLY" }),
    );
    try {
      const control = await instance.connect();
      const host = new Host(instance, control, tempDirectory, await stateOf(control));
      await host.#attach();
      return host;
    } catch (error) {
      instance.closeSync();
      await removeTempDirectory(tempDirectory);
      throw error;
    }
  }

  /**
   * Detaches the run's database and attaches a fresh one; answers what differs from the
   * instance as it was new (then it must not be lent again), or undefined.
   */
  async reset(): Promise<string | undefined> {
    await this.control.run(`DETACH ${STAGING_DATABASE}`);
    const state = await stateOf(this.control);
    if (state !== this.baseline) return firstDifference(state, this.baseline);
    if (await hasFiles(this.tempDirectory)) return "files in its spill directory";
    await this.#attach();
    return undefined;
  }

  // The instance is read-only; its run's database is not.
  #attach(): Promise<unknown> {
    return this.control.run(`ATTACH ':memory:' AS ${STAGING_DATABASE} (READ_WRITE)`);
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

/** An instance lent to one run; `release` gives it back once the run closed its connections. */
export interface StagingLease {
  readonly instance: DuckDBInstance;
  release(): void;
}

export interface StagingPoolOptions {
  /**
   * `service.executor.staging-pool-size`: instances kept warm between runs. 0 keeps none: every
   * run creates an instance and closes it at its end (the benchmark's baseline).
   */
  size: number;
  /** `service.executor.duckdb-memory-limit-mb`. */
  memoryMb: number;
  logger?: Logger;
}

/** Counters the tests and the benchmark read. */
export interface StagingPoolStats {
  created: number;
  reused: number;
  discarded: number;
  idle: number;
  lent: number;
}

export class StagingPool {
  readonly #o: StagingPoolOptions;
  readonly #idle: Host[] = [];
  /** Background work in flight (spares being made, instances being reset). */
  readonly #pending = new Set<Promise<void>>();
  #spares = 0;
  /** Instances lent to runs now. */
  #lent = 0;
  #closed = false;
  readonly #stats = { created: 0, reused: 0, discarded: 0 };

  constructor(options: StagingPoolOptions) {
    this.#o = options;
  }

  get size(): number {
    return this.#o.size;
  }

  stats(): StagingPoolStats {
    return { ...this.#stats, idle: this.#idle.length, lent: this.#lent };
  }

  /** Lends an instance: an idle one, else a new one made now. Keeps one spare coming. */
  async lease(): Promise<StagingLease> {
    if (this.#closed) throw new Error("the staging pool is closed");
    let host = this.#idle.pop();
    if (host) this.#stats.reused++;
    else {
      host = await Host.create(this.#o.memoryMb);
      this.#stats.created++;
    }
    this.#lent++;
    this.#topUp();
    let released = false;
    const lent = host;
    return {
      instance: lent.instance,
      release: () => {
        if (released) return;
        released = true;
        this.#background(this.#giveBack(lent));
      },
    };
  }

  /** Resolves once no spare or reset is in flight (tests, the benchmark, shutdown). */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.settled();
    await Promise.allSettled(this.#idle.splice(0).map((h) => h.close()));
  }

  async #giveBack(host: Host): Promise<void> {
    this.#lent--;
    if (!this.#closed && this.#idle.length < this.#o.size) {
      const left = await host.reset().catch((error) =>
        `reset failed: ${error instanceof Error ? error.message : String(error)}`
      );
      // Another instance may have come back while this one was reset.
      if (left === undefined && this.#idle.length < this.#o.size) {
        this.#idle.push(host);
        return;
      }
      if (left !== undefined) {
        this.#stats.discarded++;
        this.#o.logger?.warn("staging instance not clean after a run; discarded", { left });
      }
    }
    await host.close();
    this.#topUp();
  }

  /**
   * Makes a spare in the background when no instance waits and fewer than `size` are lent, so
   * the next run finds one made while nobody waited.
   */
  #topUp(): void {
    if (this.#closed || this.#idle.length + this.#spares > 0) return;
    if (this.#lent + this.#spares >= this.#o.size) return;
    this.#spares++;
    this.#background(
      Host.create(this.#o.memoryMb).then(async (host) => {
        this.#stats.created++;
        if (this.#closed || this.#idle.length >= this.#o.size) await host.close();
        else this.#idle.push(host);
      }).catch((error) => {
        this.#o.logger?.warn("staging spare not made", {
          error: error instanceof Error ? error.message : String(error),
        });
      }).finally(() => this.#spares--),
    );
  }

  #background(work: Promise<void>): void {
    const tracked = work.catch(() => {}).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }
}
