/**
 * Every file the browser loads besides the pages: `ui/static/**` (the stylesheets, the scripts,
 * the icon) and the npm browser libraries of ui/vendor.ts, each known by its URL path with its
 * content hash. Pages name them through `assetUrl`, which adds the hash (`?v=`): an answer to such
 * a URL may be kept by a browser for a year, since a change of the file is a new URL
 * (src/http/static_assets.ts serves them). Read once, when the module loads: the files ship
 * inside the executable and do not change while it runs.
 */
import { createHash } from "node:crypto";
import { assets } from "../src/lib/assets.ts";
import { VENDOR_FILES, VENDOR_MODULES } from "./vendor.ts";

export interface StaticFile {
  /** The URL path: `/css/app.css`, `/vendor/htmx.min.js`. */
  path: string;
  body: Uint8Array<ArrayBuffer>;
  type: string;
  /** The first 16 hex digits of the body's SHA-256: the URL's version and the strong ETag. */
  hash: string;
}

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
};

function file(path: string, body: Uint8Array<ArrayBuffer>, type: string): StaticFile {
  return { path, body, type, hash: createHash("sha256").update(body).digest("hex").slice(0, 16) };
}

function load(): Map<string, StaticFile> {
  const found: StaticFile[] = [];
  for (const folder of ["css", "js"]) {
    for (const name of assets.filesSync(`ui/static/${folder}/`)) {
      const type = TYPES[name.slice(name.lastIndexOf(".") + 1)];
      if (type) {
        found.push(
          file(`/${folder}/${name}`, assets.readSync(`ui/static/${folder}/${name}`), type),
        );
      }
    }
  }
  found.push(file("/favicon.ico", assets.readSync("ui/static/favicon.svg"), TYPES.svg));
  const encoder = new TextEncoder();
  for (const [name, { body, type }] of Object.entries(VENDOR_FILES)) {
    found.push(file(`/vendor/${name}`, encoder.encode(body), type));
  }
  return new Map(found.map((f) => [f.path, f]));
}

const FILES = load();

/** The file served at `path`, or undefined. */
export function staticFile(path: string): StaticFile | undefined {
  return FILES.get(path);
}

/** Every static file. */
export function staticFiles(): StaticFile[] {
  return [...FILES.values()];
}

/** The versioned URL of a static file; an unknown path is a programming error. */
export function assetUrl(path: string): string {
  const found = FILES.get(path);
  if (!found) throw new Error(`no static file at ${path} (ui/static_files.ts)`);
  return `${path}?v=${found.hash}`;
}

/**
 * The editor pages' import map: CodeMirror's bare specifiers, and the editor's own modules by
 * their plain path (`import "./editor.js"` resolves to `/js/editor.js`), each to its versioned
 * URL, so every module of the editor is cached for good.
 */
export const EDITOR_IMPORT_MAP: string = JSON.stringify({
  imports: {
    ...Object.fromEntries(
      Object.entries(VENDOR_MODULES).map(([spec, name]) => [spec, assetUrl(`/vendor/${name}`)]),
    ),
    ...Object.fromEntries(
      staticFiles().filter((f) => f.path.startsWith("/js/")).map((f) => [f.path, assetUrl(f.path)]),
    ),
  },
});

/**
 * What every editor imports before it knows its languages (ui/static/js/editor.js), preloaded
 * together instead of found one import at a time. The languages (`@codemirror/lang-sql`,
 * `@codemirror/lang-json`, `@lezer/json`) load only on a page with an editor of theirs.
 */
export const EDITOR_PRELOAD: string[] = [
  "@codemirror/state",
  "@codemirror/view",
  "@codemirror/language",
  "@codemirror/commands",
  "@codemirror/search",
  "@codemirror/autocomplete",
  "@codemirror/streamparser",
  "@lezer/common",
  "@lezer/highlight",
  "@lezer/lr",
  "style-mod",
  "w3c-keyname",
  "crelt",
  "@marijn/find-cluster-break",
].map((spec) => assetUrl(`/vendor/${VENDOR_MODULES[spec]}`));

/** `'sha256-…'` of EDITOR_IMPORT_MAP, for the Content-Security-Policy's script-src. */
export const EDITOR_IMPORT_MAP_HASH = `'sha256-${
  createHash("sha256").update(EDITOR_IMPORT_MAP).digest("base64")
}'`;
