/**
 * Serving over Deno.serve with graceful shutdown: stop accepting, let in-flight requests finish
 * (bounded by the grace period), then let the caller close pools and stores.
 */
import type { Hono } from "hono";
import { withTimeout } from "../lib/deadline.ts";
import type { Logger } from "../lib/log.ts";
import type { AppEnv } from "./context.ts";

export interface RunningServer {
  hostname: string;
  port: number;
  /** Stops accepting and waits for in-flight requests, at most `graceSeconds`. */
  shutdown(): Promise<void>;
  /** Settles when the listener has closed. */
  finished: Promise<void>;
}

export async function startServer(
  app: Hono<AppEnv>,
  options: { hostname: string; port: number; graceSeconds: number; logger: Logger },
): Promise<RunningServer> {
  let listening!: (addr: Deno.NetAddr) => void;
  const bound = new Promise<Deno.NetAddr>((resolve) => (listening = resolve));
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: (addr) => listening(addr as Deno.NetAddr),
    onError: (e) => {
      // Reached only when a handler escapes Hono's own error handling.
      options.logger.error("unhandled server error", { error: (e as Error).message });
      return new Response("internal error", { status: 500 });
    },
  }, app.fetch);
  const addr = await bound;
  return {
    hostname: addr.hostname,
    port: addr.port,
    finished: server.finished,
    async shutdown() {
      try {
        await withTimeout(server.shutdown(), options.graceSeconds * 1000, "graceful shutdown");
      } catch (e) {
        options.logger.warn("in-flight requests did not finish in time; closing anyway", {
          reason: (e as Error).message,
        });
      }
    },
  };
}
