/**
 * The one way the service reads its own files at run time: migrations, static assets, the public
 * site's Markdown, the documentation, the build record and the workers' modules. Paths are given
 * from the repository root and resolved against this module's own URL, so they name the same
 * file in a checkout (whatever the working directory) and in a `deno compile` executable, where
 * `import.meta.url` points into the embedded file system.
 *
 * `EMBEDDED` lists what may be read; `compile.sh` embeds exactly that list, and a read of anything
 * else throws here, in a checkout too, so a new file the service starts reading cannot work from
 * the source tree and then be missing from the executable.
 */

/** Repository-relative folders (ending in `/`) and files the service reads while it runs. */
export const EMBEDDED: readonly string[] = [
  "migrations/",
  "ui/static/",
  "ui/site/",
  "docs/",
  // Written by compile.sh; a checkout has none and describes itself from git (health/build_info).
  "build/build_info.json",
  // A worker's module is loaded by URL, which the compiler's import analysis does not follow.
  "src/datasources/connectors/sqlite_worker.ts",
  "src/templates/render_worker.ts",
];

/** The repository root in a checkout; the embedded root in an executable. */
export const SOURCE_ROOT = new URL("../..", import.meta.url);

/** Thrown for a path outside `EMBEDDED`: a programming error, never a request's fault. */
export class AssetPathError extends Error {
  constructor(path: string) {
    super(`not an embedded asset: ${JSON.stringify(path)} (see EMBEDDED in src/lib/assets.ts)`);
    this.name = "AssetPathError";
  }
}

/** Whether `path` is one of the listed files or lies inside one of the listed folders. */
export function isEmbedded(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\")) return false;
  const parts = path.split("/");
  if (parts.some((p, i) => p === "." || p === ".." || (p === "" && i < parts.length - 1))) {
    return false;
  }
  return EMBEDDED.some((entry) => entry.endsWith("/") ? path.startsWith(entry) : path === entry);
}

/**
 * Files under one root. The service reads through `assets`; a test may point a second instance
 * at a folder of its own laid out like the repository.
 */
export class Assets {
  constructor(readonly root: URL = SOURCE_ROOT) {}

  /** The URL of an embedded file or folder (a folder's path ends in `/`). */
  url(path: string): URL {
    if (!isEmbedded(path)) throw new AssetPathError(path);
    return new URL(path, this.root);
  }

  async read(path: string): Promise<Uint8Array<ArrayBuffer>> {
    return await Deno.readFile(this.url(path));
  }

  readSync(path: string): Uint8Array<ArrayBuffer> {
    return Deno.readFileSync(this.url(path));
  }

  async readText(path: string): Promise<string> {
    return await Deno.readTextFile(this.url(path));
  }

  readTextSync(path: string): string {
    return Deno.readTextFileSync(this.url(path));
  }

  /** Names of the plain files directly inside `folder` (which ends in `/`), sorted. */
  async files(folder: string): Promise<string[]> {
    const names: string[] = [];
    for await (const entry of Deno.readDir(this.url(folder))) {
      if (entry.isFile) names.push(entry.name);
    }
    return names.sort();
  }

  filesSync(folder: string): string[] {
    return [...Deno.readDirSync(this.url(folder))]
      .filter((entry) => entry.isFile).map((entry) => entry.name).sort();
  }
}

/** The service's own files. */
export const assets: Assets = new Assets();
