/**
 * Injection, property style: for crafted parameter values (quotes, statement breakers, Liquid
 * delimiters, placeholders, comment openers, unicode, huge strings, prototype keys, objects that
 * imitate drops), the rendered SQL is byte-identical to the SQL rendered for plain values taking
 * the same branches, and every attempt to print one is refused. Values come from a seeded
 * generator, so a failure reproduces.
 */
import { deepEqual, equal, fail, ok } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { type RenderedSql, renderTemplate, type ResolvedImport } from "./render.ts";

const FRAGMENTS = [
  "'",
  "''",
  '"',
  "\\",
  "\\'",
  "'; DROP TABLE users; --",
  "' OR '1'='1",
  "{{",
  "}}",
  "{%",
  "%}",
  "{{ params.x }}",
  "{% raw %}",
  "{% endraw %}",
  "{%- if true -%}",
  ":other",
  ":a",
  "::text",
  "$$",
  "$tag$",
  "$1",
  "?",
  "/*",
  "*/",
  "--",
  "#",
  "`",
  "[",
  "]",
  ";",
  "%",
  "_",
  "\n",
  "\r\n",
  "\t",
  "\u0000",
  "é",
  "😀",
  "\u202e",
  "\ud800",
  "\uffff",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "toLiquid",
  "liquidMethodMissing",
  "params",
  "forloop",
  "nil",
  "empty",
  "blank",
  "true",
  "false",
  "0",
  "-1",
  "1e309",
  "NaN",
  "<script>",
];

/** mulberry32: small, seedable, good enough to pick fragments. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function craftedString(next: () => number): string {
  const parts: string[] = [];
  const count = 1 + Math.floor(next() * 6);
  for (let i = 0; i < count; i++) {
    if (next() < 0.2) {
      parts.push(String.fromCodePoint(Math.floor(next() * 0x10ffff) & ~0x800));
    } else {
      parts.push(FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]);
    }
  }
  return parts.join("");
}

/** JSON the way a request body arrives: prototype keys become ordinary own data. */
const JSON_OBJECTS = [
  '{"__proto__": {"polluted": "x"}, "constructor": {"prototype": {"polluted": "y"}}}',
  '{"toString": "\'; DROP TABLE t; --", "valueOf": 1, "toLiquid": "{{ x }}", "k": ":other"}',
  '{"liquidMethodMissing": "x", "size": "\'", "first": "--", "k": {"k": {"k": "/*"}}}',
];

/** A crafted value of any JSON shape; never null or false, so it stays truthy. */
function craftedValue(next: () => number): unknown {
  const pick = next();
  if (pick < 0.5) return craftedString(next);
  if (pick < 0.6) return Math.floor(next() * 2e9) - 1e9;
  if (pick < 0.65) return [craftedString(next), [craftedString(next)], { k: craftedString(next) }];
  if (pick < 0.8) return JSON.parse(JSON_OBJECTS[Math.floor(next() * JSON_OBJECTS.length)]);
  return { k: craftedString(next), [craftedString(next)]: craftedString(next) };
}

const HUGE = "'".repeat(1_000) + "x".repeat(1_000_000) + "{{ params }}";
const SEEDS = 150;

const IMPORTS: ResolvedImport[] = [{
  alias: "filter",
  id: "lib/filter",
  version: 1,
  body: "{% if v %} AND v = :v{% endif %}{% for i in items %} OR i = :items{% endfor %}",
  imports: [],
}];

function render(body: string, params: Record<string, unknown>): Promise<RenderedSql> {
  return renderTemplate({ body, dialect: "POSTGRES", imports: IMPORTS, params });
}

/**
 * [name, template, plain parameters, crafted parameters taking the same branches]. Crafted
 * values are truthy and never equal the literals the templates compare against.
 */
type Case = [
  string,
  string,
  Record<string, unknown>,
  (next: () => number) => Record<string, unknown>,
];

// deno-fmt-ignore
const CASES: Case[] = [
  ["truthiness", "SELECT * FROM t WHERE 1 = 1{% if params.a %} AND a = :a{% endif %}{% unless params.b %} AND b IS NULL{% endunless %}{% if params.c == nil %} AND c{% endif %}",
    { a: "x", b: "y" }, (n) => ({ a: craftedValue(n), b: craftedValue(n) })],
  ["loop over a list", "SELECT 1{% for r in params.list %}{% unless forloop.first %} OR{% endunless %} c{{ forloop.index }} = :list{% endfor %}",
    { list: ["a", "b", "c"] }, (n) => ({ list: [craftedValue(n), craftedValue(n), craftedValue(n)] })],
  ["case", "SELECT {% case params.mode %}{% when 'day' %}day{% when 'week', 'month' %}wm{% else %}other{% endcase %}",
    { mode: "x" }, (n) => ({ mode: craftedValue(n) })],
  ["comparison", "SELECT 1{% if params.s != 'day' and params.s != blank %} AND s = :s{% endif %}",
    { s: "x" }, (n) => ({ s: craftedString(n) + "x" })],
  ["contains", "SELECT 1{% if params.list contains 'day' %} AND day{% else %} AND not_day{% endif %}",
    { list: ["x"] }, (n) => ({ list: [craftedValue(n), craftedValue(n)] })],
  ["number range", "SELECT 1{% if params.n > 10 and params.n < 1000000000000 %} LIMIT :n{% endif %}",
    { n: 11 }, (n) => ({ n: 11 + Math.floor(n() * 1e9) })],
  ["filters in conditions", "{% assign size = params.s | size %}{% assign up = params.s | upcase %}SELECT 1{% if size > 0 and up != 'DAY' %} AND :s{% endif %}",
    { s: "x" }, (n) => ({ s: craftedString(n) + "x" })],
  ["nested fields", "SELECT 1{% if params.obj.k %} AND k = :obj{% endif %}{% for kv in params.obj %} AND{% endfor %}",
    { obj: { k: "x" } }, (n) => ({ obj: { k: craftedValue(n) } })],
  ["imports with arguments", "SELECT 1{% render 'filter', v: params.a, items: params.list %}{% include 'filter', v: params.a, items: params.list %}",
    { a: "x", list: ["a"] }, (n) => ({ a: craftedValue(n), list: [craftedValue(n)] })],
  ["capture of control flow", "{% capture w %}{% if params.a %}WHERE a = :a{% endif %}{% endcapture %}SELECT 1 {{ w }}",
    { a: "x" }, (n) => ({ a: craftedValue(n) })],
  ["render for a list", "SELECT 1{% render 'filter' for params.list as v, items: params.list %}",
    { list: ["a", "b"] }, (n) => ({ list: [craftedValue(n), craftedValue(n)] })],
];

for (const [name, body, plain, crafted] of CASES) {
  Deno.test(`crafted parameters cannot change the SQL text: ${name}`, async () => {
    const expected = await render(body, plain);
    const next = rng(name.length * 7919);
    const tries: Record<string, unknown>[] = [];
    for (let i = 0; i < SEEDS; i++) tries.push(crafted(next));
    // The same shapes once more with the huge value in every string position.
    tries.push(JSON.parse(JSON.stringify(plain), (_k, v) => typeof v === "string" ? HUGE : v));
    for (const params of tries) {
      const got = await render(body, params);
      equal(got.sql, expected.sql, `params ${JSON.stringify(params).slice(0, 200)}`);
      deepEqual(got.placeholders, expected.placeholders);
    }
  });
}

/** Ways to print a parameter; each must be refused for every value. */
// deno-fmt-ignore
const PRINTS = [
  "{{ params.x }}", "{% echo params.x %}", "{{ params.x | upcase }}", "{{ params.x | json }}",
  "{% assign a = params.x %}{{ a }}", "{% capture c %}{{ params.x }}{% endcapture %}{{ c }}",
  "{% for i in params.list %}{{ i }}{% endfor %}", "{{ params.x.k }}", "{{ params.x.size }}",
  "{{ 'a' | append: params.x }}", "{% cycle params.x, 'b' %}", "{{ params.x | default: 'd' }}",
  "{{ params.x.toString }}", "{{ params.x.__proto__ }}", "{% liquid\necho params.x %}",
];

Deno.test("crafted parameters are refused on every printing path", async () => {
  const next = rng(42);
  const values: unknown[] = [HUGE, "", ...JSON_OBJECTS.map((j) => JSON.parse(j))];
  for (let i = 0; i < 40; i++) values.push(craftedValue(next));
  for (const body of PRINTS) {
    for (const x of values) {
      try {
        const out = await render(body, { x, list: [x] });
        fail(`${body} rendered ${JSON.stringify(out.sql).slice(0, 100)} for ${JSON.stringify(x)}`);
      } catch (e) {
        ok(e instanceof AppError, String(e));
        equal(e.code, "template.render.parameter_interpolation", `${body}: ${e.message}`);
      }
    }
  }
});

Deno.test("values that are not JSON data are refused before any template runs", async () => {
  let called = false;
  const spy = () => {
    called = true;
    return "'; DROP TABLE t; --";
  };
  const values: unknown[] = [
    { toString: spy },
    { toLiquid: spy },
    { valueOf: spy },
    { toJSON: spy },
    Object.defineProperty({}, "k", { get: spy, enumerable: true }),
    new (class Drop {})(),
    new Map([["k", "v"]]),
    Symbol("s"),
    spy,
    [spy],
  ];
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  values.push(cyclic);
  for (const x of values) {
    for (const body of ["{% if params.x %}SELECT 1{% endif %}", "{{ params.x }}"]) {
      try {
        await render(body, { x });
        fail(`rendered with ${String(x)}`);
      } catch (e) {
        ok(e instanceof AppError, String(e));
        equal(e.code, "pipeline.execution.invalid_parameter_type");
        ok(String(e.details.field).startsWith("context.x"), String(e.details.field));
      }
    }
  }
  equal(called, false, "a function inside a parameter ran");
});

Deno.test("prototype keys in parameters pollute nothing", async () => {
  const params = JSON.parse(JSON_OBJECTS[0]);
  const out = await render(
    "{% if params.__proto__.polluted %}A{% endif %}{% if params.constructor.prototype %}B{% endif %}" +
      "{% if params.polluted %}C{% endif %}{% if params.x.polluted %}D{% endif %}",
    params,
  );
  equal(out.sql, "AB");
  equal(({} as Record<string, unknown>).polluted, undefined);
  equal(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"), false);
});
