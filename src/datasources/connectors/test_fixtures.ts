/**
 * What connector tests share: database files made by running SQL, and what every server answers
 * alike.
 */
import { DatabaseSync } from "node:sqlite";
import { DuckDBInstance } from "@duckdb/node-api";

/** Creates (or opens) the SQLite file at `path` and runs `sql` on it. */
export function makeSqliteFile(path: string, sql: string): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/** Creates (or opens) the DuckDB file at `path` and runs `sql` on it. */
export async function makeDuckdbFile(path: string, sql: string): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  try {
    const conn = await instance.connect();
    try {
      await conn.run(sql);
    } finally {
      conn.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/**
 * The `d DECIMAL(12,3)` column of each server test's table, described: only the server's own
 * spelling of the type (`source_type`) differs between servers.
 */
export function decimalColumn(source_type: string) {
  return {
    name: "d",
    type: "decimal",
    source_type,
    nullable: true,
    precision: 12,
    scale: 3,
    warnings: [],
    references: [],
    indexes: [],
  };
}
