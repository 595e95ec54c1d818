/**
 * Caps request bodies, declared or streamed, with the 413 envelope. A declared length is judged
 * from the header alone, so the body stays as the runtime buffered it (touching `body` would turn
 * it into a stream first, which every later read pays for); a body without one is read here, up
 * to the cap and within the body timeout, and handed on buffered.
 */
import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors/mod.ts";
import type { AppEnv } from "../context.ts";
import { bodyWithin } from "../input.ts";

export function bodyLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  const tooLarge = () => new AppError("request.body_too_large", { limit_bytes: maxBytes });
  return async (c, next) => {
    // The runtime gives these no body, whatever they declare.
    if (c.req.method === "GET" || c.req.method === "HEAD") return await next();
    const length = c.req.header("content-length");
    if (length !== undefined && c.req.header("transfer-encoding") === undefined) {
      if (Number.parseInt(length, 10) > maxBytes) throw tooLarge();
      return await next();
    }
    const body = c.req.raw.body;
    if (!body) return await next();
    const buffered = await bodyWithin(c, readCapped(body, maxBytes));
    if (!buffered) throw tooLarge();
    c.req.raw = new Request(c.req.raw, { body: buffered });
    await next();
  };
}

/** The whole stream, or undefined (and the stream cancelled) once it passes `maxBytes`. */
async function readCapped(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.length;
  }
  return all;
}
