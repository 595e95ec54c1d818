/** The public site (DECISIONS.md "marketing pages", "docs ids"): pages, docs, robots, sitemap. */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { listDocs } from "../src/docs/mod.ts";
import { MARKETING_PAGES } from "../src/http/public_paths.ts";
import { json, type TestServer, withTestServer } from "./support/harness.ts";

async function withServer(fn: (s: TestServer) => Promise<void>) {
  await withTestServer({}, async (server) => {
    await fn(server);
  });
}

async function page(s: TestServer, path: string): Promise<string> {
  const res = await s.fetch(path, { headers: { accept: "text/html" }, redirect: "manual" });
  equal(res.status, 200, path);
  match(res.headers.get("content-type") ?? "", /^text\/html/, path);
  return await res.text();
}

Deno.test("every marketing page and one page of each folder answer 200 HTML without signing in", () =>
  withServer(async (s) => {
    for (const path of [...MARKETING_PAGES, "/compare/platformatic-db", "/for/data-teams"]) {
      const html = await page(s, path);
      match(html, /<title>[^<]+ · Pipeline Service<\/title>/, path);
      match(html, /<article class="prose"><h1>[^<]+<\/h1>/, path);
    }
    const landing = await page(s, "/");
    for (const href of ["/how-it-works", "/published-api", "/mcp-tools", "/docs"]) {
      ok(landing.includes(`href="${href}"`), href);
    }
    const post = await s.fetch("/faq", { method: "POST" });
    equal(post.status, 401, "a marketing page is public for reading only");
    await post.body?.cancel();
    const missing = await s.fetch("/compare/nobody", { headers: { accept: "application/json" } });
    equal(missing.status, 404);
    equal((await json(missing)).error.code, "request.not_found");
  }));

Deno.test("the docs serve each page as HTML at /docs/{id} and as Markdown at /skill/{id}", () =>
  withServer(async (s) => {
    const docs = await listDocs();
    ok(docs.some((d) => d.id === "endpoints"));
    const index = await page(s, "/docs");
    for (const doc of docs) ok(index.includes(`href="/docs/${doc.id}"`), doc.id);

    const html = await page(s, "/docs/endpoints");
    match(html, /<h1>Published endpoints<\/h1>/);
    match(html, /<h2 id="paths">Paths<\/h2>/);
    match(html, /aria-current="page"[^>]*>Published endpoints/);

    const md = await s.fetch("/skill/endpoints");
    equal(md.status, 200);
    equal(md.headers.get("content-type"), "text/markdown; charset=utf-8");
    match(await md.text(), /^# Published endpoints\n/);

    // The error reference keeps its own route under /docs.
    match(await page(s, "/docs/errors"), /request\.not_found/);
  }));

Deno.test("every /docs/{id} has its /skill/{id}, and /skill.md links every one of them", () =>
  withServer(async (s) => {
    const docs = await listDocs();
    ok(docs.some((d) => d.id === "errors"), "the error codes are a page too");
    const skill = await (await s.fetch("/skill.md")).text();
    const linked = [...skill.matchAll(/\]\(([^)\s]+\/skill\/[^)\s]+)\)/g)].map((m) => m[1]);
    deepEqual(linked, docs.map((d) => `${s.url}/skill/${d.id}`));
    for (const doc of docs) {
      await page(s, `/docs/${doc.id}`);
      const md = await s.fetch(`/skill/${doc.id}`);
      equal(md.status, 200, doc.id);
      equal(md.headers.get("content-type"), "text/markdown; charset=utf-8", doc.id);
      const text = await md.text();
      ok(text.startsWith(`# ${doc.title}\n`), `${doc.id}: ${text.slice(0, 60)}`);
    }
    match(await (await s.fetch("/skill/errors")).text(), /\| `request\.not_found` \| 404 \|/);
  }));

Deno.test("the docs' navigation and headings show backticked titles as code", () =>
  withServer(async (s) => {
    const html = await page(s, "/docs/mcp");
    match(html, /<h1>The tool endpoint \(<code>\/mcp<\/code>\)<\/h1>/);
    match(html, /aria-current="page"[^>]*>The tool endpoint \(<code>\/mcp<\/code>\)<\/a>/);
    match(html, /<title>The tool endpoint \(\/mcp\) · Pipeline Service<\/title>/);
    ok(!/>[^<]*`[^<]*</.test(html.slice(0, html.indexOf("<article"))), "no raw backtick");
  }));

Deno.test("an unknown or malformed doc id is a 404, never a read outside the docs folder", () =>
  withServer(async (s) => {
    for (const id of ["nope", "..%2F..%2Fdeno.json", "..%2Fsrc%2Fservices", "Endpoints", "a.b"]) {
      const res = await s.fetch(`/skill/${id}`, { headers: { accept: "application/json" } });
      equal(res.status, 404, id);
      equal((await json(res)).error.code, "docs.not_found", id);
      const html = await s.fetch(`/docs/${id}`, { headers: { accept: "text/html" } });
      equal(html.status, 404, id);
      ok(!(await html.text()).includes('"tasks"'), id);
    }
  }));

Deno.test("robots.txt keeps crawlers out of the API and names the sitemap, which lists every public page", () =>
  withServer(async (s) => {
    const robots = await s.fetch("/robots.txt");
    equal(robots.status, 200);
    const text = await robots.text();
    match(text, /^User-agent: \*$/m);
    match(text, /^Disallow: \/api\/$/m);
    match(text, new RegExp(`^Sitemap: ${s.url}/sitemap.xml$`, "m"));

    const sitemap = await s.fetch("/sitemap.xml");
    equal(sitemap.status, 200);
    match(sitemap.headers.get("content-type") ?? "", /^application\/xml/);
    const locs = [...(await sitemap.text()).matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    for (
      const path of [...MARKETING_PAGES, "/docs", "/docs/endpoints", "/compare/platformatic-db"]
    ) {
      ok(locs.includes(s.url + path), path);
    }
    deepEqual(locs.filter((l) => !l.startsWith(s.url)), []);
  }));
