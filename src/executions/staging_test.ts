import { deepEqual, equal, throws } from "node:assert/strict";
import { DuckdbStaging, scaledDecimal, type Staging } from "./staging.ts";
import { SqliteStaging } from "./staging_sqlite.ts";
import type { ColumnSchema, WireValue } from "../datasources/connectors/mod.ts";

Deno.test("scaledDecimal scales exactly and rounds half away from zero", () => {
  equal(scaledDecimal("9.5", 2), 950n);
  equal(scaledDecimal("-0.125", 2), -13n);
  equal(scaledDecimal("12345678901234567890.1234567891", 10), 123456789012345678901234567891n);
  equal(scaledDecimal(".5", 0), 1n);
  throws(() => scaledDecimal("1e5", 2));
});

const ENGINES: [string, () => Staging][] = [
  ["duckdb", () => DuckdbStaging.open()],
  ["sqlite", () => new SqliteStaging()],
];

for (const [engine, open] of ENGINES) {
  Deno.test(`[${engine}] staging loads every wire type and reads it back unchanged`, async () => {
    const staging = open();
    try {
      const schema: ColumnSchema[] = [
        { name: "b", type: "boolean", source_type: "bool" },
        { name: "i", type: "integer", source_type: "int4" },
        { name: "big", type: "bigint", source_type: "int8" },
        { name: "d", type: "decimal", source_type: "numeric(12,3)" },
        { name: "f", type: "double", source_type: "float8" },
        { name: "s", type: "string", source_type: "text" },
        { name: "day", type: "date", source_type: "date" },
        { name: "ts", type: "timestamp", source_type: "timestamp" },
        { name: "tz", type: "timestamptz", source_type: "timestamptz" },
        { name: "bin", type: "binary", source_type: "bytea" },
        { name: "u", type: "uuid", source_type: "uuid" },
      ];
      const row: WireValue[] = [
        true,
        7,
        9007199254740993n,
        "123456789.125",
        1.5,
        'x,"y"',
        "2024-02-29",
        "2024-02-29T10:11:12.5",
        "2024-02-29T10:11:12Z",
        new Uint8Array([1, 2, 255]),
        "0b6c1c0e-6a7e-4d2a-9a55-7c7f6a1b2c3d",
      ];
      const nulls: WireValue[] = schema.map(() => null);
      // More rows than one data chunk holds, so the batch is split.
      const many = Array.from({ length: 5000 }, () => row);
      const batches = async function* () {
        yield [row, nulls];
        yield many;
      };
      let seen = 0;
      const rows = await staging.load("t", schema, batches(), (n) => {
        seen += n;
        return Promise.resolve();
      });
      equal(rows, 5002);
      equal(seen, 5002);
      const out: WireValue[][] = [];
      for await (const b of await staging.connector.query({ sql: "SELECT * FROM t LIMIT 2" })) {
        out.push(...b);
      }
      deepEqual(out[0].slice(0, 9), [
        true,
        7,
        9007199254740993n,
        "123456789.125",
        1.5,
        'x,"y"',
        "2024-02-29",
        "2024-02-29T10:11:12.5",
        "2024-02-29T10:11:12Z",
      ]);
      deepEqual(out[0][9], new Uint8Array([1, 2, 255]));
      equal(out[0][10], row[10]);
      deepEqual(out[1], nulls);
      deepEqual(
        (await staging.connector.query({ sql: "SELECT * FROM t LIMIT 1" })).schema.map((c) =>
          c.type
        ),
        schema.map((c) => c.type),
        "each column reads back as its staged wire type",
      );
      // A decimal is held at its column's scale, whatever digits the source sent.
      const decimals: ColumnSchema[] = [{
        name: "d",
        type: "decimal",
        source_type: "numeric(6,2)",
      }];
      await staging.load(
        "d",
        decimals,
        (async function* () {
          yield [["1.5"], ["-0.125"], ["7"]];
        })(),
        () => Promise.resolve(),
      );
      const read: WireValue[][] = [];
      for await (const b of await staging.connector.query({ sql: "SELECT d FROM d" })) {
        read.push(...b);
      }
      deepEqual(read, [["1.50"], ["-0.13"], ["7.00"]]);
    } finally {
      await staging.close();
    }
  });
}
