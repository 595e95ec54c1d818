import { forEachSharedStore } from "../../tests/support/shared_stores.ts";
import { eventually } from "../../tests/support/wait.ts";
import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { MemoryStore } from "../shared/mod.ts";
import type { ColumnSchema, WireValue } from "../datasources/mod.ts";
import { csvFromChunk, csvLine, type JsonCell, ResultStore } from "./result_store.ts";

const SCHEMA: ColumnSchema[] = [
  { name: "n", type: "integer", source_type: "INTEGER" },
  { name: "label", type: "string", source_type: "VARCHAR" },
];
const rows = (from: number, to: number): WireValue[][] =>
  Array.from({ length: to - from }, (_, i) => [from + i, `row ${from + i}`]);

forEachSharedStore(
  "pages come back in stored order across chunk edges; nothing is readable before finish()",
  async (store, id) => {
    const results = new ResultStore(store, { maxBytes: 10_000_000, chunkRows: 100 });
    const writer = results.writer(id, SCHEMA, 300);
    for (let i = 0; i < 1234; i += 317) await writer.append(rows(i, Math.min(i + 317, 1234)));
    equal(await results.describe(id), null, "incomplete results are invisible");
    const stored = await writer.finish();
    equal(stored.row_count, 1234);
    deepEqual(stored.schema, [{ name: "n", type: "integer" }, { name: "label", type: "string" }]);
    deepEqual(await results.describe(id), stored);

    for (const [offset, limit] of [[0, 10], [95, 10], [100, 100], [1200, 100], [1233, 5]]) {
      const page = (await results.page(id, offset, limit))!;
      const expected = rows(offset, Math.min(offset + limit, 1234));
      deepEqual(page.rows, expected, `offset ${offset} limit ${limit}`);
    }
    deepEqual((await results.page(id, 5000, 10))!.rows, []);
    equal(await results.page(crypto.randomUUID(), 0, 10), null);
  },
);

forEachSharedStore(
  "values take their wire form: bigint and binary as text, non-finite doubles named",
  async (store, id) => {
    const results = new ResultStore(store, { maxBytes: 1_000_000 });
    const writer = results.writer(id, [
      { name: "big", type: "bigint", source_type: "BIGINT" },
      { name: "bin", type: "binary", source_type: "BLOB" },
      { name: "d", type: "double", source_type: "DOUBLE" },
      { name: "dec", type: "decimal", source_type: "DECIMAL(20,2)", precision: 20, scale: 2 },
    ], 300);
    await writer.append([
      [9007199254740993n, new Uint8Array([0, 255, 16]), Number.NaN, "12345678901234567.89"],
      [null, null, Number.NEGATIVE_INFINITY, null],
    ]);
    const stored = await writer.finish();
    deepEqual(stored.schema[3], { name: "dec", type: "decimal", precision: 20, scale: 2 });
    deepEqual((await results.page(id, 0, 10))!.rows, [
      ["9007199254740993", "AP8Q", "NaN", "12345678901234567.89"],
      [null, null, "-Infinity", null],
    ]);
  },
);

forEachSharedStore("expiry is fixed at write time and reads never extend it", async (store, id) => {
  const results = new ResultStore(store, { maxBytes: 1_000_000 });
  const writer = results.writer(id, SCHEMA, 1);
  await writer.append(rows(0, 3));
  const stored = await writer.finish();
  const before = await store.ttl(`result:${id}:meta`);
  // Each key's own expiry is the reference: the two are set a moment apart at write time.
  const rowsBefore = await store.ttl(`result:${id}:rows`);
  ok(before > 0 && before <= 1000, `ttl ${before}`);
  for (let i = 0; i < 5; i++) await results.page(id, 0, 3);
  ok((await store.ttl(`result:${id}:meta`)) <= before);
  ok((await store.ttl(`result:${id}:rows`)) <= rowsBefore);
  ok(Date.parse(stored.expires_at) - Date.now() <= 1000);
  await eventually(async () => (await results.describe(id)) === null);
  equal(await results.page(id, 0, 3), null);
  equal(await results.csv(id), null);
});

forEachSharedStore(
  "a result over the size cap fails with result.too_large and leaves nothing behind",
  async (store, id) => {
    const results = new ResultStore(store, { maxBytes: 2_000, chunkRows: 10 });
    const writer = results.writer(id, SCHEMA, 300);
    await rejects(writer.append(rows(0, 500)), (e: { code?: string; details?: unknown }) => {
      equal(e.code, "result.too_large");
      deepEqual(e.details, { execution_id: id, max_size_bytes: 2_000 });
      return true;
    });
    equal(await store.length(`result:${id}:rows`), 0);
    equal(await results.describe(id), null);
  },
);

Deno.test("a store that cannot write fails with result.storage_unavailable, naming no dependency", async () => {
  const store = new MemoryStore();
  const results = new ResultStore(store, { maxBytes: 1_000_000, chunkRows: 2 });
  const writer = results.writer("e1", SCHEMA, 300);
  await store.close();
  await rejects(writer.append(rows(0, 5)), (e: Error & { code?: string; details?: unknown }) => {
    equal(e.code, "result.storage_unavailable");
    deepEqual(e.details, { execution_id: "e1" });
    ok(e.cause instanceof Error);
    return true;
  });
});

forEachSharedStore(
  "csv() streams the header and every row, quoting per RFC 4180",
  async (store, id) => {
    const results = new ResultStore(store, { maxBytes: 10_000_000, chunkRows: 7 });
    const writer = results.writer(id, SCHEMA, 300);
    await writer.append([[1, 'say "hi", then\nleave'], [2, null], ...rows(3, 100)]);
    await writer.finish();
    const text = await new Response(await results.csv(id)).text();
    const lines = text.split("\r\n");
    equal(lines[0], "n,label");
    ok(text.startsWith('n,label\r\n1,"say ""hi"", then\nleave"\r\n2,\r\n3,row 3\r\n'));
    ok(text.endsWith("99,row 99\r\n"));
    equal(text.split("\r\n").length - 1, 100);
  },
);

Deno.test("csvLine() quotes only what needs quoting", () => {
  equal(
    csvLine(["a", 1, true, null, "x,y", 'q"', "line\rbreak"]),
    'a,1,true,,"x,y","q""","line\rbreak"\r\n',
  );
});

Deno.test("csvFromChunk writes exactly what csvLine writes for the parsed rows", () => {
  // A seeded generator, so a failure is reproducible: text full of what CSV and JSON escape.
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pieces = [
    "a",
    ",",
    '"',
    "\\",
    "\r",
    "\n",
    "é",
    "😀",
    "\u2028",
    "\ud800",
    " ",
    'x\\"y',
    "null",
  ];
  const cell = (): JsonCell => {
    const r = random();
    if (r < 0.1) return null;
    if (r < 0.2) return random() < 0.5;
    if (r < 0.35) return (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
    if (r < 0.4) return Math.floor(random() * 1000) - 500;
    let text = "";
    for (let i = Math.floor(random() * 6); i > 0; i--) {
      text += pieces[Math.floor(random() * pieces.length)];
    }
    return text;
  };
  for (let t = 0; t < 3000; t++) {
    const columns = 1 + Math.floor(random() * 5);
    const rows = Array.from(
      { length: Math.floor(random() * 12) },
      () => Array.from({ length: columns }, cell),
    );
    const text = JSON.stringify(rows);
    equal(csvFromChunk(text), rows.map(csvLine).join(""), text);
  }
  equal(csvFromChunk("[]"), "");
  // A damaged chunk fails instead of looping.
  throws(() => csvFromChunk('[["abc'));
});

Deno.test("size_bytes is the UTF-8 size of the stored JSON, ASCII or not", async () => {
  const results = new ResultStore(new MemoryStore(), { maxBytes: 1_000_000, chunkRows: 2 });
  const writer = results.writer("sized", SCHEMA, 300);
  const batch: WireValue[][] = [[1, "plain"], [2, "ascii"], [3, "héllo 😀"]];
  await writer.append(batch);
  const stored = await writer.finish();
  const expected = new TextEncoder().encode(JSON.stringify(batch.slice(0, 2))).length +
    new TextEncoder().encode(JSON.stringify(batch.slice(2))).length;
  equal(stored.size_bytes, expected);
});

Deno.test("append() rewrites cells in place, and the same rows appended again store the same", async () => {
  const results = new ResultStore(new MemoryStore(), { maxBytes: 1_000_000 });
  const writer = results.writer("again", [
    { name: "big", type: "bigint", source_type: "BIGINT" },
    { name: "bin", type: "binary", source_type: "BLOB" },
    { name: "d", type: "double", source_type: "DOUBLE" },
    { name: "s", type: "string", source_type: "VARCHAR" },
  ], 300);
  const batch: WireValue[][] = [[2n ** 60n, new Uint8Array([1]), Number.POSITIVE_INFINITY, "x"]];
  await writer.append(batch);
  deepEqual(batch, [["1152921504606846976", "AQ==", "Infinity", "x"]]);
  await writer.append(batch);
  await writer.finish();
  const { rows } = (await results.page("again", 0, 10))!;
  deepEqual(rows, [batch[0], batch[0]]);
});
