import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { AssetPathError, assets, EMBEDDED, isEmbedded } from "./assets.ts";

Deno.test("every EMBEDDED entry but the build record exists in the checkout, folders as folders", async () => {
  for (const entry of EMBEDDED) {
    if (entry === "build/build_info.json") continue; // compile.sh writes it just before compiling
    const info = await Deno.stat(new URL(entry, assets.root));
    equal(info.isDirectory, entry.endsWith("/"), entry);
  }
});

Deno.test("isEmbedded() takes listed files and paths inside listed folders, nothing else", () => {
  for (
    const path of [
      "migrations/sqlite/0001_initial.sql",
      "docs/http.md",
      "ui/static/css/app.css",
      "ui/site/compare/",
      "build/build_info.json",
      "src/templates/render_worker.ts",
    ]
  ) ok(isEmbedded(path), path);
  for (
    const path of [
      "",
      "deno.json",
      "src/lib/assets.ts",
      "docs",
      "/docs/http.md",
      "docs/../deno.json",
      "docs/./http.md",
      "docs//http.md",
      "ui/static\\css\\app.css",
      "build/build_info.json/",
      "migrationsx/a.sql",
    ]
  ) equal(isEmbedded(path), false, path);
});

Deno.test("a read outside EMBEDDED throws before touching the disk, in a checkout as in a build", async () => {
  throws(() => assets.url("deno.json"), AssetPathError);
  throws(() => assets.readTextSync("docs/../deno.json"), AssetPathError);
  let error: unknown;
  await assets.readText("main.ts").catch((e) => error = e);
  ok(error instanceof AssetPathError);
});

// Resolving against the module and not the working directory is tests/compile_test.ts's subject:
// it starts the service from an empty directory (chdir here would move every parallel test).
Deno.test("reads and listings of shipped files, async and sync alike", async () => {
  ok((await assets.files("migrations/sqlite/")).includes("0001_users.sql"));
  deepEqual(assets.filesSync("migrations/sqlite/"), await assets.files("migrations/sqlite/"));
  ok((await assets.readText("docs/http.md")).startsWith("# "));
  equal(assets.readSync("ui/static/favicon.svg")[0], "<".charCodeAt(0));
  deepEqual(await assets.read("ui/static/favicon.svg"), assets.readSync("ui/static/favicon.svg"));
});
