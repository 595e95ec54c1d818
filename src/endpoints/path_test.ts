import { deepEqual, equal, throws } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { appliesTo, parseNode, parsePattern, splitRequestPath } from "./path.ts";

function refused(path: unknown, reason: RegExp) {
  throws(() => parsePattern(path), (e: unknown) => {
    equal((e as AppError).code, "endpoint.validation.path_invalid");
    equal((e as AppError).status, 400);
    return reason.test(String((e as AppError).details.reason));
  });
}

Deno.test("parsePattern() reads literals and variables in order", () => {
  const p = parsePattern("/sales/{region}/v1.2/{day_from}");
  deepEqual(p.segments, [
    { literal: "sales" },
    { variable: "region" },
    { literal: "v1.2" },
    { variable: "day_from" },
  ]);
  deepEqual(p.variables, ["region", "day_from"]);
});

Deno.test("parsePattern() refuses every grammar defect with endpoint.validation.path_invalid", () => {
  refused("sales", /start with/);
  refused("/", /at least one/);
  refused("/sales/", /end with/);
  refused("/sales//x", /empty segment/);
  refused("/Sales", /neither/);
  refused("/-x", /neither/);
  refused("/sales/*", /neither/);
  refused("/sales/**", /neither/);
  refused("/{Region}", /neither/);
  refused("/{1x}", /neither/);
  refused("/{a}/{a}", /twice/);
  refused("/" + "a".repeat(65), /neither/);
  refused("/" + Array(11).fill("a").join("/"), /more than 10/);
  refused("/" + Array(10).fill("a".repeat(20)).join("/"), /longer than 200/);
  refused(42, /string/);
  equal(parsePattern("/" + Array(10).fill("a").join("/")).segments.length, 10);
  equal(parsePattern("/" + "a".repeat(64)).segments.length, 1);
});

Deno.test("parseNode() accepts the root and keys nodes without variable names", () => {
  deepEqual(parseNode("/"), { text: "/", key: "/", segments: [] });
  deepEqual(parseNode("/sales/{region}"), {
    text: "/sales/{region}",
    key: "/sales/{}",
    segments: [{ literal: "sales" }, { variable: "region" }],
  });
});

Deno.test("appliesTo(): a node decides for a pattern when some URL of it lies at or under the node", () => {
  const applies = (node: string, pattern: string) =>
    appliesTo(parseNode(node).segments, parsePattern(pattern).segments);
  equal(applies("/", "/p/lit/{v}"), true);
  equal(applies("/p/lit", "/p/lit/{v}"), true);
  equal(applies("/p/{x}", "/p/lit/{v}"), true);
  // Below a variable of the pattern: some of its URLs, not all (issue 22 finding 2).
  equal(applies("/p/lit/secret", "/p/lit/{v}"), true);
  equal(applies("/p/lit/{w}", "/p/lit/{v}"), true);
  equal(applies("/p/other", "/p/lit/{v}"), false);
  equal(applies("/p/lit/secret/deeper", "/p/lit/{v}"), false);
  equal(applies("/q", "/p/lit/{v}"), false);
});

Deno.test("splitRequestPath() decodes segments and refuses shapes no pattern can match", () => {
  deepEqual(splitRequestPath("/a/b%20c"), ["a", "b c"]);
  equal(splitRequestPath("/"), null);
  equal(splitRequestPath("/a/"), null);
  equal(splitRequestPath("/a//b"), null);
  equal(splitRequestPath("/a/%E0%A4%A"), null);
  equal(splitRequestPath("/" + Array(11).fill("a").join("/")), null);
});
