import { DuckDBInstance } from "@duckdb/node-api";
import { deepEqual } from "node:assert/strict";
import { rowBytes, variableWidth } from "./duckdb_bytes.ts";

/** The per-row bytes of each column of `sql`'s first chunk. */
async function measured(sql: string): Promise<number[][]> {
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  try {
    const chunk = (await (await conn.stream(sql)).fetchChunk())!;
    return Array.from({ length: chunk.columnCount }, (_, i) => {
      const vector = chunk.getColumnVector(i);
      return [variableWidth(vector) ? 1 : 0, ...rowBytes(vector, chunk.rowCount)];
    });
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

Deno.test("rowBytes() reads strings' and blobs' lengths off the engine's headers, NULL as 0", async () => {
  deepEqual(
    await measured(`SELECT * FROM (VALUES
      ('é', '\\xAA\\xBB\\xCC'::BLOB, 1), (repeat('x', 100), NULL, 2), (NULL, 'z'::BLOB, 3)) t(s, b, n)`),
    [[1, 2, 100, 0], [1, 3, 0, 1], [0, 8, 8, 8]],
  );
});

Deno.test("rowBytes() adds up nested values: lists, structs, maps and arrays of strings", async () => {
  deepEqual(
    await measured(`SELECT
      [repeat('a', 10), repeat('b', 20)] AS l,
      {'k': repeat('c', 30), 'n': 1} AS st,
      MAP {'key': repeat('d', 40)} AS m,
      array_value(repeat('e', 5), repeat('f', 6)) AS a`),
    [[1, 8 + 30], [1, 30 + 8], [1, 8 + 3 + 40], [1, 8 + 11]],
  );
});
