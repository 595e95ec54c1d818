import { equal, match, ok } from "node:assert/strict";
import { AppError, catalogue, errorBody, renderMessage } from "./mod.ts";

Deno.test("catalogue codes are lowercase dotted and statuses are 4xx/5xx", () => {
  for (const [code, entry] of Object.entries(catalogue)) {
    match(code, /^[a-z_]+(\.[a-z_]+)+$/, code);
    ok(entry.status >= 400 && entry.status < 600, code);
    ok(entry.message.length > 0 && entry.user_message.length > 0, code);
  }
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

Deno.test("renderMessage() shows ? for absent details and joins lists", () => {
  equal(renderMessage("{a} / {b}", { a: ["x", "y"] }), "x, y / ?");
});
