/** UTF-8 sizes of strings, without a fresh byte array for each one. */

const encoder = new TextEncoder();
const scratch = new Uint8Array(1 << 20);

/**
 * UTF-8 size of `text`, encoded into a reused buffer (a text too large for it, 3 bytes a UTF-16
 * unit at most, gets its own).
 */
export function utf8Length(text: string): number {
  if (text.length * 3 > scratch.length) return encoder.encode(text).length;
  return encoder.encodeInto(text, scratch).written;
}
