/** Each render limit stops the render with `template.render.limit_exceeded` and its name. */
import { equal, rejects } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { checkTemplateSyntax, DEFAULT_RENDER_LIMITS, type RenderRequest } from "./render.ts";
import { library, pin, render } from "./test_fixtures.ts";
import { refuses } from "../../tests/support/refusals.ts";

/** Renders `body` with `extra` and expects the refusal of `limit`, naming its `max`. */
const exceeds = (body: string, extra: Partial<RenderRequest>, limit: string, max: number) =>
  refuses(render(body, {}, extra), "template.render.limit_exceeded", { limit, max });

Deno.test("renderTemplate() refuses nesting deeper than the depth limit", async () => {
  const lib = library([
    { id: "lib/self", version: 1, body: "x{% render 'me' %}", imports: [pin("me", "lib/self", 1)] },
    { id: "lib/l1", version: 1, body: "1{% include 'l2' %}", imports: [pin("l2", "lib/l2", 1)] },
    { id: "lib/l2", version: 1, body: "2{% include 'l3' %}", imports: [pin("l3", "lib/l3", 1)] },
    { id: "lib/l3", version: 1, body: "3", imports: [] },
  ]);
  const loadImport = lib.load;
  await exceeds(
    "{% render 's' %}",
    { imports: [lib.resolve("s", "lib/self", 1)], loadImport },
    "depth",
    DEFAULT_RENDER_LIMITS.max_depth,
  );
  const chain = { imports: [lib.resolve("l1", "lib/l1", 1)], loadImport };
  equal(
    (await render("{% include 'l1' %}", {}, { ...chain, limits: { max_depth: 3 } })).sql,
    "123",
  );
  await exceeds("{% include 'l1' %}", { ...chain, limits: { max_depth: 2 } }, "depth", 2);
});

Deno.test("renderTemplate() refuses output over the size limit, counted in UTF-8 bytes", async () => {
  const limits = { max_output_bytes: 100 };
  equal(
    (await render("{% for i in (1..10) %}0123456789{% endfor %}", {}, { limits })).sql.length,
    100,
  );
  for (
    const body of [
      "{% for i in (1..11) %}0123456789{% endfor %}",
      "{% capture c %}{% for i in (1..1000) %}0123456789{% endfor %}{% endcapture %}",
      "é".repeat(51),
    ]
  ) {
    await exceeds(body, { limits }, "output_size", 100);
  }
});

Deno.test("renderTemplate() refuses rendering past the time limit", async () => {
  await exceeds(
    "{% for i in (1..1000000) %}{% if i %}{% endif %}{% endfor %}",
    { limits: { max_time_ms: 20 } },
    "time",
    20,
  );
});

Deno.test("renderTemplate() refuses allocations past the memory limit", async () => {
  const limits = { max_memory: 1000 };
  equal((await render("{% assign r = (1..500) %}{{ r | size }}", {}, { limits })).sql, "500");
  await exceeds("{% for i in (1..100000000) %}{% endfor %}", { limits }, "memory", 1000);
  await exceeds(
    "{{ 'ab' | split: '' | join: 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' | append: 'y' | size }}",
    { limits: { max_memory: 5 } },
    "memory",
    5,
  );
});

Deno.test("renderTemplate() refuses template source over the size limit, imports counted", async () => {
  const lib = library([{ id: "lib/big", version: 1, body: "y".repeat(60), imports: [] }]);
  const limits = { max_source_chars: 100 };
  equal((await render("x".repeat(100), {}, { limits })).sql.length, 100);
  await exceeds("x".repeat(101), { limits }, "source_size", 100);
  await exceeds(
    "{% render 'b' %}" + "x".repeat(30),
    { limits, imports: [lib.resolve("b", "lib/big", 1)] },
    "source_size",
    100,
  );
});

Deno.test("a tag-dense template is refused before liquidjs parses it, at render and at save", async () => {
  const limits = { max_tags: 4 };
  equal((await render("{{ 1 }}{% if true %}x{% endif %}{{ 2 }}", {}, { limits })).sql, "1x2");
  await exceeds("{{ 1 }}{% if true %}x{% endif %}{{ 2 }}{{ 3 }}", { limits }, "tags", 4);
  // The default bounds the save-time check too: 5,001 tags never reach the parser.
  await rejects(
    checkTemplateSyntax({ template: { id: "t" }, body: "{{ 1 }}".repeat(5_001), imports: [] }),
    (e: unknown) =>
      e instanceof AppError && e.code === "template.render.limit_exceeded" &&
      e.details.limit === "tags" && e.details.max === 5_000,
  );
});

Deno.test("renderTemplate() keeps a default for a limit given as undefined, refuses a bad one", async () => {
  const lib = library([
    { id: "lib/self", version: 1, body: "x{% render 'me' %}", imports: [pin("me", "lib/self", 1)] },
  ]);
  await exceeds(
    "{% render 's' %}",
    {
      imports: [lib.resolve("s", "lib/self", 1)],
      loadImport: lib.load,
      limits: { max_depth: undefined },
    },
    "depth",
    DEFAULT_RENDER_LIMITS.max_depth,
  );
  for (const bad of [0, -1, NaN, "5"]) {
    await refuses(
      render("x", {}, { limits: { max_time_ms: bad as number } }),
      "pipeline.execution.invalid_parameter_type",
      { field: "limits.max_time_ms" },
    );
  }
});
