import { equal, ok, rejects } from "node:assert/strict";
import {
  FD_WAIT_MS,
  head,
  openFds,
  send,
  trickle,
  untilClosed,
} from "../../tests/support/slow_client.ts";
import { eventually } from "../../tests/support/wait.ts";
import { AppError } from "../errors/mod.ts";
import { createLogger } from "../lib/log.ts";
import { listen, type Listener, type ListenerTimeouts } from "./listener.ts";

/** A gate a handler waits on until the test opens it. */
function gate() {
  const { promise, resolve } = Promise.withResolvers<void>();
  return { promise, open: () => resolve() };
}

interface World {
  listener: Listener;
  port: number;
  /** Entered handlers, by path: events the tests wait on. */
  entered: string[];
  held: ReturnType<typeof gate>;
  /** A plain request on a fresh connection (no pooled one the idle sweep may be closing). */
  get(path: string): Promise<Response>;
  close(): Promise<void>;
}

/**
 * A listener with a tiny handler: `/` answers at once, `/hold` and `/stream` wait on `held`,
 * `/body` reads its body as the service's readers do (a timeout answers the error's code),
 * `/unread` answers without reading it.
 */
function world(timeouts: Partial<ListenerTimeouts> = {}): World {
  const entered: string[] = [];
  const held = gate();
  const listener = listen({
    hostname: "127.0.0.1",
    port: 0,
    timeouts: {
      headerTimeoutSeconds: 1,
      bodyTimeoutSeconds: 1,
      idleTimeoutSeconds: 1,
      ...timeouts,
    },
    logger: createLogger("error", () => {}),
    onError: () => new Response("handler failed", { status: 500 }),
  }, async (req, env) => {
    const path = new URL(req.url).pathname;
    entered.push(path);
    if (path === "/hold") {
      await held.promise;
      return new Response("released");
    }
    if (path === "/stream") {
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode("first "));
          await held.promise;
          controller.enqueue(new TextEncoder().encode("last"));
          controller.close();
        },
      });
      return new Response(body);
    }
    if (path === "/body") {
      try {
        return new Response(`read ${(await env.bodyWithin(req.text())).length}`);
      } catch (e) {
        return new Response(e instanceof AppError ? e.code : String(e), { status: 408 });
      }
    }
    return new Response(path === "/unread" ? "not read" : "hello");
  });
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  const port = listener.addr.port;
  return {
    listener,
    port,
    entered,
    held,
    get: (path) => fetch(`http://127.0.0.1:${port}${path}`, { client }),
    async close() {
      held.open();
      await listener.shutdown(2000);
      await listener.finished;
      client.close();
    },
  };
}

async function text(res: Response): Promise<string> {
  return await res.text();
}

// Generous: the close is due at the timeout plus one sweep; a loaded machine may be late, never
// early (each close is also checked against its lower bound).
const SLACK_MS = 5000;

Deno.test("issue 22 finding 3: slow request heads are closed at the header timeout while the listener keeps serving", async () => {
  const w = world({ headerTimeoutSeconds: 1, idleTimeoutSeconds: 30, bodyTimeoutSeconds: 30 });
  try {
    const before = openFds();
    const since = performance.now();
    const slow = await Promise.all(
      Array.from({ length: 150 }, () => Deno.connect({ port: w.port })),
    );
    const silent = await Promise.all(
      Array.from({ length: 50 }, () => Deno.connect({ port: w.port })),
    );
    const trickles = slow.map((c) =>
      trickle(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + "a".repeat(600), 50)
    );
    // Both ends of every connection are ours to count: the slow clients really hold descriptors.
    await eventually(() => openFds() >= before + 2 * 200, FD_WAIT_MS);
    for (let i = 0; i < 5; i++) equal(await text(await w.get("/")), "hello");

    const closed = await Promise.all(
      [...slow, ...silent].map((c) => untilClosed(c, since, 1000 + SLACK_MS)),
    );
    for (const t of trickles) t.stop();
    for (const c of closed) {
      ok(c.afterMs >= 1000, `closed after ${c.afterMs} ms, before the header timeout`);
      equal(c.text, "");
    }
    equal(await text(await w.get("/")), "hello");
    await eventually(() => openFds() <= before + 2, FD_WAIT_MS);
  } finally {
    await w.close();
  }
});

Deno.test("issue 22 finding 3: a slow body fails with request.body_timeout and its connection closes", async () => {
  const w = world({ headerTimeoutSeconds: 30, idleTimeoutSeconds: 2, bodyTimeoutSeconds: 1 });
  try {
    const reader = await Deno.connect({ port: w.port });
    const since = performance.now();
    await send(reader, head("POST", "/body", { "content-length": "1000" }));
    const slowBody = trickle(reader, "b".repeat(1000), 50);
    // A handler that answers without reading the body: the runtime then drains the body, however
    // slowly it comes, and that connection is quiet, so the idle timeout ends it.
    const ignorer = await Deno.connect({ port: w.port });
    await send(ignorer, head("POST", "/unread", { "content-length": "1000" }));
    const ignored = trickle(ignorer, "b".repeat(1000), 50);
    equal(await text(await w.get("/")), "hello");

    const timedOut = await untilClosed(reader, since, 1000 + SLACK_MS);
    slowBody.stop();
    ok(timedOut.afterMs >= 1000, `closed after ${timedOut.afterMs} ms`);
    ok(timedOut.text.startsWith("HTTP/1.1 408"), timedOut.text);
    ok(timedOut.text.endsWith("request.body_timeout"), timedOut.text);
    const unread = await untilClosed(ignorer, since, 2000 + SLACK_MS);
    ignored.stop();
    ok(unread.afterMs >= 2000, `closed after ${unread.afterMs} ms`);
    ok(unread.text.includes("not read"), unread.text);

    // A body that arrives in time is read whole, over a connection that stays usable.
    const quick = await fetch(`http://127.0.0.1:${w.port}/body`, {
      method: "POST",
      body: "x".repeat(5000),
    });
    equal(await text(quick), "read 5000");
  } finally {
    await w.close();
  }
});

Deno.test("issue 22 finding 3: an idle keep-alive connection closes at the idle timeout; requests in flight are not cut", async () => {
  const w = world({ headerTimeoutSeconds: 1, idleTimeoutSeconds: 1, bodyTimeoutSeconds: 30 });
  try {
    // A long answer and a stream that stays silent, both under way before the idle clock starts.
    const long = w.get("/hold");
    const streamed = await w.get("/stream");
    const stream = streamed.body!.getReader();
    equal(new TextDecoder().decode((await stream.read()).value), "first ");
    await eventually(() => w.entered.includes("/hold"));

    const idle = await Deno.connect({ port: w.port });
    await send(idle, head("GET", "/"));
    const answered = new Uint8Array(1024);
    ok((await idle.read(answered))! > 0);
    const since = performance.now();
    const closed = await untilClosed(idle, since, 1000 + SLACK_MS);
    ok(closed.afterMs >= 1000 - 50, `idle connection closed after ${closed.afterMs} ms`);

    // Both outlived the idle timeout, and still finish.
    w.held.open();
    equal(await text(await long), "released");
    let rest = "";
    for (let r = await stream.read(); !r.done; r = await stream.read()) {
      rest += new TextDecoder().decode(r.value);
    }
    equal(rest, "last");
  } finally {
    await w.close();
  }
});

Deno.test("issue 22 finding 3: shutdown closes idle connections, refuses new ones and lets a request in flight finish", async () => {
  const w = world({ headerTimeoutSeconds: 30, idleTimeoutSeconds: 30, bodyTimeoutSeconds: 30 });
  const long = w.get("/hold");
  await eventually(() => w.entered.includes("/hold"));
  const idle = await Deno.connect({ port: w.port });
  await send(idle, head("GET", "/"));
  ok((await idle.read(new Uint8Array(1024)))! > 0);

  const since = performance.now();
  const stopping = w.listener.shutdown(10_000);
  await untilClosed(idle, since, SLACK_MS); // long before its 30 s idle timeout
  await rejects(Deno.connect({ port: w.port }));
  w.held.open();
  equal(await text(await long), "released");
  await stopping;
  await w.listener.finished;
  await w.close();
});

Deno.test("shutdown past its grace reports the request still in flight", async () => {
  const w = world({ headerTimeoutSeconds: 30, idleTimeoutSeconds: 30, bodyTimeoutSeconds: 30 });
  const long = w.get("/hold");
  await eventually(() => w.entered.includes("/hold"));
  await rejects(w.listener.shutdown(200), /graceful shutdown timed out/);
  w.held.open();
  equal(await text(await long), "released");
  await w.listener.finished;
  await w.close();
});
