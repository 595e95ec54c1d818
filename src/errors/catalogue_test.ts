import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Placeholders } from "./entry.ts";
import {
  AppError,
  catalogue,
  errorBody,
  type ErrorCode,
  families,
  placeholdersOf,
  renderMessage,
} from "./mod.ts";

Deno.test("catalogue codes are lowercase dotted and statuses are 4xx/5xx", () => {
  for (const [code, entry] of Object.entries(catalogue)) {
    match(code, /^[a-z_]+(\.[a-z_]+)+$/, code);
    ok(entry.status >= 400 && entry.status < 600, code);
    ok(entry.message.length > 0 && entry.user_message.length > 0, code);
  }
});

Deno.test("every code belongs to exactly one family file", () => {
  const seen = new Map<string, string>();
  for (const [family, entries] of Object.entries(families)) {
    for (const code of Object.keys(entries)) {
      equal(seen.get(code), undefined, `${code} is in ${seen.get(code)} and ${family}`);
      seen.set(code, family);
    }
  }
  deepEqual([...seen.keys()].sort(), Object.keys(catalogue).sort());
});

/*
 * Call sites are checked by the compiler (`deno task check`): `new AppError(code, details)` needs
 * every placeholder of the code's message, none of them null. What is left to check at run time is
 * that the messages keep their side: a message's only `?` is a missing detail, and a full details
 * object leaves none.
 */
Deno.test("every message renders without ? from a details object naming its placeholders", () => {
  for (const [code, { message }] of Object.entries(catalogue)) {
    ok(!message.includes("?"), `${code}: a literal ? would read as a missing detail`);
    const names = placeholdersOf(message);
    const details = Object.fromEntries(names.map((n) => [n, `<${n}>`]));
    const rendered = new AppError(code as ErrorCode, details as never).message;
    ok(!rendered.includes("?"), `${code}: ${rendered}`);
    for (const n of names) ok(rendered.includes(`<${n}>`), `${code} renders {${n}}`);
    ok(!/\{[a-z_]+\}/.test(rendered), `${code}: ${rendered}`);
  }
});

Deno.test("the placeholder type reads names the way renderMessage does", () => {
  const message = "a {b} [x]{0,63} {c_d}{1,2} {Upper} {b}" as const;
  const names: Placeholders<typeof message>[] = ["b", "c_d"];
  // @ts-expect-error: a grammar's quantifier is text, not a detail
  const quantifier: Placeholders<typeof message> = "0,63";
  // @ts-expect-error: upper case is not a placeholder
  const upper: Placeholders<typeof message> = "Upper";
  deepEqual(placeholdersOf(message), names);
  equal(renderMessage(message, { b: 1, c_d: 2, Upper: 3 }), "a 1 [x]{0,63} 2{1,2} {Upper} 1");
  void [quantifier, upper];
});

Deno.test("AppError demands every placeholder of its code's message, none null", () => {
  const req = { method: "GET", path: "/x" };
  // @ts-expect-error: path is missing
  const missing = () => new AppError("request.not_found", { method: "GET" });
  // @ts-expect-error: a null detail would render as ?
  const nulled = () => new AppError("request.not_found", { ...req, path: null });
  // @ts-expect-error: the message names details, so details are required
  const none = () => new AppError("request.not_found");
  // Extra details are free; a message without placeholders needs no details at all.
  equal(new AppError("request.not_found", { ...req, extra: null }).details.extra, null);
  equal(new AppError("auth.login.bad_credentials").message, "The email or password is wrong.");
  // A union of codes needs what every member's message names.
  const either = (c: "request.not_found" | "request.method_not_allowed") =>
    new AppError(c, { ...req, allowed: ["GET"] });
  equal(either("request.method_not_allowed").status, 405);
  void [missing, nulled, none]; // compiled, never run: the check is the compiler's
});

Deno.test("AppError renders its message from details and links the doc anchor", () => {
  const err = new AppError("request.not_found", { method: "GET", path: "/api/v1/nope" });
  equal(err.status, 404);
  equal(err.message, "No route matches GET /api/v1/nope.");
  const body = errorBody(err, "https://svc.example");
  equal(body.doc_url, "https://svc.example/docs/errors#request.not_found");
  equal(body.user_message, "The requested resource does not exist.");
});

Deno.test("AppError answers an overriding status when raised with one", () => {
  const err = new AppError("auth.login.domain_not_allowed", { domain: "x.example" }, {}, {
    status: 400,
  });
  equal(err.status, 400);
  equal(new AppError("auth.login.domain_not_allowed", { domain: "x.example" }).status, 403);
});

Deno.test("withDetails() keeps code, headers and status and joins the extra details", () => {
  const err = new AppError("rate_limit.exceeded", { retry_after: 3 }, { "Retry-After": "3" }, {
    status: 503,
  }).withDetails({ index: 2 });
  ok(err instanceof AppError);
  deepEqual([err.code, err.status, err.headers, err.details], [
    "rate_limit.exceeded",
    503,
    { "Retry-After": "3" },
    { retry_after: 3, index: 2 },
  ]);
});

Deno.test("renderMessage() shows ? for absent details and joins lists", () => {
  equal(renderMessage("{a} / {b}", { a: ["x", "y"] }), "x, y / ?");
});
