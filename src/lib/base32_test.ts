import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { decodeBase32, encodeBase32, isBase32, randomBase32 } from "./base32.ts";

const enc = new TextEncoder();

Deno.test("base32 encodes the RFC 4648 §10 vectors, lowercase and unpadded", () => {
  const vectors: [string, string][] = [
    ["", ""],
    ["f", "my"],
    ["fo", "mzxq"],
    ["foo", "mzxw6"],
    ["foob", "mzxw6yq"],
    ["fooba", "mzxw6ytb"],
    ["foobar", "mzxw6ytboi"],
  ];
  for (const [plain, coded] of vectors) {
    equal(encodeBase32(enc.encode(plain)), coded);
    deepEqual(decodeBase32(coded), enc.encode(plain));
  }
});

Deno.test("base32 round-trips random bytes", () => {
  for (let n = 0; n < 40; n++) {
    const bytes = crypto.getRandomValues(new Uint8Array(n));
    deepEqual(decodeBase32(encodeBase32(bytes)), bytes);
  }
});

Deno.test("base32 decoding is strict: uppercase, padding, foreign characters, bad lengths", () => {
  throws(() => decodeBase32("MZXW6"));
  throws(() => decodeBase32("my======"));
  throws(() => decodeBase32("mzx0"));
  throws(() => decodeBase32("m"));
  throws(() => decodeBase32("mz")); // trailing bits set: not the canonical spelling of "f"
});

Deno.test("randomBase32 yields the requested length from the alphabet, and differs", () => {
  const a = randomBase32(48);
  const b = randomBase32(48);
  ok(isBase32(a, 48) && isBase32(b, 48));
  ok(a !== b);
  const seen = new Set(randomBase32(4000));
  equal(seen.size, 32);
  ok(!isBase32("ABC") && !isBase32("ab1") && !isBase32("abc", 4) && isBase32("abc", 3));
});
