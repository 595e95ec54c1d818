/**
 * Every path by which a template could write a parameter's value into the SQL is refused with
 * `template.render.parameter_interpolation`, naming the parameter and where it happened.
 */
import { equal } from "node:assert/strict";
import { library, render } from "./test_fixtures.ts";
import { refuses } from "../../tests/support/refusals.ts";

const PARAMS = {
  region: "eu",
  regions: ["eu", "us"],
  n: 3,
  flag: true,
  obj: { k: "v", nested: { deep: "x" } },
};

const CODE = "template.render.parameter_interpolation";

/** [path into the template, body, parameter, path read, line, column] */
// deno-fmt-ignore
const LEAKS: [string, string, string | null, string, number, number][] = [
  ["output", "SELECT {{ params.region }}", "region", "params.region", 1, 8],
  ["output on a later line", "SELECT 1\n  , {{ params.n }}", "n", "params.n", 2, 5],
  ["assign then output", "{% assign a = params.region %}\n{{ a }}", "region", "params.region", 2, 1],
  ["filter", "{{ params.region | upcase }}", "region", "params.region", 1, 1],
  ["filter chain", "{{ params.region | append: 'x' | remove: 'x' }}", "region", "params.region", 1, 1],
  ["filter argument", "{{ 'a' | append: params.region }}", "region", "params.region", 1, 1],
  ["filter keyword argument", "{{ 'a' | default: params.region, allow_false: true }}", "region", "params.region", 1, 1],
  ["default filter", "{{ params.missing | default: 'x' }}", "missing", "params.missing", 1, 1],
  ["assign through filters", "{% assign a = params.region | downcase | strip %}{{ a }}", "region", "params.region", 1, 50],
  ["capture", "{% capture c %}{{ params.region }}{% endcapture %}{{ c }}", "region", "params.region", 1, 16],
  ["echo", "{% echo params.region %}", "region", "params.region", 1, 1],
  ["liquid echo", "{% liquid\n  echo params.region\n%}", "region", "params.region", 2, 3],
  ["cycle", "{% cycle 'a', params.region %}{% cycle 'a', params.region %}", "region", "params.region", 1, 31],
  ["cycle group", "{% cycle params.region: 'a', 'b' %}", "region", "params.region", 1, 1],
  ["for variable", "{% for r in params.regions %}{{ r }}{% endfor %}", "regions", "params.regions[0]", 1, 30],
  ["for over a map", "{% for kv in params.obj %}{{ kv[0] }}{% endfor %}", "obj", "params.obj.k[0]", 1, 27],
  ["for limit", "{% for i in (1..5) limit: params.n %}{{ i }}{% endfor %}", "n", "params.n", 1, 1],
  ["range bound", "{% for i in (1..params.n) %}{{ i }}{% endfor %}", "n", "params.n", 1, 1],
  ["index by a parameter", "{% assign l = 'a,b' | split: ',' %}{{ l[params.n] }}", "n", "params.n", 1, 36],
  ["json of params", "{{ params | json }}", null, "params", 1, 1],
  ["params itself", "{{ params }}", null, "params", 1, 1],
  ["list", "{{ params.regions }}", "regions", "params.regions", 1, 1],
  ["list join", "{{ params.regions | join: ',' }}", "regions", "params.regions", 1, 1],
  ["list size", "{{ params.regions.size }}", "regions", "params.regions", 1, 1],
  ["list item", "{{ params.regions[1] }}", "regions", "params.regions[1]", 1, 1],
  ["list first", "{{ params.regions.first }}", "regions", "params.regions[0]", 1, 1],
  ["nested field", "{{ params.obj.nested.deep }}", "obj", "params.obj.nested.deep", 1, 1],
  ["comparison result", "{{ params.region == 'eu' }}", "region", "params.region", 1, 1],
  ["assigned comparison", "{% assign b = params.flag and true %}{{ b }}", "flag", "params.flag", 1, 38],
  ["string length", "{{ params.region.size }}", "region", "params.region", 1, 1],
  ["prototype name", "{{ params.obj.constructor }}", "obj", "params.obj.constructor", 1, 1],
  ["__proto__", "{{ params.__proto__ }}", "__proto__", "params.__proto__", 1, 1],
  ["method name", "{{ params.region.valueOf }}", "region", "params.region.valueOf", 1, 1],
  ["expression filter", "{% assign l = 'a' | split: ',' %}{{ l | where_exp: 'x', params.region }}", "region", "params.region", 1, 34],
];

for (const [how, body, parameter, path, line, column] of LEAKS) {
  Deno.test(`renderTemplate() refuses a parameter written through ${how}`, async () => {
    const lib = library([{ id: "lib/a", version: 1, body: "A", imports: [] }]);
    const imports = [lib.resolve("a", "lib/a", 1)];
    await refuses(render(body, PARAMS, { imports }), CODE, {
      parameter,
      path,
      template: "test/t",
      version: 1,
      alias: null,
      line,
      column,
    });
  });
}

Deno.test("renderTemplate() refuses a parameter printed inside an import, naming the import", async () => {
  const lib = library([
    { id: "lib/print_v", version: 4, body: "x = {{ v }}", imports: [] },
    { id: "lib/print_param", version: 2, body: "\n{{ params.region }}", imports: [] },
  ]);
  const imports = [lib.resolve("pv", "lib/print_v", 4), lib.resolve("pp", "lib/print_param", 2)];
  const where = { template: "lib/print_v", version: 4, alias: "pv", line: 1, column: 5 };
  for (
    const body of [
      "{% render 'pv', v: params.region %}",
      "{% render 'pv' with params.region as v %}",
      "{% assign v = params.region %}{% include 'pv' %}",
    ]
  ) {
    await refuses(render(body, PARAMS, { imports }), CODE, { parameter: "region", ...where });
  }
  await refuses(render("{% render 'pv' for params.regions as v %}", PARAMS, { imports }), CODE, {
    parameter: "regions",
    path: "params.regions[0]",
    ...where,
  });
  for (const tag of ["render", "include"]) {
    await refuses(render(`{% ${tag} 'pp' %}`, PARAMS, { imports }), CODE, {
      parameter: "region",
      template: "lib/print_param",
      alias: "pp",
      line: 2,
      column: 1,
    });
  }
});

Deno.test("renderTemplate() refuses even when the value is empty, absent, false or nil", async () => {
  for (const value of ["", null, false, 0, [], {}]) {
    await refuses(render("{{ params.x }}", { x: value }), CODE, { parameter: "x" });
  }
  await refuses(render("{{ params.absent }}"), CODE, { parameter: "absent" });
});

Deno.test("renderTemplate() allows every control-flow use of a parameter", async () => {
  const body = [
    "{% if params.region == 'eu' and params.flag %}a{% endif %}",
    "{% if params.regions contains 'us' %}b{% endif %}",
    "{% unless params.missing %}c{% endunless %}",
    "{% case params.n %}{% when 1 %}one{% when params.n %}d{% endcase %}",
    "{% for r in params.regions %}{% if r == 'us' %}e{% endif %}{{ forloop.index }}{% endfor %}",
    "{% assign up = params.region | upcase %}{% if up == 'EU' %}f{% endif %}",
    "{% capture c %}{% if params.flag %}g{% endif %}{% endcapture %}{{ c }}",
    "{% if params.obj.nested.deep == 'x' and params.obj.size == 2 %}h{% endif %}",
    "{% for kv in params.obj %}{% if kv[0] == 'k' %}i{% endif %}{% endfor %}",
    "{% if params.n > 2 and params.n <= 3 and not params.missing %}j{% endif %}",
    "{% assign b = params.region != 'us' %}{% if b %}k{% endif %}",
  ].join("");
  equal((await render(body, PARAMS)).sql, "abcd1e2fghijk");
});

Deno.test("renderTemplate() refuses printing a filter result even when the filter failed on it", async () => {
  // `upcase` cannot stringify a map; printing is still the refusal, whatever the value.
  await refuses(render("{{ params.obj | upcase | downcase }}", PARAMS), CODE, { parameter: "obj" });
  // Testing the failed result surfaces the filter's own error.
  const e = await refuses(
    render("{% assign u = params.obj | upcase %}\n{% if u %}x{% endif %}", PARAMS),
    "template.render.failed",
    { line: 2, column: 1 },
  );
  equal(e.details.message, "Cannot convert object to primitive value");
});
