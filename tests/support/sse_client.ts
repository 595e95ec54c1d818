/**
 * A small reader of `text/event-stream` bodies for tests: frames with their ids and JSON data,
 * and the comment lines (heartbeats) in arrival order.
 */
import type { EventFrame } from "../../src/executions/event_order.ts";

export type SseItem = { frame: EventFrame } | { comment: string };

/** Yields frames and comments as they arrive; ends when the server closes the stream. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseItem> {
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) {
          yield { comment: line.slice(1).trim() };
          continue;
        }
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        fields[name] = fields[name] === undefined ? value : `${fields[name]}\n${value}`;
      }
      if (fields.event !== undefined) {
        yield {
          frame: { id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data) },
        };
      }
    }
  }
}
