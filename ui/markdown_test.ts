import { equal, match, ok } from "node:assert/strict";
import { markdownToHtml, slug } from "./markdown.ts";

Deno.test("raw HTML in a page's Markdown is shown as text, never as markup", () => {
  const html = markdownToHtml(
    "# Title\n\n<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)> here.",
  );
  ok(!html.includes("<script"), html);
  ok(!html.includes("<img"), html);
  match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
});

Deno.test("the first heading is the caller's title; later headings get GitHub-style anchors", () => {
  const html = markdownToHtml("# Title\n\nIntro.\n\n## Who may call\n\nText.");
  ok(!html.includes("Title"), html);
  match(html, /<h2 id="who-may-call">Who may call<\/h2>/);
  // What GitHub gives these headings, so a link that works there works on the site.
  const github: [string, string][] = [
    ["Matching, and several replicas", "matching-and-several-replicas"],
    ["From a released pipeline to curl", "from-a-released-pipeline-to-curl"],
    ["MYSQL (MySQL and MariaDB)", "mysql-mysql-and-mariadb"],
    [
      "Tool-only reads: table statistics and learned facts",
      "tool-only-reads-table-statistics-and-learned-facts",
    ],
    ["service.http.* settings", "servicehttp-settings"],
    ["snake_case stays", "snake_case-stays"],
    ["Über straße 2", "über-straße-2"],
  ];
  for (const [text, anchor] of github) equal(slug(text), anchor, text);
});

Deno.test("anchors are GitHub's: punctuation dropped, each space a hyphen, link text only, repeats numbered", () => {
  const html = markdownToHtml(
    "# T\n\n## A & B — `c.d`\n\n## See [the guide](x.md) **now**\n\n## Notes\n\n### Notes",
  );
  match(html, /<h2 id="a--b--cd">/);
  match(html, /<h2 id="see-the-guide-now">/);
  match(html, /<h2 id="notes">/);
  match(html, /<h3 id="notes-1">/);
  match(markdownToHtml("# T\n\n## Notes"), /<h2 id="notes">/, "each page counts afresh");
});

Deno.test("links between docs files become site links; other links stay as written", () => {
  const html = markdownToHtml(
    "[a](endpoints.md#paths) [b](access.md) [c](https://example.com/x.md) [d](../README.md)",
  );
  match(html, /href="\/docs\/endpoints#paths"/);
  match(html, /href="\/docs\/access"/);
  match(html, /href="https:\/\/example.com\/x.md"/);
  match(html, /href="..\/README.md"/);
});

Deno.test("code blocks are escaped and focusable (a wide one scrolls, and the keyboard must reach it)", () => {
  const html = markdownToHtml("```sh\ncurl -H 'a: <b>' x\n```");
  match(
    html,
    /<pre tabindex="0"><code class="language-sh">curl -H 'a: &lt;b&gt;' x<\/code><\/pre>/,
  );
});

Deno.test("a table scrolls in its own focusable box, so a wide one never widens the page", () => {
  const html = markdownToHtml("| a | b |\n|---|---|\n| 1 | 2 |\n");
  match(html, /^<div class="table-scroll" tabindex="0"><table>\n<thead>/);
  match(html, /<td>2<\/td>\n<\/tr>\n<\/tbody><\/table>\n<\/div>/);
});
