/** The production store: PostgreSQL through the `postgres` package. */
import postgres from "postgres";
import type { Db, Queryable, Row, SqlValue } from "./types.ts";

/** Any fixed number works; it only has to be the same for every replica. */
const MIGRATION_LOCK_KEY = 7_342_001;

type Sql = postgres.Sql | postgres.TransactionSql;

function wrap(sql: Sql): Queryable {
  const run = (text: string, params: SqlValue[] = []) =>
    sql.unsafe(
      text,
      params.map((p) => (p === undefined ? null : p)) as postgres.ParameterOrJSON<never>[],
    );
  return {
    dialect: "postgres",
    query: async <T>(text: string, params?: SqlValue[]) => [...(await run(text, params))] as T[],
    first: async <T>(text: string, params?: SqlValue[]) =>
      (await run(text, params))[0] as T | undefined,
    execute: async (text: string, params?: SqlValue[]) => (await run(text, params)).count ?? 0,
  };
}

export class PostgresDb implements Db {
  readonly dialect = "postgres" as const;
  readonly #sql: postgres.Sql;
  readonly #q: Queryable;

  constructor(url: string, options: { poolSize?: number; connectTimeoutSeconds?: number } = {}) {
    this.#sql = postgres(url, {
      max: options.poolSize ?? 10,
      connect_timeout: options.connectTimeoutSeconds ?? 5,
      idle_timeout: 60,
      onnotice: () => {},
      // int8 (counts, sums) as numbers: every value we store fits a double.
      types: { int8: { to: 20, from: [20], serialize: String, parse: Number } },
      connection: { application_name: "pipeline-service", TimeZone: "UTC" },
    });
    this.#q = wrap(this.#sql);
  }

  query<T = Row>(sql: string, params?: SqlValue[]): Promise<T[]> {
    return this.#q.query<T>(sql, params);
  }

  first<T = Row>(sql: string, params?: SqlValue[]): Promise<T | undefined> {
    return this.#q.first<T>(sql, params);
  }

  execute(sql: string, params?: SqlValue[]): Promise<number> {
    return this.#q.execute(sql, params);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return await this.#sql.begin((tx) => fn(wrap(tx))) as T;
  }

  async withMigrationLock<T>(
    fn: (tx: Queryable & { script(sql: string): Promise<void> }) => Promise<T>,
  ): Promise<T> {
    return await this.#sql.begin(async (tx) => {
      // Transaction-scoped: a replica that starts at the same moment waits here until this one has
      // committed, then finds every migration applied.
      await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      return await fn({
        ...wrap(tx),
        script: async (sql: string) => {
          await tx.unsafe(sql);
        },
      });
    }) as T;
  }

  async ping(): Promise<void> {
    await this.#sql.unsafe("SELECT 1");
  }

  async close(): Promise<void> {
    await this.#sql.end({ timeout: 5 });
  }
}
