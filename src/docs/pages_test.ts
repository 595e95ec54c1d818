import { deepEqual, equal, ok } from "node:assert/strict";
import { AppError, catalogue } from "../errors/mod.ts";
import { Assets } from "../lib/assets.ts";
import { getDoc, listDocs } from "./mod.ts";

Deno.test("listDocs() names every docs/*.md page by id with its first heading, then the error codes", async () => {
  const rows = await listDocs();
  const files: string[] = [];
  for await (const e of Deno.readDir(new URL("../../docs", import.meta.url))) {
    if (e.name.endsWith(".md")) files.push(e.name.slice(0, -3));
  }
  deepEqual(rows.map((r) => r.id), [...files.sort(), "errors"]);
  for (const id of ["access", "configuration", "datasources", "executions"]) {
    ok(rows.some((r) => r.id === id), id);
  }
  deepEqual(rows.find((r) => r.id === "datasources"), { id: "datasources", title: "Datasources" });
  deepEqual(Object.keys(rows[0]), ["id", "title"]);
});

Deno.test("getDoc() answers the page's Markdown; unknown or path-like ids are docs.not_found", async () => {
  const page = await getDoc("http");
  equal(page.title, "HTTP conventions");
  equal(page.markdown, await Deno.readTextFile(new URL("../../docs/http.md", import.meta.url)));
  for (const id of ["nope", "../README", "http.md", "", "HTTP", "a/b"]) {
    const err = await getDoc(id).then(() => null, (e) => e);
    ok(err instanceof AppError, id);
    equal(err.code, "docs.not_found", id);
    equal(err.status, 404);
  }
});

Deno.test("the error codes page lists every catalogue code with its status", async () => {
  const page = await getDoc("errors");
  equal(page.title, "Error codes");
  ok(page.markdown.startsWith("# Error codes\n"));
  for (const [code, entry] of Object.entries(catalogue)) {
    ok(page.markdown.includes(`| \`${code}\` | ${entry.status} | `), code);
  }
});

Deno.test("a folder of pages elsewhere: the title falls back to the id without a heading", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Laid out like the repository: the pages in a `docs` folder under the root.
    const pages = `${dir}/docs`;
    await Deno.mkdir(pages);
    await Deno.writeTextFile(`${pages}/b-page.md`, "no heading here\n");
    await Deno.writeTextFile(`${pages}/a.md`, "intro\n\n#  Spaced title  \n## sub\n");
    await Deno.writeTextFile(`${pages}/notes.txt`, "# not a page");
    const own = new Assets(new URL(`file://${dir}/`));
    deepEqual(await listDocs(own), [
      { id: "a", title: "Spaced title" },
      { id: "b-page", title: "b-page" },
      { id: "errors", title: "Error codes" },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
