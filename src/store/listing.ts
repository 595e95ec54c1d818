/**
 * The read shapes repositories share: a filter built up condition by condition, a count, and a
 * page of a listing with the total its filter matches.
 */
import type { Counted, Page } from "../lib/paged_view.ts";
import type { Queryable, Row, SqlValue } from "./types.ts";

/** Conditions joined by AND; `$?` in a condition stands for the placeholder of its value. */
export class Conditions {
  readonly params: SqlValue[] = [];
  readonly #clauses: string[] = [];

  /** Adds a condition with no value, or with one value bound where `$?` stands. */
  add(sql: string, ...value: [] | [SqlValue]): this {
    if (value.length === 1) {
      this.params.push(value[0]);
      sql = sql.replaceAll("$?", `$${this.params.length}`);
    }
    this.#clauses.push(sql);
    return this;
  }

  /** Adds each condition whose value is given (not undefined, null or empty text). */
  addGiven(conditions: Record<string, SqlValue | undefined>): this {
    for (const [sql, value] of Object.entries(conditions)) {
      if (value !== undefined && value !== null && value !== "") this.add(sql, value);
    }
    return this;
  }

  /** The conditions joined by AND (`TRUE` when there are none). */
  get sql(): string {
    return this.#clauses.length ? this.#clauses.join(" AND ") : "TRUE";
  }
}

/** `$first, $first+1, …` for `count` values bound one after another (an IN list, a VALUES row). */
export function markers(count: number, first = 1): string {
  return Array.from({ length: count }, (_, i) => `$${first + i}`).join(", ");
}

/** The `n` that a `SELECT count(*) AS n …` query answers (0 when it answers no row). */
export async function countOf(
  db: Queryable,
  sql: string,
  params: SqlValue[] = [],
): Promise<number> {
  const row = await db.first<{ n: unknown }>(sql, params);
  return Number(row?.n ?? 0);
}

/**
 * One page of `rowsSql`, which ends in its ORDER BY (LIMIT and OFFSET are bound after `params`),
 * each row read by `map`, and the total `countSql` counts over the same `params`.
 */
export async function readPage<T>(
  db: Queryable,
  countSql: string,
  rowsSql: string,
  params: SqlValue[],
  page: Page,
  map: (row: Row) => T,
): Promise<Counted<T>> {
  const total = await countOf(db, countSql, params);
  const rows = await db.query(
    `${rowsSql} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { items: rows.map(map), total };
}
