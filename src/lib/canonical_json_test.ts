import { equal, match, ok, throws } from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  BODY_HASH_RE,
  bodyHash,
  canonicalJson,
  CanonicalJsonError,
  compareCodePoints,
} from "./canonical_json.ts";

Deno.test("canonicalJson() sorts keys at every depth and writes no whitespace", () => {
  equal(
    canonicalJson({ b: 1, a: { z: [3, { y: true, x: null }], c: "s" }, " ": [] }),
    '{" ":[],"a":{"c":"s","z":[3,{"x":null,"y":true}]},"b":1}',
  );
});

Deno.test("canonicalJson() keeps array order, nested arrays and empty containers", () => {
  equal(canonicalJson([[3, 2], [], [[1]], {}, [{}]]), "[[3,2],[],[[1]],{},[{}]]");
});

Deno.test("canonicalJson() orders unicode keys by code point, not UTF-16 unit", () => {
  // U+FF61 is one unit above the surrogates; U+1F600 is a pair starting 0xD83D. Code point order
  // puts the emoji last, UTF-16 unit order would put it before U+FF61.
  const emoji = "\u{1F600}";
  const halfwidth = "\uFF61";
  equal(
    canonicalJson({ [emoji]: 1, [halfwidth]: 2, "é": 3, "a": 4, "Z": 5 }),
    `{"Z":5,"a":4,"é":3,"${halfwidth}":2,"${emoji}":1}`,
  );
  ok(compareCodePoints(emoji, halfwidth) > 0);
  ok([halfwidth, emoji].sort()[0] === emoji, "the default sort disagrees, which is the point");
  ok(compareCodePoints("ab", "abc") < 0);
  equal(compareCodePoints("x", "x"), 0);
  // Integer-like keys are strings like any other (JS would list them first, numerically).
  equal(canonicalJson({ a: 3, "9": 2, "10": 1 }), '{"10":1,"9":2,"a":3}');
});

Deno.test("canonicalJson() escapes strings as JSON does, lone surrogates included", () => {
  equal(canonicalJson('q"\\\n\t\u0001/'), '"q\\"\\\\\\n\\t\\u0001/"');
  equal(canonicalJson("\ud800"), '"\\ud800"');
  equal(canonicalJson({ "\n": "ü" }), '{"\\n":"ü"}');
});

Deno.test("canonicalJson() writes numbers in shortest round-trip form", () => {
  equal(canonicalJson(-0), "0");
  equal(canonicalJson([0, -0, 1.5, -2]), "[0,0,1.5,-2]");
  equal(canonicalJson(0.1 + 0.2), "0.30000000000000004");
  equal(canonicalJson(1e21), "1e+21");
  equal(canonicalJson(1e-7), "1e-7");
  equal(canonicalJson(123456789012345680000), "123456789012345680000");
  equal(canonicalJson(Number.MAX_SAFE_INTEGER), "9007199254740991");
  equal(canonicalJson(Number.MAX_VALUE), "1.7976931348623157e+308");
  equal(canonicalJson(5e-324), "5e-324");
  // A parsed document re-serialises to the same canonical text.
  equal(
    canonicalJson(JSON.parse("[1.0, 1e2, 2E-3, 100000000000000000000000]")),
    "[1,100,0.002,1e+23]",
  );
});

Deno.test("canonicalJson() refuses values that have no JSON form, naming the path", () => {
  const cases: [unknown, string, RegExp][] = [
    [undefined, "$", /undefined/],
    [{ a: undefined }, "$.a", /undefined/],
    [[1, () => 1], "$[1]", /a function/],
    [{ n: NaN }, "$.n", /NaN/],
    [{ deep: [{ x: Infinity }] }, "$.deep[0].x", /Infinity/],
    [-Infinity, "$", /-Infinity/],
    [10n, "$", /a bigint/],
    [Symbol("s"), "$", /a symbol/],
    [{ d: new Date(0) }, "$.d", /Date/],
    [new Map(), "$", /Map/],
    // deno-lint-ignore no-sparse-arrays
    [[1, , 3], "$[1]", /hole/],
  ];
  for (const [value, path, what] of cases) {
    throws(() => canonicalJson(value), (e: unknown) => {
      ok(e instanceof CanonicalJsonError, String(e));
      equal(e.path, path);
      match(e.message, what);
      return true;
    });
  }
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  throws(() => canonicalJson(cyclic), /\$\.self is a cycle/);
});

Deno.test("canonicalJson() accepts a repeated (non-cyclic) reference and null-prototype objects", () => {
  const shared = { k: 1 };
  equal(canonicalJson([shared, shared]), '[{"k":1},{"k":1}]');
  const bare = Object.assign(Object.create(null), { b: 2, a: 1 });
  equal(canonicalJson(bare), '{"a":1,"b":2}');
});

Deno.test("bodyHash() is sha256: and the hex SHA-256 of the canonical text", () => {
  const value = { name: "sales/daily", nodes: [{ id: "a" }], "ü": -0 };
  const text = '{"name":"sales/daily","nodes":[{"id":"a"}],"ü":0}';
  equal(canonicalJson(value), text);
  const hex = createHash("sha256").update(new TextEncoder().encode(text)).digest("hex");
  equal(bodyHash(value), `sha256:${hex}`);
  match(bodyHash(value), BODY_HASH_RE);
  // Key order and -0 do not change the hash; content does.
  equal(bodyHash({ "ü": 0, nodes: [{ id: "a" }], name: "sales/daily" }), bodyHash(value));
  ok(bodyHash({ ...value, name: "sales/weekly" }) !== bodyHash(value));
  equal(
    bodyHash({}),
    "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
  );
});
