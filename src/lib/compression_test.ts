import { deepEqual, equal } from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { chooseCoding, compressFast, compressible } from "./compression.ts";

Deno.test("the coding follows Accept-Encoding: brotli first, weights and refusals honoured", () => {
  const cases: [string | null, string | null][] = [
    [null, null],
    ["", null],
    ["identity", null],
    ["gzip", "gzip"],
    ["br", "br"],
    ["gzip, deflate, br, zstd", "br"],
    ["gzip;q=1, br;q=0.5", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["BR ; Q=0.8, gzip;q=0.8", "br"],
    ["*", "br"],
    ["*;q=0.5, br;q=0", "gzip"],
    ["gzip;q=0, br;q=0", null],
    ["deflate", null],
    ["br;q=nonsense, gzip", "gzip"],
  ];
  deepEqual(cases.map(([header]) => chooseCoding(header)), cases.map(([, coding]) => coding));
});

Deno.test("text, SVG, XML and JSON are compressible; event streams, images and binaries are not", () => {
  for (
    const type of ["text/html; charset=utf-8", "text/css", "image/svg+xml", "application/json"]
  ) {
    equal(compressible(type), true, type);
  }
  for (const type of ["text/event-stream", "image/png", "application/octet-stream", null]) {
    equal(compressible(type), false, String(type));
  }
});

Deno.test("both codings give back the same bytes, smaller", () => {
  const body = new TextEncoder().encode("SELECT country, sum(amount) FROM orders;\n".repeat(200));
  for (const coding of ["br", "gzip"] as const) {
    const unpack = coding === "br" ? brotliDecompressSync : gunzipSync;
    const packed = compressFast(body, coding);
    deepEqual(new Uint8Array(unpack(packed)), body, coding);
    equal(packed.byteLength < body.byteLength / 10, true, `${coding}: ${packed.byteLength}`);
  }
});
