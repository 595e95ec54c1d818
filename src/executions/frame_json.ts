/**
 * A frame's payload as JSON text, made once. `data_ready`'s is the large one (the first page of
 * rows) and a served request needs it twice: the journal stores it and the endpoint route answers
 * it verbatim (the body is the `data_ready` payload), so its text stays with the payload object for
 * the route. Payloads are not changed once emitted.
 */
import type { EventFrame } from "./event_order.ts";

const texts = new WeakMap<object, string>();

/** The JSON text of a frame's payload; a `data_ready` payload's is kept for `payloadJson`. */
export function frameJson(frame: EventFrame): string {
  const kept = texts.get(frame.data);
  if (kept !== undefined) return kept;
  const text = JSON.stringify(frame.data);
  if (frame.event === "data_ready") texts.set(frame.data, text);
  return text;
}

/** The JSON text of a payload: the one already made for it when there is one. */
export function payloadJson(data: object): string {
  return texts.get(data) ?? JSON.stringify(data);
}

/**
 * Keeps `data`'s JSON text made with `key`'s value given as text already made: `data_ready`'s
 * `rows` are the stored result's first chunk, whose text the result store just made. The same
 * text `JSON.stringify(data)` gives when `valueJson` is `JSON.stringify(data[key])`.
 */
export function keepPayloadJson(
  data: Record<string, unknown>,
  key: string,
  valueJson: string,
): void {
  // The keys around `key` go through two JSON.stringify calls, not one call each.
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  let into = before;
  for (const k of Object.keys(data)) {
    if (k === key) into = after;
    else into[k] = data[k];
  }
  const parts = [JSON.stringify(before).slice(1, -1), JSON.stringify(after).slice(1, -1)];
  if (into === after) parts.splice(1, 0, `${JSON.stringify(key)}:${valueJson}`);
  texts.set(data, `{${parts.filter((p) => p !== "").join(",")}}`);
}
