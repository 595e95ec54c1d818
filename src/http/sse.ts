/**
 * Server-sent events: frames `event:`, `id:`, `data:` and a blank line; a comment `: heartbeat`
 * after each `heartbeatMs` of silence so proxies keep the stream open; the stream closes after the
 * source ends. A client that goes away cancels the stream, and `onDisconnect` tells the caller (the
 * executor starts its disconnect grace period there).
 */
import type { EventFrame } from "../executions/mod.ts";

const encoder = new TextEncoder();
export const HEARTBEAT = ": heartbeat\n\n";

/** One frame; `data` is JSON on a single line (JSON.stringify never emits raw newlines). */
export function sseFrame(frame: EventFrame): string {
  return `event: ${frame.event}\nid: ${frame.id}\ndata: ${JSON.stringify(frame.data)}\n\n`;
}

export interface EventStreamOptions {
  heartbeatMs: number;
  /** Called once when the client goes away before the source ended. */
  onDisconnect?: () => void;
}

/** Streams `source` as SSE; the body of a `text/event-stream` response. */
export function eventStream(
  source: AsyncIterable<EventFrame>,
  options: EventStreamOptions,
): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let finished = false;
  const stopHeartbeat = () => clearTimeout(timer);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const beat = () => {
        timer = setTimeout(() => {
          if (finished) return;
          controller.enqueue(encoder.encode(HEARTBEAT));
          beat();
        }, options.heartbeatMs);
      };
      beat();
      (async () => {
        try {
          for (;;) {
            const { value, done } = await iterator.next();
            if (done || finished) break;
            stopHeartbeat();
            controller.enqueue(encoder.encode(sseFrame(value)));
            beat();
          }
          if (!finished) {
            finished = true;
            stopHeartbeat();
            controller.close();
          }
        } catch (e) {
          finished = true;
          stopHeartbeat();
          controller.error(e);
        }
      })();
    },
    cancel() {
      if (finished) return;
      finished = true;
      stopHeartbeat();
      options.onDisconnect?.();
      iterator.return?.();
    },
  });
}
