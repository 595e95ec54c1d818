/** Database files for tests: a SQLite or DuckDB file made by running SQL, then closed. */
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
