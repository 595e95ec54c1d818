/**
 * Templates over HTTP (spec 2 §4.2): every route with its success status, every refusal code of
 * the section with its status, bad input, session-only refusals for keys and the cross-workspace
 * 404. Each test runs twice, on a fresh app over SQLite and over PostgreSQL.
 */
import { deepEqual, equal } from "node:assert/strict";
import { create, expectError, q, T, worldTest } from "./support/template_client.ts";

worldTest(
  "authoring walk: create, read, update with If-Match, release, new draft, versions, render",
  async ({ h, req }) => {
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
  },
);

worldTest(
  "lifecycle routes: discard, restore, current, draft discard, purge by version, entity delete",
  async ({ h, req }) => {
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
  },
);

worldTest("every refusal of §4.2 answers its code and status", async ({ h, req }) => {
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
});
