import { equal, ok } from "node:assert/strict";
import { h } from "preact";
import { renderToString } from "preact-render-to-string";
import { MAX_TITLE, ResultTable } from "./result_table.tsx";
import { notePage } from "./result_table_fixtures.ts";

Deno.test("a huge cell shows 80 characters and keeps at most 1,000 in its title", () => {
  const huge = "x".repeat(5_000_000);
  const html = renderToString(h(ResultTable, { page: notePage([[huge, 1], ["short", 2]]) }));
  ok(html.length < 4_000, `${html.length} characters of HTML for two rows`);
  const title = /<td title="([^"]*)"/.exec(html)![1];
  equal(title.length, MAX_TITLE);
  equal(title, `${"x".repeat(MAX_TITLE - 1)}…`);
  ok(html.includes(`>${"x".repeat(79)}…</td>`));
  // A short cell needs no title: it shows whole.
  ok(html.includes("<td>short</td>"));
});

Deno.test("a cell just over 80 characters keeps all of itself in its title", () => {
  const text = "y".repeat(81);
  const html = renderToString(h(ResultTable, { page: notePage([[text, 1], ["z", 2]]) }));
  ok(html.includes(`title="${text}"`));
});
