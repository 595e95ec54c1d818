import { deepEqual, equal, ok } from "node:assert/strict";
import { AppError } from "../errors/mod.ts";
import { renderTemplate } from "./render.ts";
import { library, pin, render } from "./test_fixtures.ts";
import { refuses } from "../../tests/support/refusals.ts";

Deno.test("renderTemplate() answers the SQL, its placeholders and no imports for a plain body", async () => {
  const out = await render("SELECT * FROM sales WHERE region = :region AND day >= :from::date");
  deepEqual(out, {
    sql: "SELECT * FROM sales WHERE region = :region AND day >= :from::date",
    placeholders: ["region", "from"],
    imports: [],
  });
});

Deno.test("renderTemplate() lets parameters steer if, unless, case and for", async () => {
  const body = [
    "SELECT * FROM t WHERE 1 = 1",
    "{% if params.region %} AND region = :region{% endif %}",
    "{% unless params.all %} AND active{% endunless %}",
    "{% case params.order %}{% when 'day' %} ORDER BY day{% when 'amount', 'total' %} ORDER BY 2",
    "{% else %} ORDER BY 1{% endcase %}",
    "{% if params.regions.size > 1 and params.regions contains 'eu' %} AND eu{% endif %}",
    "{% for r in params.regions %}{% if forloop.first %} AND r IN ({% else %}, {% endif %}'x'",
    "{% if forloop.last %}){% endif %}{% endfor %}",
  ].join("");
  deepEqual(
    (await render(body, { region: "eu", all: false, order: "total", regions: ["eu", "us"] })).sql,
    "SELECT * FROM t WHERE 1 = 1 AND region = :region AND active ORDER BY 2 AND eu AND r IN ('x', 'x')",
  );
  deepEqual(
    (await render(body, { all: true, order: "none", regions: [] })).sql,
    "SELECT * FROM t WHERE 1 = 1 ORDER BY 1",
  );
});

Deno.test("renderTemplate() treats an absent parameter as nil in conditions", async () => {
  const body = "{% if params.missing %}a{% elsif params.missing == nil %}b{% endif %}" +
    "{% for x in params.missing %}c{% else %}d{% endfor %}{% if params.nested.deep.x %}e{% endif %}";
  equal((await render(body)).sql, "bd");
});

Deno.test("renderTemplate() compares with empty and blank, and keeps Liquid truthiness", async () => {
  const body = "{% if params.s == blank %}blank{% endif %}|{% if params.s %}truthy{% endif %}|" +
    "{% if params.l == empty %}empty{% endif %}|{% if params.z %}zero-truthy{% endif %}";
  equal((await render(body, { s: "  ", l: [], z: 0 })).sql, "blank|truthy|empty|zero-truthy");
});

Deno.test("renderTemplate() lets filters feed conditions through assign", async () => {
  const body = "{% assign n = params.regions | size %}{% assign u = params.code | upcase %}" +
    "{% if n >= 2 and u == 'EU' %}yes{% else %}no{% endif %}";
  equal((await render(body, { regions: ["a", "b"], code: "eu" })).sql, "yes");
  equal((await render(body, { regions: ["a"], code: "eu" })).sql, "no");
});

Deno.test("renderTemplate() prints literals, assigned literals and captures of template text", async () => {
  const body = "{% assign t = 'sales' | append: '_2024' %}{% capture cols %}a, b{% endcapture %}" +
    "SELECT {{ cols }} FROM {{ t }} LIMIT {{ 10 | plus: 5 }}{% raw %} {{ x }}{% endraw %}";
  equal((await render(body)).sql, "SELECT a, b FROM sales_2024 LIMIT 15 {{ x }}");
});

Deno.test("renderTemplate() binds a list parameter as one placeholder", async () => {
  const out = await render("SELECT * FROM t WHERE region IN (:regions) AND id = :id", {
    regions: ["eu", "us"],
    id: 3,
  });
  deepEqual(out.placeholders, ["regions", "id"]);
});

Deno.test("renderTemplate() reads placeholders with the dialect's lexical rules", async () => {
  // MySQL: backslash escapes in strings, `#` comments, and brackets are plain SQL.
  const mysql = "SELECT `:no`, [:also], 'it\\'s :no' FROM t WHERE a = :a # :no";
  deepEqual((await render(mysql, {}, { dialect: "MYSQL" })).placeholders, ["also", "a"]);
  // SQLite: brackets quote identifiers and a backslash is text, so `:x` is outside the string.
  const sqlite = "SELECT `:no`, [:no], 'a\\' :x FROM t WHERE a = :a";
  deepEqual((await render(sqlite, {}, { dialect: "SQLITE" })).placeholders, ["x", "a"]);
  deepEqual((await render("SELECT $$ :no $$, :a", {}, { dialect: "LAKE" })).placeholders, ["a"]);
});

Deno.test("renderTemplate() renders imports by alias and lists those it used", async () => {
  const lib = library([
    {
      id: "lib/filters",
      version: 3,
      body: "AND region = :region{% if extra %} AND x{% endif %}",
      imports: [],
    },
    { id: "lib/cols", version: 7, body: "a, b", imports: [] },
    { id: "lib/unused", version: 1, body: "never", imports: [] },
  ]);
  const imports = [
    lib.resolve("cols", "lib/cols", 7),
    lib.resolve("filters", "lib/filters", 3),
    lib.resolve("unused", "lib/unused", 1),
  ];
  const body =
    "SELECT {% include 'cols' %} FROM t WHERE 1 = 1 {% render 'filters', extra: true %}" +
    "{% if params.never %}{% render 'unused' %}{% endif %}{% render 'cols' %}";
  const out = await render(body, {}, { imports });
  deepEqual(out, {
    sql: "SELECT a, b FROM t WHERE 1 = 1 AND region = :region AND xa, b",
    placeholders: ["region"],
    imports: [pin("cols", "lib/cols", 7), pin("filters", "lib/filters", 3)],
  });
});

Deno.test("renderTemplate() passes render arguments, with and for bindings to the import", async () => {
  const lib = library([
    {
      id: "lib/col",
      version: 1,
      body: "{{ c }}{% unless forloop.last %}, {% endunless %}",
      imports: [],
    },
    { id: "lib/where", version: 1, body: "{% if f %}AND f{% endif %}", imports: [] },
  ]);
  const imports = [lib.resolve("col", "lib/col", 1), lib.resolve("w", "lib/where", 1)];
  const body = "SELECT {% assign cs = 'a,b,c' | split: ',' %}{% render 'col' for cs as c %} " +
    "{% render 'w' with params.flag as f %}";
  equal((await render(body, { flag: true }, { imports })).sql, "SELECT a, b, c AND f");
  equal((await render(body, { flag: false }, { imports })).sql, "SELECT a, b, c ");
});

Deno.test("renderTemplate() loads imports of imports through the loader, each version once", async () => {
  const lib = library([
    {
      id: "lib/outer",
      version: 2,
      body: "[{% render 'inner' %}|{% render 'leaf' %}]",
      imports: [pin("inner", "lib/inner", 5), pin("leaf", "lib/leaf", 1)],
    },
    {
      id: "lib/inner",
      version: 5,
      body: "in:{% render 'leaf2' %}",
      imports: [pin("leaf2", "lib/leaf", 1)],
    },
    { id: "lib/leaf", version: 1, body: ":leaf", imports: [] },
  ]);
  const out = await render("{% render 'o' %}", {}, {
    imports: [lib.resolve("o", "lib/outer", 2)],
    loadImport: lib.load,
  });
  equal(out.sql, "[in::leaf|:leaf]");
  deepEqual(out.placeholders, ["leaf"]);
  deepEqual(out.imports, [
    pin("o", "lib/outer", 2),
    pin("inner", "lib/inner", 5),
    pin("leaf2", "lib/leaf", 1),
    pin("leaf", "lib/leaf", 1),
  ]);
  deepEqual(lib.reads.sort(), ["lib/inner@5", "lib/leaf@1"]);
});

Deno.test("renderTemplate() resolves an alias against the including template's own imports", async () => {
  // The root's `x` and the import's `x` are different templates.
  const lib = library([
    { id: "lib/a", version: 1, body: "A{% render 'x' %}", imports: [pin("x", "lib/c", 1)] },
    { id: "lib/b", version: 1, body: "B", imports: [] },
    { id: "lib/c", version: 1, body: "C", imports: [] },
  ]);
  const out = await render("{% render 'a' %}{% render 'x' %}", {}, {
    imports: [lib.resolve("a", "lib/a", 1), lib.resolve("x", "lib/b", 1)],
    loadImport: lib.load,
  });
  equal(out.sql, "ACB");
});

Deno.test("renderTemplate() passes the loader's own error on", async () => {
  const lib = library([
    { id: "lib/a", version: 1, body: "{% render 'gone' %}", imports: [pin("gone", "lib/gone", 4)] },
  ]);
  await refuses(
    render("{% render 'a' %}", {}, {
      imports: [lib.resolve("a", "lib/a", 1)],
      loadImport: lib.load,
    }),
    "request.not_found",
    { path: "lib/gone" },
    404,
  );
});

Deno.test("renderTemplate() refuses any import name that is not an alias of its template", async () => {
  const lib = library([{ id: "lib/a", version: 1, body: "{% include 'b' %}", imports: [] }]);
  const imports = [lib.resolve("a", "lib/a", 1)];
  for (const name of ["nope", "../a", "lib/a", "/etc/passwd", "a.liquid", "./a", "A"]) {
    for (const tag of ["render", "include"]) {
      await refuses(
        render(`x\n  {% ${tag} '${name}' %}`, {}, { imports }),
        "template.render.unknown_import",
        {
          name,
          known: ["a"],
          template: "test/t",
          alias: null,
          line: 2,
          column: 3,
        },
      );
    }
  }
  // Checked inside imports too, against that import's own aliases, even on a branch not taken.
  await refuses(
    render("{% if false %}{% render 'a' %}{% endif %}", {}, { imports }),
    "template.render.unknown_import",
    {
      name: "b",
      known: [],
      template: "lib/a",
      version: 1,
      alias: "a",
      line: 1,
      column: 1,
    },
  );
});

Deno.test("renderTemplate() refuses computed import names and the file-loading tags", async () => {
  const lib = library([{ id: "lib/a", version: 1, body: "A", imports: [] }]);
  const imports = [lib.resolve("a", "lib/a", 1)];
  for (const body of ["{% render params.name %}", "{% include a %}", "{% render 'a{{ 1 }}' %}"]) {
    const e = await refuses(
      render(body, { name: "a" }, { imports }),
      "template.render.syntax_error",
    );
    ok(String(e.details.message).includes("quoted import alias"), String(e.details.message));
  }
  for (
    const tag of ["layout 'a'", "block b", "tablerow x in (1..2)", "increment n", "decrement n"]
  ) {
    const e = await refuses(
      render(`{% ${tag} %}`, {}, { imports }),
      "template.render.syntax_error",
    );
    ok(String(e.details.message).includes("not found"), String(e.details.message));
  }
});

Deno.test("renderTemplate() answers syntax errors with the line, column and template", async () => {
  await refuses(
    render("SELECT 1\nFROM t\n  WHERE {% if %}x{% endif %}"),
    "template.render.syntax_error",
    {
      template: "test/t",
      version: 1,
      alias: null,
      line: 3,
      column: 14, // where the missing condition should be
    },
  );
  await refuses(render("SELECT {{ a"), "template.render.syntax_error", { line: 1, column: 8 });
  await refuses(render("{% if true %}x"), "template.render.syntax_error", { line: 1, column: 1 });
  const e = await refuses(render("{{ 1 | no_such_filter }}"), "template.render.syntax_error");
  equal(e.details.message, "undefined filter: no_such_filter");
  const lib = library([{ id: "lib/bad", version: 6, body: "ok\n{% for %}", imports: [] }]);
  await refuses(
    render("{% render 'bad' %}", {}, { imports: [lib.resolve("bad", "lib/bad", 6)] }),
    "template.render.syntax_error",
    { template: "lib/bad", version: 6, alias: "bad", line: 2, column: 1 },
  );
});

Deno.test("renderTemplate() answers other render failures with their position", async () => {
  const lib = library([{ id: "lib/u", version: 2, body: "\n  {{ not_defined }}", imports: [] }]);
  const e = await refuses(
    render("{% include 'u' %}", {}, { imports: [lib.resolve("u", "lib/u", 2)] }),
    "template.render.failed",
    { template: "lib/u", version: 2, alias: "u", line: 2, column: 6 },
  );
  equal(e.details.message, "undefined variable: not_defined");
});

Deno.test("renderTemplate() refuses malformed import pins and dialects", async () => {
  const good = { alias: "a", id: "lib/a", version: 1, body: "", imports: [] };
  const bad: [Record<string, unknown>, string][] = [
    [{ ...good, alias: "../a" }, "imports[0].alias"],
    [{ ...good, alias: "A" }, "imports[0].alias"],
    [{ ...good, id: "" }, "imports[0].id"],
    [{ ...good, version: 0 }, "imports[0].version"],
    [{ ...good, version: 1.5 }, "imports[0].version"],
    [{ ...good, body: 3 }, "imports[0].body"],
    [{ ...good, imports: "x" }, "imports[0].imports"],
  ];
  for (const [imp, field] of bad) {
    await refuses(
      render("x", {}, { imports: [imp as never] }),
      "pipeline.execution.invalid_parameter_type",
      {
        field,
      },
    );
  }
  await refuses(
    render("x", {}, { imports: [good, { ...good, id: "lib/b" }] }),
    "pipeline.execution.invalid_parameter_type",
    {
      field: "imports[1].alias",
    },
  );
  for (const dialect of ["ORACLE", "__proto__", "toString", "postgres"]) {
    await refuses(
      renderTemplate({ body: "x", dialect: dialect as never, imports: [] }),
      "pipeline.execution.invalid_parameter_type",
      { field: "dialect" },
    );
  }
});

Deno.test("renderTemplate() errors are catalogue errors with rendered messages", async () => {
  const e = await refuses(
    render("{{ params.region }}", { region: "eu" }),
    "template.render.parameter_interpolation",
  );
  ok(e instanceof AppError);
  equal(
    e.message,
    "The value of params.region would be written into the SQL text at line 1, column 1 of template " +
      "test/t; refer to a parameter as the placeholder :name and test it only in conditions and loops.",
  );
});
