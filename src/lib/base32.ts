/**
 * RFC 4648 base32 (section 6) without padding, in the LOWERCASE alphabet `a-z2-7`.
 *
 * Lowercase on purpose: API keys are made of it, and a single-case alphabet survives every
 * case-insensitive path a key travels (secret scanners that fold case, terminals, copy-paste into
 * case-insensitive forms); lowercase reads more easily than uppercase, and base32 itself avoids
 * the ambiguous `0/O`, `1/l/I` and `8/B` pairs. Decoding is strict: uppercase and padding are
 * refused, so one key has exactly one spelling.
 */

export const BASE32_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

const DECODE = new Map([...BASE32_ALPHABET].map((c, i) => [c, i]));

/** Encodes bytes as unpadded lowercase base32. */
export function encodeBase32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32_ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32_ALPHABET[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Decodes unpadded lowercase base32; throws on any character outside the alphabet, on a length
 * no encoding produces, or on non-zero trailing bits (a non-canonical spelling).
 */
export function decodeBase32(text: string): Uint8Array {
  if ([1, 3, 6].includes(text.length % 8)) throw new Error("base32: impossible length");
  const out = new Uint8Array(Math.floor((text.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let i = 0;
  for (const c of text) {
    const v = DECODE.get(c);
    if (v === undefined) throw new Error("base32: invalid character");
    buffer = (buffer << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[i++] = (buffer >> bits) & 0xff;
    }
    buffer &= (1 << bits) - 1;
  }
  if (buffer !== 0) throw new Error("base32: non-canonical trailing bits");
  return out;
}

/** True when `text` is made only of the lowercase base32 alphabet (and has `length`, if given). */
export function isBase32(text: string, length?: number): boolean {
  if (length !== undefined && text.length !== length) return false;
  return /^[a-z2-7]*$/.test(text);
}

/**
 * `length` uniformly random base32 characters from `crypto.getRandomValues` (5 bits each: a byte
 * masked to its low 5 bits is uniform because 256 is a multiple of 32).
 */
export function randomBase32(length: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  let out = "";
  for (const b of bytes) out += BASE32_ALPHABET[b & 31];
  return out;
}
