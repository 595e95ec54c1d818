/**
 * A loopback TCP proxy a test can cut: closing it closes the listener and every proxied
 * connection, which is what a crash or a network partition looks like to a client. This is how a
 * test takes a real PostgreSQL or Redis "down" without touching the shared server. `restore()`
 * listens again on the same port: the server is back. `hangingServer()` is the other failure a
 * client meets: a server that accepts and never answers.
 */
export interface TcpProxy {
  port: number;
  /** Closes the listener and every proxied connection; settles when all pipes have ended. */
  cut(): Promise<void>;
  /** After a cut: accepts connections on the same port again. */
  restore(): void;
}

export function startTcpProxy(target: { hostname: string; port: number }, port = 0): TcpProxy {
  let current = listen(target, port);
  const bound = current.port;
  return {
    port: bound,
    cut: () => current.cut(),
    restore() {
      if (!current.closed) return;
      current = listen(target, bound);
    },
  };
}

function listen(target: { hostname: string; port: number }, port: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  const conns = new Set<Deno.Conn>();
  const pipes: Promise<void>[] = [];
  let cut = false;
  const accepting = (async () => {
    try {
      for await (const client of listener) {
        let upstream: Deno.Conn;
        try {
          upstream = await Deno.connect(target);
        } catch {
          client.close();
          continue;
        }
        conns.add(client).add(upstream);
        for (const [from, to] of [[client, upstream], [upstream, client]]) {
          // A cut connection makes the pipe fail one way or another; either is expected here.
          pipes.push(from.readable.pipeTo(to.writable).catch(() => {}));
        }
      }
    } catch {
      // The listener was closed under the loop.
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    get closed() {
      return cut;
    },
    async cut() {
      if (cut) return;
      cut = true;
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed by its pipe finishing.
        }
      }
      await accepting;
      await Promise.all(pipes);
    },
  };
}

/** A TCP server that accepts connections and never answers: a connect that hangs. */
export function hangingServer(): { port: number; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async close() {
      listener.close();
      await accepting;
      for (const conn of held) {
        try {
          conn.close();
        } catch {
          // closed by the peer already
        }
      }
    },
  };
}
