/**
 * Response compression: which coding a client accepts, which content types are worth it, and
 * the codings themselves (node:zlib's brotli and gzip). The runtime's own HTTP server compresses
 * nothing the service answers (Deno 2.9 with the per-connection server of src/http/listener.ts,
 * checked with curl), so the service does it, and sets `Content-Encoding`, which any compression
 * further down the line leaves alone.
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

export type Coding = "br" | "gzip";

/**
 * The coding to answer with for an `Accept-Encoding` header: brotli when it is accepted at least
 * as much as gzip, else gzip, else none. `q=0` refuses a coding; `*` stands for any not named.
 */
export function chooseCoding(acceptEncoding: string | null | undefined): Coding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";").map((s) => s.trim());
    if (!name) continue;
    const q = params.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  const weight = (coding: string) => weights.get(coding) ?? weights.get("*") ?? 0;
  const br = weight("br");
  const gzip = weight("gzip");
  if (br > 0 && br >= gzip) return "br";
  return gzip > 0 ? "gzip" : null;
}

/** Text and the like: what shrinks. Images other than SVG, archives and streams do not. */
export function compressible(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0].trim().toLowerCase();
  return type !== "text/event-stream" &&
    (type.startsWith("text/") || type === "image/svg+xml" || type === "application/xml" ||
      type === "application/json" || type === "application/manifest+json");
}

function brotliOptions(body: Uint8Array, quality: number) {
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
    },
  };
}

/**
 * Quick enough to run on each answer: brotli at quality 5 (about gzip's time, and smaller), gzip
 * at 6. Synchronous on purpose: node:zlib's asynchronous brotli runs on the event loop anyway.
 */
export function compressFast(body: Uint8Array, coding: Coding): Uint8Array<ArrayBuffer> {
  const out = coding === "br"
    ? brotliCompressSync(body, brotliOptions(body, 5))
    : gzipSync(body, { level: 6 });
  return new Uint8Array(out);
}
