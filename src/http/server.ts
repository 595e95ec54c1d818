/**
 * Serving with graceful shutdown: stop accepting, let in-flight requests finish (bounded by the
 * grace period), then let the caller close pools and stores. The listener (listener.ts) closes
 * slow and idle connections on the way.
 */
import type { Hono } from "hono";
import type { Logger } from "../lib/log.ts";
import type { AppEnv } from "./context.ts";
import { listen, type ListenerTimeouts } from "./listener.ts";

export type { ListenerTimeouts } from "./listener.ts";

export interface RunningServer {
  hostname: string;
  port: number;
  /** Stops accepting and waits for in-flight requests, at most `graceSeconds`. */
  shutdown(): Promise<void>;
  /** Settles when the listener and every connection have closed. */
  finished: Promise<void>;
}

export function startServer(
  app: Hono<AppEnv>,
  options: {
    hostname: string;
    port: number;
    graceSeconds: number;
    logger: Logger;
    /** `service.http.*`: the resolved config's `http` fits. */
    timeouts: ListenerTimeouts;
  },
): Promise<RunningServer> {
  const listener = listen({
    hostname: options.hostname,
    port: options.port,
    timeouts: options.timeouts,
    logger: options.logger,
    onError: (e) => {
      // Reached only when a handler escapes Hono's own error handling.
      options.logger.error("unhandled server error", { error: (e as Error).message });
      return new Response("internal error", { status: 500 });
    },
  }, (req, env) => app.fetch(req, env));
  return Promise.resolve({
    hostname: listener.addr.hostname,
    port: listener.addr.port,
    finished: listener.finished,
    async shutdown() {
      try {
        await listener.shutdown(options.graceSeconds * 1000);
      } catch (e) {
        options.logger.warn("in-flight requests did not finish in time; closing anyway", {
          reason: (e as Error).message,
        });
      }
    },
  });
}
