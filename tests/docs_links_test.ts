/**
 * A clone of this repository explains itself: every link in README.md and docs/*.md resolves to a
 * file of the repository, every `#anchor` names a heading of its target (GitHub and the served
 * `/docs/{id}` pages give headings the same anchors), and no page sends its reader outside the
 * repository. External http(s) links are allowed and not fetched.
 */
import { deepEqual, equal } from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { Lexer, marked } from "marked";
import { markdownToHtml } from "../ui/markdown.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * The anchors of a page's headings as `/docs/{id}` renders them, which are GitHub's
 * (ui/markdown.ts, pinned to GitHub's examples by its tests). A page's title is its name, not an
 * anchor: link the page instead.
 */
function anchorsOf(markdown: string): Set<string> {
  return new Set(Array.from(markdownToHtml(markdown).matchAll(/<h\d id="([^"]*)"/g), (m) => m[1]));
}

/** Every link of a Markdown text, code spans and code blocks aside, reference links resolved. */
function linksOf(markdown: string): string[] {
  const hrefs: string[] = [];
  marked.walkTokens(Lexer.lex(markdown), (t) => {
    if (t.type === "link" || t.type === "image") hrefs.push(t.href);
  });
  return hrefs;
}

/**
 * Text that sends a reader outside the repository: the sibling spec folder and its files, paths
 * of this machine, numbered sections of documents a clone does not have.
 */
const OUTSIDE: [RegExp, string][] = [
  [/\.\.\/shared\b/, "../shared"],
  [/(^|[\s(`"'])\/work\//, "an absolute /work path"],
  [/\bARCHITECTURE\.md\b/, "ARCHITECTURE.md"],
  [/\bDECISIONS\b/, "DECISIONS(.md)"],
  [/§/, "a numbered section (§) of a document outside the repository"],
  [/\b(spec|doc|document) [1-3]\b/i, "a spec document by number"],
];

/** A docs page links only to docs pages by file name: `/docs/{id}` rewrites those, nothing else. */
const DOCS_PAGE_LINK = /^(?:[a-z][a-z0-9_-]*\.md)?(?:#.*)?$/;
const LINE_ANCHOR = /^L\d+(?:-L\d+)?$/;

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(join(ROOT, path)).then(() => true, () => false);
}

/** README.md and every docs page, relative to the repository root. */
async function pages(): Promise<string[]> {
  const out = ["README.md"];
  for await (const e of Deno.readDir(join(ROOT, "docs"))) {
    if (e.isFile && e.name.endsWith(".md")) out.push(`docs/${e.name}`);
  }
  return out.sort();
}

const texts = new Map<string, Promise<string>>();
const read = (path: string) => {
  if (!texts.has(path)) texts.set(path, Deno.readTextFile(join(ROOT, path)));
  return texts.get(path)!;
};

/** What is wrong with one link of `from`, or null. */
async function linkProblem(from: string, href: string): Promise<string | null> {
  if (/^(https?|mailto):/i.test(href)) return null;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href)) return "a scheme other than http(s) or mailto";
  if (href.startsWith("/")) return "an absolute path: link relative to this file";
  const served = from.startsWith("docs/");
  if (served && !DOCS_PAGE_LINK.test(href)) {
    return "a docs page links only to docs pages (`name.md#anchor`), which /docs/{id} also serves";
  }
  const hash = href.indexOf("#");
  const pathPart = decodeURIComponent(hash < 0 ? href : href.slice(0, hash));
  const anchor = hash < 0 ? null : decodeURIComponent(href.slice(hash + 1));
  const target = pathPart === "" ? from : normalize(join(dirname(from), pathPart));
  if (target.startsWith("..")) return "outside the repository";
  if (!await exists(target)) return `${target} does not exist`;
  if (anchor === null) return null;
  if (!target.endsWith(".md")) {
    return LINE_ANCHOR.test(anchor) ? null : `#${anchor} in a file that is not Markdown`;
  }
  return anchorsOf(await read(target)).has(anchor) ? null : `${target} has no heading #${anchor}`;
}

Deno.test("links are read as Markdown reads them: code aside, references resolved", () => {
  deepEqual(linksOf("[a](x.md#y) `[b](no.md)`\n\n```\n[c](no.md)\n```\n\n[d][r]\n\n[r]: z.md"), [
    "x.md#y",
    "z.md",
  ]);
  deepEqual([...anchorsOf("# Page\n\n## A & B\n\n### `c` d")], ["a--b", "c-d"]);
});

Deno.test("every link in README.md and docs/*.md resolves inside the repository", async () => {
  const problems: string[] = [];
  let links = 0;
  for (const page of await pages()) {
    for (const href of linksOf(await read(page))) {
      links++;
      const problem = await linkProblem(page, href);
      if (problem) problems.push(`${page}: (${href}) ${problem}`);
    }
  }
  equal(links > 30, true, "the walk found the links");
  deepEqual(problems, []);
});

Deno.test("README.md and docs/ never send a reader outside the repository", async () => {
  const problems: string[] = [];
  const files = [...await pages(), "docs/layering.json"];
  for (const file of files) {
    (await read(file)).split("\n").forEach((line, i) => {
      for (const [pattern, what] of OUTSIDE) {
        if (pattern.test(line)) problems.push(`${file}:${i + 1}: ${what}: ${line.trim()}`);
      }
    });
  }
  deepEqual(problems, []);
});

async function* codeFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(join(ROOT, dir))) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* codeFiles(path);
    else if (/\.(tsx?|js|sh)$/.test(e.name)) yield path;
  }
}

Deno.test("every docs page and anchor the code cites exists", async () => {
  const problems: string[] = [];
  const files: string[] = ["main.ts", "compile.sh"];
  for (const dir of ["src", "ui", "tests", "scripts", "bench"]) {
    for await (const f of codeFiles(dir)) files.push(f);
  }
  for (const file of files) {
    const text = await Deno.readTextFile(join(ROOT, file));
    for (const m of text.matchAll(/\bdocs\/([a-z][a-z0-9_-]*\.md)(?:#([\w-]+))?/g)) {
      const [cited, page, anchor] = m;
      if (!await exists(`docs/${page}`)) problems.push(`${file}: ${cited}: no such page`);
      else if (anchor && !anchorsOf(await read(`docs/${page}`)).has(anchor)) {
        problems.push(`${file}: ${cited}: no such heading`);
      }
    }
  }
  deepEqual(problems, []);
});
