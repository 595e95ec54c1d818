/**
 * A stored result in the tools' rows shape: a 1,000,000-row result is paged by cursor under both
 * caps, and each page deserialises only the stored chunks around its rows, never the result.
 */
import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { forEachSharedStore } from "../../tests/support/shared_stores.ts";
import type { ColumnSchema, WireValue } from "../datasources/mod.ts";
import { AppError } from "../errors/mod.ts";
import type { SharedStore } from "../shared/mod.ts";
import {
  boundedResultRows,
  decodeResultCursor,
  encodeResultCursor,
  resultPosition,
} from "./result_rows.ts";
import { ResultStore } from "./result_store.ts";

const SCHEMA: ColumnSchema[] = [
  { name: "n", type: "integer", source_type: "INTEGER" },
  { name: "label", type: "string", source_type: "VARCHAR" },
];
const TOTAL = 1_000_000;
const CHUNK = 500;

/** The store, counting the rows every `range` read hands back (what a reader must parse). */
function counting(store: SharedStore) {
  const seen = { rows: 0, calls: 0 };
  const proxy = new Proxy(store, {
    get(target, prop) {
      if (prop !== "range") {
        // Bound to the store itself: its methods use private fields a proxy does not carry.
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (key: string, start: number, end: number) => {
        const chunks = await target.range(key, start, end);
        seen.calls++;
        for (const c of chunks) seen.rows += (JSON.parse(c) as unknown[]).length;
        return chunks;
      };
    },
  });
  return { proxy, seen };
}

forEachSharedStore(
  "a million-row result pages by cursor, reading only around each page",
  async (store, id) => {
    const writer = new ResultStore(store, { maxBytes: 1_000_000_000, chunkRows: CHUNK })
      .writer(id, SCHEMA, 300);
    const batch: WireValue[][] = [];
    for (let i = 0; i < TOTAL; i++) {
      batch.push([i, `row ${i}`]);
      if (batch.length === 10_000) await writer.append(batch.splice(0));
    }
    await writer.finish();

    const { proxy, seen } = counting(store);
    const results = new ResultStore(proxy, { maxBytes: 1_000_000_000, chunkRows: CHUNK });
    const read = (offset: number) => (o: number, l: number) => {
      equal(o, offset);
      return results.page(id, o, l).then((p) => p!);
    };
    const caps = { maxRows: 200, maxChars: 20_000 };

    const first = await boundedResultRows(read(0), { executionId: id, offset: 0 }, caps);
    deepEqual(first.columns, [{ name: "n", type: "integer" }, { name: "label", type: "string" }]);
    deepEqual([first.row_count, first.truncated], [200, true]);
    deepEqual(first.rows[199], [199, "row 199"]);
    deepEqual(decodeResultCursor(first.next_cursor!), { executionId: id, offset: 200 });
    ok(JSON.stringify(first.rows).length <= caps.maxChars);
    // cap + 1 rows fall inside one or two stored chunks: that is all that was parsed.
    ok(seen.rows <= 2 * CHUNK, `parsed ${seen.rows} rows`);

    // Across a chunk edge, deep in the result, and the very end.
    for (const offset of [400, 499_950, TOTAL - 150]) {
      seen.rows = 0;
      const page = await boundedResultRows(read(offset), { executionId: id, offset }, caps);
      equal(page.rows[0][0], offset);
      ok(seen.rows <= 2 * CHUNK, `parsed ${seen.rows} rows at ${offset}`);
      if (offset === TOTAL - 150) {
        deepEqual([page.row_count, page.truncated, page.next_cursor], [150, false, null]);
      } else {
        equal(decodeResultCursor(page.next_cursor!).offset, offset + 200);
      }
    }

    // The character cap cuts a page short, and the cursor resumes exactly after what was sent.
    const narrow = await boundedResultRows(read(1000), { executionId: id, offset: 1000 }, {
      maxRows: 200,
      maxChars: 500,
    });
    ok(JSON.stringify(narrow.rows).length <= 500);
    ok(narrow.row_count > 0 && narrow.row_count < 200 && narrow.truncated);
    const resume = decodeResultCursor(narrow.next_cursor!).offset;
    equal(resume, 1000 + narrow.row_count);
    const next = await boundedResultRows(read(resume), { executionId: id, offset: resume }, caps);
    equal(next.rows[0][0], resume);
  },
);

Deno.test("result cursors round-trip and refuse anything else with a 400 on cursor", () => {
  const id = crypto.randomUUID();
  deepEqual(decodeResultCursor(encodeResultCursor(id, 12345)), { executionId: id, offset: 12345 });
  deepEqual(resultPosition({ execution_id: id }), { executionId: id, offset: 0 });
  deepEqual(resultPosition({ cursor: encodeResultCursor(id, 7) }), { executionId: id, offset: 7 });
  const refused = (f: () => unknown, field: string) =>
    throws(f, (e) => e instanceof AppError && e.status === 400 && e.details.field === field);
  for (const bad of ["", "x", btoa("{}"), encodeResultCursor("not-a-uuid", 1), btoa('{"e":1}')]) {
    refused(() => decodeResultCursor(bad), "cursor");
  }
  refused(() => decodeResultCursor(encodeResultCursor(id, -1)), "cursor");
  const other = crypto.randomUUID();
  refused(
    () => resultPosition({ execution_id: other, cursor: encodeResultCursor(id, 1) }),
    "cursor",
  );
  refused(() => resultPosition({}), "execution_id");
});
