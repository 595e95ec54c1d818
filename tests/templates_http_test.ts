/**
 * Templates over HTTP (spec 2 §4.2): every route with its success status, every refusal code of
 * the section with its status, bad input, session-only refusals for keys and the cross-workspace
 * 404. Each test starts the real app on a fresh SQLite store (the service tests cover both stores).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./access_fixtures.ts";
import { call, startTestServer, type TestServer } from "./harness.ts";

const T = "/api/v1/templates";
const q = (params: Record<string, string | number>) =>
  "?" + new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));

async function world() {
  const s = await startTestServer();
  const f = await seedRoles(s.runtime);
  const h = {
    author: await sessionHeaders(s.runtime, f.users.author, "acme"),
    promoter: await sessionHeaders(s.runtime, f.users.promoter, "acme"),
    key: { "SVC-API-Key": await userKey(s.runtime, f.users.ws_admin, f.workspace.id, ["author"]) },
  };
  const as = (who: Record<string, string>, ifMatch?: string) =>
    ifMatch === undefined ? who : { ...who, "If-Match": ifMatch };
  const req = (
    method: string,
    path: string,
    who: Record<string, string>,
    body?: unknown,
    ifMatch?: string,
  ) => call(s, method, path, as(who, ifMatch), body);
  return { s, f, h, req };
}

function expectError(
  res: { status: number; body: Record<string, unknown> },
  status: number,
  code: string,
) {
  const error = (res.body as { error?: { code: string } }).error;
  equal(
    `${res.status} ${error?.code}`,
    `${status} ${code}`,
    JSON.stringify(res.body).slice(0, 400),
  );
  return (res.body as { error: { details: Record<string, unknown> } }).error.details;
}

const create = (id: string, body = "SELECT 1", extra: Record<string, unknown> = {}) => ({
  id,
  dialect: "POSTGRES",
  display_name: `T ${id}`.slice(0, 100),
  body,
  ...extra,
});

async function withWorld(fn: (w: Awaited<ReturnType<typeof world>>) => Promise<void>) {
  const w = await world();
  try {
    await fn(w);
  } finally {
    await w.s.close();
  }
}

Deno.test("authoring walk: create, read, update with If-Match, release, new draft, versions, render", () =>
  withWorld(async ({ h, req }) => {
    const made = await req("POST", T, h.author, create("sales/orders", "SELECT * FROM orders"));
    equal(made.status, 201);
    const t = made.body.data;
    deepEqual([t.id, t.version, t.status, t.current_version, t.draft.version], [
      "sales/orders",
      1,
      "DRAFT",
      null,
      1,
    ]);
    const read = await req("GET", T + q({ name: "sales/orders" }), h.author);
    equal(read.status, 200);
    equal(read.body.data.body_hash, t.body_hash);
    const body = "SELECT * FROM orders {% if params.region %}WHERE region = :region{% endif %}";
    const saved = await req("PUT", T, h.author, create("sales/orders", body), t.body_hash);
    equal(saved.status, 200);
    deepEqual([saved.body.data.version, saved.body.data.status], [1, "DRAFT"]);
    const released = await req(
      "POST",
      `${T}/release`,
      h.promoter,
      { name: "sales/orders" },
      saved.body.data.body_hash,
    );
    equal(released.status, 200);
    deepEqual([released.body.data.status, released.body.data.current_version], ["RELEASED", 1]);
    const same = await req(
      "PUT",
      T,
      h.author,
      create("sales/orders", body),
      released.body.data.body_hash,
    );
    deepEqual([same.status, same.body.data.status, same.body.data.version], [200, "RELEASED", 1]);
    const next = await req(
      "PUT",
      T,
      h.key,
      create("sales/orders", body + " LIMIT 10"),
      released.body.data.body_hash,
    );
    deepEqual([next.status, next.body.data.version, next.body.data.status], [200, 2, "DRAFT"]);
    const v1 = await req("GET", `${T}/versions${q({ name: "sales/orders", version: 1 })}`, h.key);
    deepEqual([v1.status, v1.body.data.status, v1.body.data.body], [200, "RELEASED", body]);
    const all = await req("GET", `${T}/versions${q({ name: "sales/orders" })}`, h.author);
    deepEqual(all.body.data.items.map((m: { status: string }) => m.status), ["RELEASED", "DRAFT"]);
    const rendered = await req("POST", `${T}/render`, h.key, {
      name: "sales/orders",
      version: 1,
      context: { region: "north'; DROP TABLE orders; --" },
    });
    equal(rendered.status, 200);
    deepEqual(rendered.body.data, {
      sql: "SELECT * FROM orders WHERE region = :region",
      placeholders: ["region"],
      imports: [],
    });
  }));

Deno.test("lifecycle routes: discard, restore, current, draft discard, purge by version, entity delete", () =>
  withWorld(async ({ h, req }) => {
    const t = (await req("POST", T, h.author, create("ops/a"))).body.data;
    await req("POST", `${T}/release`, h.promoter, { name: "ops/a" }, t.body_hash);
    const d2 = (await req("PUT", T, h.author, create("ops/a", "SELECT 2"), t.body_hash)).body.data;
    await req("POST", `${T}/release`, h.promoter, { name: "ops/a" }, d2.body_hash);
    const switched = await req("POST", `${T}/current`, h.author, { name: "ops/a", version: 1 });
    deepEqual([switched.status, switched.body.data.current_version], [200, 1]);
    const discarded = await req("POST", `${T}/version/discard`, h.author, {
      name: "ops/a",
      version: 1,
    });
    deepEqual([discarded.status, discarded.body.data.status, discarded.body.data.current_version], [
      200,
      "DISCARDED",
      2,
    ]);
    const restored = await req("POST", `${T}/version/restore`, h.author, {
      name: "ops/a",
      version: 1,
    });
    deepEqual([restored.status, restored.body.data.status], [200, "RELEASED"]);
    const d3 = (await req("PUT", T, h.author, create("ops/a", "SELECT 3"), d2.body_hash)).body.data;
    equal(d3.version, 3);
    const gone = await req("POST", `${T}/draft/discard`, h.author, { name: "ops/a" }, d3.body_hash);
    equal(gone.status, 204);
    const d4 = (await req("PUT", T, h.author, create("ops/a", "SELECT 4"), d2.body_hash)).body.data;
    equal(d4.version, 3, "a purged number returns to the pool");
    equal(
      (await req("DELETE", `${T}/version${q({ name: "ops/a", version: 3 })}`, h.author)).status,
      204,
    );
    expectError(
      await req("DELETE", T + q({ name: "ops/a" }), h.author),
      409,
      "template.version.last_release",
    );
    const lone = (await req("POST", T, h.author, create("ops/lone"))).body.data;
    const purged = await req("DELETE", T + q({ name: lone.id }), h.author);
    deepEqual([purged.status, purged.body.data], [200, { purged: true, id: "ops/lone" }]);
    expectError(await req("GET", T + q({ name: "ops/lone" }), h.author), 404, "template.not_found");
  }));

Deno.test("every refusal of §4.2 answers its code and status", () =>
  withWorld(async ({ h, req }) => {
    const a = (await req("POST", T, h.author, create("r/a"))).body.data;
    const b = (await req("POST", T, h.author, create("r/b"))).body.data;
    expectError(
      await req("POST", T, h.author, create("flat")),
      400,
      "template.validation.id_invalid",
    );
    expectError(
      await req("POST", T, h.author, create("r/a")),
      409,
      "template.validation.duplicate_name",
    );
    const dialect = expectError(
      await req("PUT", T, h.author, create("r/a", "SELECT 1", { dialect: "MYSQL" }), a.body_hash),
      400,
      "template.validation.dialect_invalid",
    );
    deepEqual([dialect.dialect, dialect.established_dialect, dialect.template_id], [
      "MYSQL",
      "POSTGRES",
      "r/a",
    ]);
    expectError(
      await req(
        "PUT",
        T,
        h.author,
        create("r/a", "x", { type: "html", dialect: null }),
        a.body_hash,
      ),
      400,
      "template.validation.type_immutable",
    );
    const stale = expectError(
      await req("PUT", T, h.author, create("r/a", "SELECT 9"), b.body_hash),
      409,
      "template.version.conflict",
    );
    equal(stale.current_hash, a.body_hash, "an If-Match from another template is stale");
    const missing = expectError(
      await req("PUT", T, h.author, create("r/a")),
      400,
      "pipeline.execution.invalid_parameter_type",
    );
    equal(missing.reason, "precondition_missing");
    expectError(await req("GET", T + q({ name: "r/none" }), h.author), 404, "template.not_found");
    expectError(
      await req("GET", `${T}/versions${q({ name: "r/a", version: 7 })}`, h.author),
      404,
      "template.not_found",
    );
    expectError(
      await req("POST", `${T}/version/discard`, h.author, { name: "r/a", version: 1 }),
      409,
      "template.version.not_released",
    );
    expectError(
      await req("POST", `${T}/version/restore`, h.author, { name: "r/a", version: 1 }),
      409,
      "template.version.not_discarded",
    );
    await req("POST", `${T}/release`, h.promoter, { name: "r/a" }, a.body_hash);
    expectError(
      await req("POST", `${T}/release`, h.promoter, { name: "r/a" }, a.body_hash),
      409,
      "template.version.not_draft",
    );
    expectError(
      await req("POST", `${T}/draft/discard`, h.author, { name: "r/a" }, a.body_hash),
      409,
      "template.version.not_draft",
    );
    expectError(
      await req("POST", `${T}/release`, h.promoter, { name: "r/b" }, a.body_hash),
      409,
      "template.version.conflict",
    );
    expectError(
      await req("DELETE", `${T}/version${q({ name: "r/a", version: 1 })}`, h.author),
      409,
      "template.version.last_release",
    );
    const importer = await req(
      "POST",
      T,
      h.author,
      create("r/user", "{% render 'a' %}", { imports: [{ id: "r/a", version: 1, alias: "a" }] }),
    );
    equal(importer.status, 201);
    const inUse = expectError(
      await req("POST", `${T}/version/discard`, h.author, { name: "r/a", version: 1 }),
      409,
      "template.in_use",
    );
    equal(inUse.pinned_by_summary, "template r/user v1");
    expectError(
      await req(
        "POST",
        T,
        h.author,
        create("r/bad", "", { imports: [{ id: "r/b", version: 5, alias: "b" }] }),
      ),
      400,
      "template.validation.import_invalid",
    );
    const withDraftImport = await req(
      "POST",
      T,
      h.author,
      create("r/c", "{% render 'b' %}", { imports: [{ id: "r/b", version: 1, alias: "b" }] }),
    );
    expectError(
      await req(
        "POST",
        `${T}/release`,
        h.promoter,
        { name: "r/c" },
        withDraftImport.body.data.body_hash,
      ),
      409,
      "template.release.import_not_released",
    );
    // Switching onto a discarded version is not eligible.
    const d2 = (await req("PUT", T, h.author, create("r/a", "SELECT 2"), a.body_hash)).body.data;
    await req("POST", `${T}/release`, h.promoter, { name: "r/a" }, d2.body_hash);
    await req("POST", `${T}/version/discard`, h.author, { name: "r/a", version: 2 });
    expectError(
      await req("POST", `${T}/current`, h.author, { name: "r/a", version: 2 }),
      409,
      "template.version.not_eligible",
    );
    await req("POST", T, h.author, {
      id: "mail/hi",
      type: "html",
      display_name: "Hi",
      body: "<p/>",
    });
    expectError(
      await req("POST", `${T}/render`, h.author, { name: "mail/hi" }),
      400,
      "template.render.type_unsupported",
    );
    expectError(
      await req("GET", T + q({ type: "xml" }), h.author),
      400,
      "pipeline.execution.invalid_parameter_type",
    );
  }));

Deno.test("bad input: names breaking the grammar, oversize, non-JSON, malformed JSON, wrong types", () =>
  withWorld(async ({ s, h, req }) => {
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
    const text = await s.fetch(T, {
      method: "POST",
      headers: { ...h.author, "content-type": "text/plain" },
      body: "id=a/b",
    });
    equal(text.status, 415);
    equal((await text.json()).error.code, "request.unsupported_media_type");
    const broken = await s.fetch(T, {
      method: "POST",
      headers: { ...h.author, "content-type": "application/json" },
      body: '{"id": "a/b",',
    });
    equal(broken.status, 400);
    equal((await broken.json()).error.code, "request.malformed_json");
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
  }));

Deno.test("keys are refused the session-only routes; another workspace's template is 404", () =>
  withWorld(async ({ s, f, h, req }) => {
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
  }));

Deno.test("lists: paged with filters and q, one folder level, unknown prefix empty", () =>
  withWorld(async ({ h, req }) => {
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
  }));

Deno.test("library import: 201 when it creates, 200 and unchanged on a repeat, 409 over an open draft", () =>
  withWorld(async ({ h, req }) => {
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
  }));

Deno.test("the API document describes every template route from the same schemas", () =>
  withWorld(async ({ s }) => {
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
  }));
