import { deepEqual, equal } from "node:assert/strict";
import type { EventFrame } from "../executions/mod.ts";
import { readSse } from "../../tests/support/sse_client.ts";
import { eventually } from "../../tests/support/wait.ts";
import { eventStream, sseFrame } from "./sse.ts";

const frame = (id: number, event: string): EventFrame => ({
  id,
  event,
  data: { execution_id: "e", correlation_id: "c", note: "line\nbreak" },
});

/** A source whose next frame waits until the test releases it. */
function gatedSource(frames: EventFrame[]) {
  const gates = frames.map(() => Promise.withResolvers<void>());
  let ended = false;
  return {
    release: (i: number) => gates[i].resolve(),
    get ended() {
      return ended;
    },
    async *[Symbol.asyncIterator]() {
      try {
        for (let i = 0; i < frames.length; i++) {
          await gates[i].promise;
          yield frames[i];
        }
      } finally {
        ended = true;
      }
    },
  };
}

Deno.test("sseFrame() writes event, id and one-line JSON data", () => {
  equal(
    sseFrame(frame(7, "node_started")),
    'event: node_started\nid: 7\ndata: {"execution_id":"e","correlation_id":"c","note":"line\\nbreak"}\n\n',
  );
});

Deno.test("eventStream() sends frames in order, heartbeats in silence, and closes after the last", async () => {
  const source = gatedSource([frame(1, "execution_started"), frame(2, "pipeline_completed")]);
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    () =>
      new Response(eventStream(source, { heartbeatMs: 20 }), {
        headers: { "content-type": "text/event-stream" },
      }),
  );
  try {
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    source.release(0);
    const seen: string[] = [];
    for await (const item of readSse(res.body!)) {
      if ("frame" in item) {
        seen.push(`${item.frame.id}:${item.frame.event}`);
        deepEqual(item.frame.data.note, "line\nbreak");
      } else {
        // A heartbeat may beat the first frame on a loaded machine; only the silence after it
        // is this test's subject.
        if (seen.length === 0) continue;
        // Released only once a heartbeat arrived: the silence between the frames is filled.
        if (!seen.includes("beat")) seen.push("beat");
        source.release(1);
      }
    }
    deepEqual(seen, ["1:execution_started", "beat", "2:pipeline_completed"]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("eventStream() reports a client that goes away, and stops reading the source", async () => {
  const source = gatedSource([frame(1, "execution_started"), frame(2, "pipeline_completed")]);
  const disconnected = Promise.withResolvers<void>();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    () =>
      new Response(
        eventStream(source, { heartbeatMs: 1000, onDisconnect: () => disconnected.resolve() }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  );
  try {
    const abort = new AbortController();
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/`, { signal: abort.signal });
    source.release(0);
    const reader = readSse(res.body!);
    equal(((await reader.next()).value as { frame: EventFrame }).frame.event, "execution_started");
    abort.abort();
    await disconnected.promise;
    source.release(1);
    await eventually(() => source.ended);
  } finally {
    await server.shutdown();
  }
});
