/**
 * A loopback HTTP proxy that adds an API key to every request it forwards to a test server, for
 * clients that cannot send one (the MCP conformance suite connects without credentials). Method,
 * path, headers and body pass through unchanged — `Host` and `Origin` included, so the server
 * judges them as the client sent them (node:http, because fetch always writes its own `Host`) —
 * and the answer streams back as it comes.
 */
import http from "node:http";
import { Readable } from "node:stream";

export interface KeyProxy {
  url: string;
  close(): Promise<void>;
}

export function keyProxy(target: string, key: string): KeyProxy {
  const upstream = new URL(target);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    const headers: Record<string, string> = {};
    req.headers.forEach((value, name) => headers[name] = value);
    headers.authorization = `Bearer ${key}`;
    return new Promise<Response>((resolve, reject) => {
      const out = http.request({
        host: upstream.hostname,
        port: Number(upstream.port),
        path: url.pathname + url.search,
        method: req.method,
        headers,
      }, (res) => {
        const answer = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined || name === "transfer-encoding" || name === "connection") {
            continue;
          }
          answer.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        const noBody = res.statusCode === 204 || res.statusCode === 304;
        resolve(
          new Response(noBody ? null : Readable.toWeb(res) as ReadableStream<Uint8Array>, {
            status: res.statusCode,
            headers: answer,
          }),
        );
      });
      out.on("error", reject);
      if (req.body) {
        Readable.fromWeb(req.body as import("node:stream/web").ReadableStream).pipe(out);
      } else {
        out.end();
      }
    });
  });
  return {
    url: `http://localhost:${server.addr.port}`,
    close: () => server.shutdown(),
  };
}
