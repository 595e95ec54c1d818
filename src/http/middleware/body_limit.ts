/** Caps request bodies, declared or streamed, with the 413 envelope. */
import type { MiddlewareHandler } from "hono";
import { bodyLimit as honoBodyLimit } from "hono/body-limit";
import { AppError } from "../../errors/mod.ts";
import type { AppEnv } from "../context.ts";

export function bodyLimit(maxBytes: number): MiddlewareHandler<AppEnv> {
  return honoBodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new AppError("request.body_too_large", { limit_bytes: maxBytes });
    },
  });
}
