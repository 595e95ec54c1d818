/**
 * Serving the static files of ui/static_files.ts: compressed for the client's `Accept-Encoding`,
 * with a strong `ETag` per representation, 304 for a matching `If-None-Match`, and a year's
 * immutable caching when the URL names the file's current version (`?v=<hash>`, as every page
 * links them); an unversioned or outdated URL must be revalidated each time.
 *
 * Each file is compressed once per coding, on its first request, and kept for the life of the
 * process (about 0.1 s of CPU for all of them). Brotli's best quality would save another tenth,
 * but node:zlib's asynchronous brotli runs on the event loop in Deno 2.9 (15 s for CodeMirror's
 * view module on a loaded machine), so it would stall every request while it works.
 */
import type { Context } from "hono";
import { chooseCoding, type Coding, compressFast, compressible } from "../lib/compression.ts";
import { type StaticFile, staticFile } from "../../ui/static_files.ts";

interface Variant {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

const compressed = new Map<string, Variant>();

/** The representation to send: compressed when the client takes it and it is worth it. */
function variant(file: StaticFile, coding: Coding | null): Variant {
  if (!coding || file.body.byteLength < 1024) return { body: file.body, etag: `"${file.hash}"` };
  const key = `${coding} ${file.path}`;
  let found = compressed.get(key);
  if (!found) {
    found = { body: compressFast(file.body, coding), etag: `"${file.hash}-${coding}"` };
    compressed.set(key, found);
  }
  return found;
}

/** The answer to a GET of a static file at `c.req.path`, or undefined when there is none. */
export function serveStatic(c: Context): Response | undefined {
  const file = staticFile(c.req.path);
  if (!file) return undefined;
  const coding = compressible(file.type) ? chooseCoding(c.req.header("accept-encoding")) : null;
  const chosen = variant(file, coding);
  const headers: Record<string, string> = {
    "content-type": file.type,
    "etag": chosen.etag,
    "vary": "Accept-Encoding",
    "cache-control": c.req.query("v") === file.hash
      ? "public, max-age=31536000, immutable"
      : "public, no-cache",
  };
  if (chosen.body !== file.body) headers["content-encoding"] = coding!;
  // Every representation holds the same file, so a cached one of another coding is as good.
  const known = c.req.header("if-none-match");
  if (known && (known.trim() === "*" || known.includes(`"${file.hash}`))) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(chosen.body, { status: 200, headers });
}
