/**
 * Compresses the answers a browser or an agent reads as documents — pages, partials, Markdown,
 * robots and sitemap, the OpenAPI document — in the coding the client accepts (brotli, else
 * gzip), at a quality quick enough for every answer. Static files come compressed already
 * (static_assets.ts). Left as they are: event streams (each event must leave at once), the API
 * (`/api/**`, `/mcp`: machine callers whose per-request CPU the endpoint benchmarks hold to a
 * target) and answers under 1 KB. `Vary: Accept-Encoding` goes on every answer that could have
 * been compressed, so a shared cache keeps the codings apart.
 */
import type { MiddlewareHandler } from "hono";
import { chooseCoding, compressFast, compressible } from "../../lib/compression.ts";
import type { AppEnv } from "../context.ts";

const MIN_BYTES = 1024;

export function compression(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // Decided before the answer exists: touching a Response's `body` turns it into a stream,
    // which Deno then sends chunked instead of with its length.
    if (/^\/(api|mcp)(\/|$)/.test(c.req.path)) return await next();
    await next();
    const res = c.res;
    if (
      res.headers.has("content-encoding") || !compressible(res.headers.get("content-type")) ||
      !res.body
    ) return;
    if (!/accept-encoding/i.test(res.headers.get("vary") ?? "")) {
      res.headers.append("vary", "Accept-Encoding");
    }
    const coding = chooseCoding(c.req.header("accept-encoding"));
    if (!coding || c.req.method === "HEAD") return;
    const body = new Uint8Array(await res.arrayBuffer());
    const compressed = body.byteLength >= MIN_BYTES;
    c.res = new Response(compressed ? compressFast(body, coding) : body, res);
    if (!compressed) return;
    c.res.headers.delete("content-length");
    c.res.headers.set("content-encoding", coding);
  };
}
