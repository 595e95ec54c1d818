import { equal } from "node:assert/strict";
import { admits } from "./accept.ts";

const JSON_TYPE = "application/json";

Deno.test("issue 22 finding 7: q=0 refuses a media type, however it is spelled", () => {
  for (
    const accept of [
      "application/json;q=0",
      "application/json; q=0",
      "APPLICATION/JSON;Q=0.000",
      "application/json;q=0, text/html",
      "*/*, application/json;q=0",
      "application/*, application/json;q=0",
      "*/*;q=0",
      "application/*;q=0",
    ]
  ) equal(admits(accept, JSON_TYPE), false, accept);
});

Deno.test("Accept: absent, wildcards, q-values and the most specific range", () => {
  const cases: [string | null, boolean][] = [
    [null, true],
    ["", true],
    ["  ", true],
    ["application/json", true],
    ["Application/JSON", true],
    ["*/*", true],
    ["application/*", true],
    ["application/json;charset=utf-8", true],
    ["text/html", false],
    ["text/*", false],
    ["text/html, application/json;q=0.1", true],
    ["application/json;q=0.001", true],
    ["application/json;q=1.000", true],
    // The more specific range decides, whichever order.
    ["application/json, */*;q=0", true],
    ["*/*;q=0, application/json", true],
    ["application/*;q=0, application/json;q=0.5", true],
    ["application/json;q=0, application/json;charset=utf-8", true],
    // Accept-extensions after q say nothing of the type.
    ['application/json;q=0.5;ext="a,b"', true],
    // A quoted parameter may hold a comma or a semicolon.
    ['text/plain;p="a,application/json";q=1', false],
    // A range that does not parse admits nothing; the others still count.
    ["application/json;q=2", false],
    ["application/json;q=0.0001", false],
    ["application/json;q=abc", false],
    ["json", false],
    ["*/json", false],
    ["json, application/json", true],
    [",application/json,", true],
  ];
  for (const [accept, expected] of cases) {
    equal(admits(accept, JSON_TYPE), expected, String(accept));
  }
});
