/**
 * Compression and caching as they leave the server (issue 28, speed): pages and static files in
 * brotli, gzip or neither as the client's Accept-Encoding says, static files at versioned URLs
 * with a strong ETag, 304 on If-None-Match and a year's immutable caching. Bytes are read with
 * node:http, which (unlike fetch) hands over the body exactly as it came.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { staticFile } from "../ui/static_files.ts";
import { type TestServer, withTestServer } from "./support/harness.ts";

interface Raw {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

function rawGet(s: TestServer, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(s.url + path, { headers }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: Object.fromEntries(
            Object.entries(res.headers).map(([k, v]) => [k, String(v)]),
          ),
          body: new Uint8Array(Buffer.concat(chunks)),
        }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

function decoded(raw: Raw): Uint8Array {
  const coding = raw.headers["content-encoding"];
  if (coding === "br") return new Uint8Array(brotliDecompressSync(raw.body));
  if (coding === "gzip") return new Uint8Array(gunzipSync(raw.body));
  equal(coding, undefined);
  return raw.body;
}

const CODINGS: [string, string | undefined][] = [
  ["br", "br"],
  ["gzip, deflate", "gzip"],
  ["gzip, deflate, br", "br"],
  ["identity", undefined],
];

Deno.test("pages and static files come in the coding the client accepts, the same bytes once decoded", () =>
  withTestServer({}, async (s) => {
    const landing = await rawGet(s, "/", { "accept-encoding": "identity" });
    const html = new TextDecoder().decode(landing.body);
    const links = [...html.matchAll(/(?:href|src)="(\/(?:css|js|vendor)\/[^"]+)"/g)].map((m) =>
      m[1]
    );
    ok(links.length >= 4, links.join(" "));
    for (const path of ["/docs/endpoints", "/", ...links]) {
      const plain = await rawGet(s, path, { "accept-encoding": "identity", accept: "text/html" });
      equal(plain.status, 200, path);
      match(plain.headers.vary ?? "", /Accept-Encoding/i, path);
      // Under 1 KB nothing is compressed: the coding would cost more than it saves.
      const small = plain.body.byteLength < 1024;
      for (const [accepted, wanted] of CODINGS) {
        const coding = small ? undefined : wanted;
        const res = await rawGet(s, path, { "accept-encoding": accepted, accept: "text/html" });
        equal(res.status, 200, path);
        equal(res.headers["content-encoding"], coding, `${path} for ${accepted}`);
        deepEqual(decoded(res), plain.body, `${path} for ${accepted}`);
        if (coding) ok(res.body.byteLength < plain.body.byteLength * 0.6, `${path} ${coding}`);
      }
    }
    // Agents' Markdown too; the API's JSON is left as it is.
    equal(
      (await rawGet(s, "/skill.md", { "accept-encoding": "br" })).headers["content-encoding"],
      "br",
    );
    const api = await rawGet(s, "/openapi.json", { "accept-encoding": "br" });
    equal(api.status, 200);
    equal(api.headers["content-encoding"], "br", "the API document is a document");
    const api404 = await rawGet(s, "/api/v1/nope", { "accept-encoding": "br" });
    equal(api404.headers["content-encoding"], undefined);
  }));

Deno.test("a static file has a strong ETag, answers 304 to it and is immutable at its versioned URL", () =>
  withTestServer({}, async (s) => {
    const css = staticFile("/css/app.css")!;
    const versioned = `/css/app.css?v=${css.hash}`;
    const html = new TextDecoder().decode(
      (await rawGet(s, "/", { "accept-encoding": "identity" })).body,
    );
    ok(html.includes(`href="${versioned}"`), "pages link the versioned URL");

    const first = await rawGet(s, versioned, { "accept-encoding": "br" });
    equal(first.status, 200);
    equal(first.headers["cache-control"], "public, max-age=31536000, immutable");
    const etag = first.headers.etag;
    match(etag, /^"[0-9a-f]{16}[^"]*"$/, "strong: no W/");
    ok(etag.startsWith(`"${css.hash}`), etag);
    const plain = await rawGet(s, versioned, { "accept-encoding": "identity" });
    equal(plain.headers.etag, `"${css.hash}"`);
    ok(plain.headers.etag !== etag, "each representation has its own tag");

    for (const known of [etag, plain.headers.etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await rawGet(s, versioned, { "accept-encoding": "br", "if-none-match": known });
      equal(again.status, 304, known);
      equal(again.body.byteLength, 0);
      equal(again.headers.etag, etag);
    }
    const stale = await rawGet(s, versioned, { "if-none-match": '"0000000000000000"' });
    equal(stale.status, 200);
    deepEqual(decoded(stale), css.body);

    // Unversioned or an old version: the browser must ask each time (and gets its 304).
    for (const path of ["/css/app.css", "/css/app.css?v=0000000000000000"]) {
      const res = await rawGet(s, path);
      equal(res.headers["cache-control"], "public, no-cache", path);
    }
    equal((await rawGet(s, "/css/nope.css")).status, 404);
    equal((await rawGet(s, "/vendor/..%2Fdeno.json")).status, 404);
  }));
