/**
 * The staging engine: DuckDB, one private in-memory database per execution (DECISIONS.md). The
 * executor arrives later; the probe here opens a database exactly as an execution will.
 */
import { DuckDBInstance } from "@duckdb/node-api";

/** Opens a private in-memory DuckDB, runs a query, closes it; throws when DuckDB cannot run. */
export async function probeStagingEngine(): Promise<void> {
  const instance = await DuckDBInstance.create(":memory:");
  try {
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll("SELECT 42 AS answer");
      if (reader.getRows()[0]?.[0] !== 42) throw new Error("DuckDB answered wrongly");
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
