/**
 * Templates over HTTP, continued: bad input, session-only refusals for keys, the cross-workspace
 * 404, the listings, the library import and the API document.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders } from "./support/access_fixtures.ts";
import { postRaw } from "./support/harness.ts";
import { create, expectError, q, T, worldTest } from "./support/template_client.ts";

worldTest(
  "bad input: names breaking the grammar, oversize, non-JSON, malformed JSON, wrong types",
  async ({ s, h, req }) => {
    const longest = `${"a".repeat(62)}/${"b".repeat(64)}/${"c".repeat(64)}/ddddddd`;
    equal(longest.length, 200);
    const made = await req("POST", T, h.author, create(longest));
    equal(made.status, 201, JSON.stringify(made.body));
    const names = [
      longest + "d",
      Array(11).fill("s").join("/"),
      "Upper/case",
      "a//b",
      "/a/b",
      "a/b/",
      "-a/b",
      "a/b c",
      `a/${"x".repeat(65)}`,
      "a/ü",
    ];
    for (const id of names) {
      const details = expectError(
        await req("POST", T, h.author, create(id)),
        400,
        "template.validation.id_invalid",
      );
      equal(details.reason, "grammar", id);
    }
    const flat = expectError(
      await req("POST", T, h.author, create("orders")),
      400,
      "template.validation.id_invalid",
    );
    equal(flat.reason, "folder_required");
    deepEqual(await postRaw(s, T, h.author, "text/plain", "id=a/b"), [
      415,
      "request.unsupported_media_type",
    ]);
    deepEqual(await postRaw(s, T, h.author, "application/json", '{"id": "a/b",'), [
      400,
      "request.malformed_json",
    ]);
    for (
      const [body, field] of [
        [{ ...create("w/t"), display_name: 5 }, "display_name"],
        [{ ...create("w/t"), body: ["SELECT 1"] }, "body"],
        [
          { ...create("w/t"), imports: [{ id: "x/y", version: "1", alias: "x" }] },
          "imports.0.version",
        ],
        [{ ...create("w/t"), type: "xml" }, "type"],
        [{ ...create("w/t"), display_name: "  " }, "display_name"],
      ] as const
    ) {
      const details = expectError(
        await req("POST", T, h.author, body),
        400,
        "pipeline.execution.invalid_parameter_type",
      );
      equal(details.field, field);
    }
    expectError(
      await req("POST", `${T}/render`, h.author, { name: "a/b", context: "region" }),
      400,
      "pipeline.execution.invalid_parameter_type",
    );
    expectError(
      await req("GET", `${T}/versions${q({ name: "a/b", version: "one" })}`, h.author),
      400,
      "pipeline.execution.invalid_parameter_type",
    );
  },
);

worldTest(
  "Liquid that does not parse is refused at save with line and column; nothing is written",
  async ({ h, req }) => {
    const broken = "SELECT *\nFROM orders {% if params.region %}\nWHERE region = :region";
    const details = expectError(
      await req("POST", T, h.author, create("syn/orders", broken)),
      400,
      "template.render.syntax_error",
    );
    deepEqual([details.template, details.line, details.column], ["syn/orders", 2, 13]);
    expectError(
      await req("GET", T + q({ name: "syn/orders" }), h.author),
      404,
      "template.not_found",
    );
    const unknown = expectError(
      await req("POST", T, h.author, create("syn/other", "{% render 'nope' %}")),
      400,
      "template.render.unknown_import",
    );
    equal(unknown.name, "nope");
    const t = (await req("POST", T, h.author, create("syn/orders", "SELECT 1"))).body.data;
    equal(t.version, 1, "the refused creates took no number");
    expectError(
      await req("PUT", T, h.author, create("syn/orders", "SELECT {{ x"), t.body_hash),
      400,
      "template.render.syntax_error",
    );
    const read = await req("GET", T + q({ name: "syn/orders" }), h.author);
    deepEqual([read.body.data.body, read.body.data.body_hash], ["SELECT 1", t.body_hash]);
    expectError(
      await req("POST", `${T}/import`, h.key, {
        templates: [{ id: "lib/ok", dialect: "DUCKDB", body: "SELECT 1" }, {
          id: "lib/broken",
          dialect: "DUCKDB",
          body: "{% endif %}",
        }],
      }),
      400,
      "template.render.syntax_error",
    );
    expectError(await req("GET", T + q({ name: "lib/ok" }), h.author), 404, "template.not_found");
  },
);

worldTest(
  "render refusals, a 10 MB body and a foreign If-Match on draft discard",
  async ({ s, h, req }) => {
    const leak = (await req("POST", T, h.author, create("rn/leak", "SELECT '{{ params.region }}'")))
      .body.data;
    const leaked = expectError(
      await req("POST", `${T}/render`, h.author, { name: "rn/leak", context: { region: "x" } }),
      400,
      "template.render.parameter_interpolation",
    );
    deepEqual([leaked.parameter, leaked.line, leaked.column], ["region", 1, 9]);
    await req("POST", T, h.author, create("rn/fail", "SELECT 1\n  {{ not_defined }}"));
    const failed = expectError(
      await req("POST", `${T}/render`, h.author, { name: "rn/fail" }),
      400,
      "template.render.failed",
    );
    deepEqual([failed.template, failed.line, failed.column], ["rn/fail", 2, 6]);
    await req(
      "POST",
      T,
      h.author,
      create("rn/huge", "{% for i in (1..3000000) %}SELECT 1 UNION ALL {% endfor %}SELECT 1"),
    );
    const limit = expectError(
      await req("POST", `${T}/render`, h.author, { name: "rn/huge" }),
      400,
      "template.render.limit_exceeded",
    );
    equal(typeof limit.limit, "string");
    const other = (await req("POST", T, h.author, create("rn/other"))).body.data;
    const stale = expectError(
      await req("POST", `${T}/draft/discard`, h.author, { name: "rn/leak" }, other.body_hash),
      409,
      "template.version.conflict",
    );
    equal(stale.current_hash, leak.body_hash);
    const huge = JSON.stringify(create("rn/big", "x".repeat(10 * 1024 * 1024)));
    for (
      const [method, extra] of [["POST", {}], ["PUT", { "If-Match": leak.body_hash }]] as const
    ) {
      const big = await s.fetch(T, {
        method,
        headers: { ...h.author, ...extra, "content-type": "application/json" },
        body: huge,
      });
      deepEqual([big.status, (await big.json()).error.code], [413, "request.body_too_large"]);
    }
    const overLimit = expectError(
      await req("POST", T, h.author, create("rn/long", "x".repeat(1024 * 1024 + 1))),
      400,
      "pipeline.execution.invalid_parameter_type",
    );
    equal(overLimit.field, "body");
    expectError(await req("GET", T + q({ name: "rn/long" }), h.author), 404, "template.not_found");
  },
);

worldTest(
  "keys are refused the session-only routes; another workspace's template is 404",
  async ({ s, f, h, req }) => {
    const t = (await req("POST", T, h.key, create("k/t"))).body.data;
    equal(t.owner, f.users.ws_admin.id, "a key acts as its owner");
    const session = "auth.session.required";
    expectError(
      await req("POST", `${T}/draft/discard`, h.key, { name: "k/t" }, t.body_hash),
      403,
      session,
    );
    for (const path of ["version/discard", "version/restore", "current"]) {
      expectError(
        await req("POST", `${T}/${path}`, h.key, { name: "k/t", version: 1 }),
        403,
        session,
      );
    }
    expectError(
      await req("DELETE", `${T}/version${q({ name: "k/t", version: 1 })}`, h.key),
      403,
      session,
    );
    expectError(await req("DELETE", T + q({ name: "k/t" }), h.key), 403, session);

    const beta = await seedRoles(s.runtime, "beta");
    const stranger = await sessionHeaders(s.runtime, beta.users.author, "beta");
    const nf = "template.not_found";
    expectError(await req("GET", T + q({ name: "k/t" }), stranger), 404, nf);
    expectError(
      await req("GET", `${T}/versions${q({ name: "k/t", version: 1 })}`, stranger),
      404,
      nf,
    );
    expectError(await req("PUT", T, stranger, create("k/t"), t.body_hash), 404, nf);
    expectError(await req("POST", `${T}/render`, stranger, { name: "k/t" }), 404, nf);
    expectError(
      await req("POST", `${T}/version/discard`, stranger, { name: "k/t", version: 1 }),
      404,
      nf,
    );
    expectError(await req("DELETE", T + q({ name: "k/t" }), stranger), 404, nf);
    const list = await req("GET", T, stranger);
    deepEqual([list.status, list.body.data.pagination.total], [200, 0]);
  },
);

worldTest(
  "lists: paged with filters and q, one folder level, unknown prefix empty",
  async ({ h, req }) => {
    for (
      const id of [
        "sales/eu/orders",
        "sales/eu/refunds",
        "sales/us/orders",
        "sales/top",
        "hr/people",
      ]
    ) {
      equal((await req("POST", T, h.author, create(id))).status, 201);
    }
    await req("POST", T, h.author, create("sales/lite", "SELECT 1", { dialect: "SQLITE" }));
    await req("POST", T, h.author, {
      id: "sales/mail",
      type: "html",
      display_name: "Mail",
      body: "",
    });
    const page = await req("GET", T + q({ limit: 3, offset: 1 }), h.author);
    deepEqual(page.body.data.pagination, { offset: 1, limit: 3, total: 7, has_more: true });
    deepEqual(page.body.data.items.map((r: { id: string }) => r.id), [
      "sales/eu/orders",
      "sales/eu/refunds",
      "sales/lite",
    ]);
    equal(page.body.data.items[0].status, "DRAFT");
    const found = await req("GET", T + q({ q: "ORDERS", dialect: "POSTGRES" }), h.author);
    deepEqual(found.body.data.items.map((r: { id: string }) => r.id), [
      "sales/eu/orders",
      "sales/us/orders",
    ]);
    const html = await req("GET", T + q({ type: "html" }), h.author);
    deepEqual(html.body.data.items.map((r: { id: string }) => [r.id, "dialect" in r]), [[
      "sales/mail",
      false,
    ]]);
    const level = await req("GET", T + q({ prefix: "sales", q: "ignored" }), h.author);
    equal(level.status, 200);
    deepEqual(level.body.data.folders, [
      { path: "sales/eu", segment: "eu", template_count: 2 },
      { path: "sales/us", segment: "us", template_count: 1 },
    ]);
    deepEqual(level.body.data.templates.map((r: { id: string }) => r.id), [
      "sales/lite",
      "sales/mail",
      "sales/top",
    ]);
    deepEqual([level.body.data.prefix, level.body.data.total, level.body.data.has_more], [
      "sales",
      5,
      false,
    ]);
    const paged = await req(
      "GET",
      T + q({ prefix: "sales/", limit: 3, offset: 1, type: "sql" }),
      h.author,
    );
    deepEqual(paged.body.data.folders.map((r: { path: string }) => r.path), ["sales/us"]);
    deepEqual(paged.body.data.templates.map((r: { id: string }) => r.id), [
      "sales/lite",
      "sales/top",
    ]);
    deepEqual([paged.body.data.total, paged.body.data.has_more], [4, false]);
    const root = await req("GET", T + q({ prefix: "" }), h.author);
    deepEqual(
      root.body.data.folders.map((
        r: { path: string; template_count: number },
      ) => [r.path, r.template_count]),
      [
        ["hr", 1],
        ["sales", 6],
      ],
    );
    const none = await req("GET", T + q({ prefix: "nowhere/at_all" }), h.author);
    deepEqual([none.status, none.body.data], [200, {
      prefix: "nowhere/at_all",
      folders: [],
      templates: [],
      total: 0,
      has_more: false,
    }]);
  },
);

worldTest(
  "library import: 201 when it creates, 200 and unchanged on a repeat, 409 over an open draft",
  async ({ h, req }) => {
    const payload = {
      templates: [
        { id: "lib/dates", dialect: "DUCKDB", body: "date_trunc('day', ts)" },
        { id: "lib/paging", dialect: "DUCKDB", body: "LIMIT :limit" },
      ],
    };
    const first = await req("POST", `${T}/import`, h.key, payload);
    equal(first.status, 201);
    deepEqual([first.body.data.created, first.body.data.updated, first.body.data.unchanged], [
      2,
      0,
      0,
    ]);
    match(first.body.data.templates[0].body_hash, /^sha256:/);
    const again = await req("POST", `${T}/import`, h.key, payload);
    equal(again.status, 200);
    deepEqual(again.body.data.templates.map((t: { outcome: string }) => t.outcome), [
      "unchanged",
      "unchanged",
    ]);
    const read = await req("GET", T + q({ name: "lib/dates" }), h.author);
    deepEqual([read.body.data.status, read.body.data.current_version], ["RELEASED", 1]);
    await req(
      "PUT",
      T,
      h.author,
      { ...create("lib/dates", "x"), dialect: "DUCKDB" },
      read.body.data.body_hash,
    );
    const blocked = await req("POST", `${T}/import`, h.key, {
      templates: [{ id: "lib/dates", dialect: "DUCKDB", body: "y" }],
    });
    expectError(blocked, 409, "template.import.draft_pending");
    ok((await req("POST", `${T}/import`, h.key, { templates: [] })).status === 400);
  },
);

worldTest(
  "the API document describes every template route from the same schemas",
  async ({ s }) => {
    const doc = await (await s.fetch("/openapi.json")).json();
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith(T)).sort();
    deepEqual(paths, [
      T,
      `${T}/current`,
      `${T}/draft/discard`,
      `${T}/import`,
      `${T}/release`,
      `${T}/render`,
      `${T}/version`,
      `${T}/version/discard`,
      `${T}/version/restore`,
      `${T}/versions`,
    ]);
    deepEqual(Object.keys(doc.paths[T]).sort(), ["delete", "get", "post", "put"]);
    equal(doc.paths[T].post.responses["201"].description, "Success");
  },
);
