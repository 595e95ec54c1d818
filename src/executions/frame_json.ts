/**
 * A frame's payload as JSON text, made once. `data_ready`'s is the large one (the first page of
 * rows) and a served request needs it twice: the journal stores it and the endpoint route answers
 * it verbatim (the body is the `data_ready` payload), so its text stays with the payload object for
 * the route. Payloads are not changed once emitted.
 */
import type { EventFrame } from "./event_order.ts";

const texts = new WeakMap<object, string>();

/** A payload kept with a value's text: the members around it, and that text (see below). */
interface Parts {
  before: Record<string, unknown>;
  key: string;
  valueJson: string;
  after: Record<string, unknown>;
}
const kept = new WeakMap<object, Parts>();

/** The JSON text of a frame's payload; a `data_ready` payload's is kept for `payloadJson`. */
export function frameJson(frame: EventFrame): string {
  if (frame.event === "data_ready") keepReadyJson(frame.data);
  return texts.get(frame.data) ?? assembled(frame.data) ?? JSON.stringify(frame.data);
}

/**
 * Keeps a `data_ready` payload's text in parts, its rows' text made here, unless it is kept
 * already (`keepPayloadJson`): the stored frame and the response then share that one text.
 */
export function keepReadyJson(data: Record<string, unknown>): void {
  if (kept.has(data) || texts.has(data) || !Array.isArray(data.rows)) return;
  keepPayloadJson(data, "rows", JSON.stringify(data.rows));
}

/** The JSON text of a payload: the one already made for it when there is one. */
export function payloadJson(data: object): string {
  return texts.get(data) ?? assembled(data) ?? JSON.stringify(data);
}

/**
 * The JSON text of `data` without the members `omit` names (top-level keys): what cutting them
 * from `payloadJson(data)` gives, made without copying the kept value's text.
 */
export function payloadJsonWithout(data: Record<string, unknown>, omit: readonly string[]): string {
  const parts = kept.get(data);
  if (!parts) return JSON.stringify(without(data, omit));
  return join(without(parts.before, omit), parts.key, parts.valueJson, without(parts.after, omit));
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
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  let into = before;
  for (const k of Object.keys(data)) {
    if (k === key) into = after;
    else into[k] = data[k];
  }
  // Without `key`, its value is not part of the text.
  if (into === before) texts.set(data, JSON.stringify(before));
  else kept.set(data, { before, key, valueJson, after });
}

/** The text of a kept payload, made once when first asked for. */
function assembled(data: object): string | undefined {
  const parts = kept.get(data);
  if (!parts) return undefined;
  const text = join(parts.before, parts.key, parts.valueJson, parts.after);
  texts.set(data, text);
  return text;
}

/**
 * `{before..., key: valueJson, after...}` as JSON text. Concatenated, not joined: the value's
 * text, the large part, is not copied here (the string is flattened once, where it is written).
 * The keys around it go through two JSON.stringify calls, not one call each.
 */
function join(
  before: Record<string, unknown>,
  key: string,
  valueJson: string,
  after: Record<string, unknown>,
): string {
  const head = JSON.stringify(before);
  const tail = JSON.stringify(after);
  let out = head.length > 2 ? head.slice(0, -1) + "," : "{";
  out += JSON.stringify(key) + ":" + valueJson;
  return out + (tail.length > 2 ? "," + tail.slice(1) : "}");
}

function without(data: Record<string, unknown>, omit: readonly string[]): Record<string, unknown> {
  if (omit.length === 0) return data;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(data)) if (!omit.includes(k)) out[k] = data[k];
  return out;
}
