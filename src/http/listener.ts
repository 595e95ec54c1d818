/**
 * The HTTP listener with the timeouts Deno.serve lacks (denoland/deno#3515): a client that
 * trickles its request head or body, or parks an idle keep-alive connection, would otherwise hold
 * a descriptor for as long as it likes.
 *
 * Deno.serve owns its listening socket, so none of its connections can be closed from outside.
 * Here the accept loop is ours and each accepted connection is handed to the runtime's HTTP server
 * for one connection (`serveHttpOnConnection`, the machinery under Deno.serve), so each one can be
 * closed on its own. The guard never touches bytes: it learns of a request when its head is
 * complete and of its answer when that has been handed to the runtime, and a sweep closes the
 * connections whose clock ran out. Requests are parsed and answered by the runtime exactly as
 * under Deno.serve; the guard adds two counter updates and one settled promise per request.
 *
 * - header: a new connection's first request head must be complete within this of the accept;
 * - idle: a connection with nothing in flight must bring its next complete request head within
 *   this of its last answer (so a head trickled on a kept-alive connection is bounded by it);
 * - body: a body read through `ConnectionEnv.bodyWithin` (the service's readers do) must have
 *   arrived within this; past it the read fails with 408 `request.body_timeout` and the
 *   connection closes after that answer.
 *
 * None of them cuts a request in flight: a long answer (an event stream, a slow endpoint) keeps
 * its connection for as long as it runs.
 */
import { AppError } from "../errors/mod.ts";
import { withTimeout } from "../lib/deadline.ts";
import type { Logger } from "../lib/log.ts";

export interface ListenerTimeouts {
  headerTimeoutSeconds: number;
  bodyTimeoutSeconds: number;
  idleTimeoutSeconds: number;
}

/**
 * What a handler is given about its connection (Hono's `c.env`): one object per connection, so a
 * request costs nothing here. `remoteAddr` is what `hono/deno`'s `getConnInfo` reads.
 */
export interface ConnectionEnv {
  remoteAddr: Deno.NetAddr;
  /**
   * `read`, a read of this request's body, bounded by the body timeout: past it the answer is
   * 408 `request.body_timeout`, and the connection closes once that has left (the rest of the
   * body may still be on its way).
   */
  bodyWithin<T>(read: Promise<T>): Promise<T>;
}

type Fetch = (req: Request, env: ConnectionEnv) => Response | Promise<Response>;

/** All the runtime asks of the signal it is given: where to hang its abort listener. */
interface AbortHook {
  addEventListener(type: "abort", listener: () => void, options?: unknown): void;
}

type ServeOnConnection = (
  conn: Deno.Conn,
  signal: AbortHook,
  handler: (
    req: Request,
    info: Deno.ServeHandlerInfo<Deno.NetAddr>,
  ) => Promise<Response> | Response,
  onError: (error: unknown) => Response | Promise<Response>,
  onListen: () => void,
) => Deno.HttpServer<Deno.NetAddr>;

/** The runtime's per-connection server; not public API, so its absence stops the start. */
function serveOnConnection(): ServeOnConnection {
  const key = (Deno as unknown as { internal: symbol }).internal;
  const internals = (Deno as unknown as Record<symbol, Record<string, unknown> | undefined>)[key];
  const serve = internals?.serveHttpOnConnection;
  if (typeof serve !== "function") {
    throw new Error(
      `Deno ${Deno.version.deno} lacks serveHttpOnConnection, which the HTTP listener's ` +
        "header, body and idle timeouts need",
    );
  }
  return serve as ServeOnConnection;
}

/**
 * One accepted connection and its clock.
 *
 * It is closed with the runtime's forced close, which drops the connection at once: the graceful
 * one first drains a request body, however slowly it trickles in. The runtime hangs that close on
 * the abort signal it is given; an AbortSignal would run it inside event dispatch, where its
 * throw for a connection the runtime is already closing would be uncaught and end the process.
 * So the runtime gets a stand-in that hands the listener over, and `close` calls it where the
 * throw is caught.
 */
class Connection {
  inFlight = 0;
  /** False until the first request head is complete: until then the header timeout applies. */
  started = false;
  /** When the connection last had nothing in flight. */
  quietSince = performance.now();
  /** Set when a body timed out: the rest of it may still be arriving, so the connection goes. */
  closeAt = Infinity;
  closing = false;
  server?: Deno.HttpServer<Deno.NetAddr>;
  env!: ConnectionEnv;
  #cancel?: () => void;
  readonly hook: AbortHook = { addEventListener: (_, listener) => (this.#cancel = listener) };
  /** Bound once, so a request adds no closure of its own. */
  readonly settle = () => {
    if (--this.inFlight === 0) this.quietSince = performance.now();
  };

  /** At once, whatever is under way. */
  close() {
    if (this.closing) return;
    this.closing = true;
    try {
      this.#cancel?.();
    } catch {
      // The runtime is closing it already.
    }
  }

  /** Once what is in flight has been answered; the forced close no longer reaches it then. */
  drain() {
    if (this.closing) return;
    this.closing = true;
    this.server?.shutdown().catch(() => {});
  }
}

/** A body read under way, with its deadline. */
interface PendingRead {
  connection: Connection;
  deadline: number;
  fail: (error: Error) => void;
}

export interface Listener {
  addr: Deno.NetAddr;
  /**
   * Stops accepting and closes every connection once what is in flight on it has been answered;
   * rejects when some are still busy after `graceMs` (they are left to the process's exit).
   */
  shutdown(graceMs: number): Promise<void>;
  /** Settles when the accept loop has stopped and every connection has closed. */
  finished: Promise<void>;
}

export function listen(
  options: {
    hostname: string;
    port: number;
    timeouts: ListenerTimeouts;
    logger: Logger;
    onError: (error: unknown) => Response;
  },
  fetch: Fetch,
): Listener {
  const serveOn = serveOnConnection();
  const headerMs = options.timeouts.headerTimeoutSeconds * 1000;
  const idleMs = options.timeouts.idleTimeoutSeconds * 1000;
  const bodySeconds = options.timeouts.bodyTimeoutSeconds;
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const connections = new Set<Connection>();
  const reads = new Set<PendingRead>();
  let accepting = true;

  const bodyWithin = <T>(connection: Connection, read: Promise<T>): Promise<T> => {
    let pending!: PendingRead;
    const expired = new Promise<never>((_, reject) => {
      pending = { connection, deadline: performance.now() + bodySeconds * 1000, fail: reject };
    });
    reads.add(pending);
    return Promise.race([read, expired]).finally(() => reads.delete(pending));
  };

  // A connection closes at most a quarter of its timeout (and never a second) late.
  const tickMs = Math.min(1000, Math.min(headerMs, idleMs, bodySeconds * 1000) / 4);
  const sweep = () => {
    const now = performance.now();
    for (const pending of reads) {
      if (now < pending.deadline) continue;
      reads.delete(pending);
      // One tick's linger lets the 408 leave before the close.
      pending.connection.closeAt = Math.min(pending.connection.closeAt, now + tickMs);
      pending.fail(new AppError("request.body_timeout", { timeout_seconds: bodySeconds }));
    }
    for (const connection of connections) {
      if (now >= connection.closeAt) connection.close();
      if (connection.inFlight > 0 || connection.closing) continue;
      const limit = connection.started ? idleMs : headerMs;
      if (now - connection.quietSince >= limit) connection.close();
    }
  };
  const sweeper = setInterval(sweep, tickMs);
  Deno.unrefTimer(sweeper);

  const serveConnection = (conn: Deno.Conn) => {
    const connection = new Connection();
    connection.env = {
      remoteAddr: conn.remoteAddr as Deno.NetAddr,
      bodyWithin: (read) => bodyWithin(connection, read),
    };
    connections.add(connection);
    try {
      connection.server = serveOn(
        conn,
        connection.hook,
        (req, info) => {
          connection.inFlight++;
          connection.started = true;
          info.completed.then(connection.settle, connection.settle);
          return fetch(req, connection.env);
        },
        options.onError,
        () => {},
      );
    } catch (error) {
      connections.delete(connection);
      conn.close();
      throw error;
    }
    // A peer that resets the connection rejects `finished`; either way the connection is gone.
    connection.server.finished.catch(() => {}).finally(() => {
      connections.delete(connection);
      for (const pending of reads) if (pending.connection === connection) reads.delete(pending);
    });
  };

  const accepted = (async () => {
    while (accepting) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch (error) {
        if (!accepting) break;
        // Out of descriptors (EMFILE) or a peer gone before accept: the loop must outlive both.
        options.logger.warn("accept failed", { error: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      try {
        serveConnection(conn);
      } catch (error) {
        options.logger.warn("connection not served", { error: (error as Error).message });
      }
    }
  })();

  const finished = (async () => {
    await accepted;
    while (connections.size > 0) {
      await Promise.all([...connections].map((c) => c.server?.finished.catch(() => {})));
    }
    clearInterval(sweeper);
  })();

  return {
    addr: listener.addr as Deno.NetAddr,
    finished,
    async shutdown(graceMs: number) {
      if (accepting) {
        accepting = false;
        listener.close();
      }
      await accepted;
      for (const connection of connections) connection.drain();
      await withTimeout(finished, graceMs, "graceful shutdown");
    },
  };
}
