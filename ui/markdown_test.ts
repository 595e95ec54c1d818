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
  equal(slug("Matching, and several replicas"), "matching-and-several-replicas");
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
