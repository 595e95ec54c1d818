import { deepEqual, equal, ok } from "node:assert/strict";
import { ELLIPSIS, fitRows } from "./bounded_rows.ts";

const rows = (n: number) => Array.from({ length: n }, (_, i) => [i, `row ${i}`]);

Deno.test("fitRows() keeps at most maxRows rows and says when more exist", () => {
  deepEqual(fitRows(rows(3), { maxRows: 5, maxChars: 1000 }, false), {
    rows: rows(3),
    consumed: 3,
    truncated: false,
  });
  const capped = fitRows(rows(6), { maxRows: 5, maxChars: 1000 }, false);
  deepEqual([capped.rows.length, capped.consumed, capped.truncated], [5, 5, true]);
  equal(fitRows(rows(5), { maxRows: 5, maxChars: 1000 }, true).truncated, true);
  deepEqual(fitRows([], { maxRows: 5, maxChars: 1000 }, false), {
    rows: [],
    consumed: 0,
    truncated: false,
  });
});

Deno.test("fitRows() keeps the JSON of rows within maxChars", () => {
  const all = rows(100);
  for (const maxChars of [20, 50, 123, 400]) {
    const fit = fitRows(all, { maxRows: 100, maxChars }, false);
    ok(JSON.stringify(fit.rows).length <= maxChars, `${maxChars}`);
    // One more row would not have fitted: the cap is used, not wasted.
    ok(JSON.stringify(all.slice(0, fit.consumed + 1)).length > maxChars, `${maxChars}`);
    deepEqual(fit.rows, all.slice(0, fit.consumed));
    equal(fit.truncated, true);
  }
});

Deno.test("fitRows() shortens a first row too long on its own, so a page always advances", () => {
  const wide = [[1, "x".repeat(5000), "y".repeat(300), null, '"quoted"'.repeat(200)], [2, "z"]];
  const fit = fitRows(wide, { maxRows: 10, maxChars: 1000 }, false);
  deepEqual([fit.rows.length, fit.consumed, fit.truncated], [1, 1, true]);
  ok(JSON.stringify(fit.rows).length <= 1000, String(JSON.stringify(fit.rows).length));
  const [id, long, , nil] = fit.rows[0];
  deepEqual([id, nil], [1, null]);
  ok((long as string).endsWith(ELLIPSIS) && (long as string).startsWith("xxx"));
});
