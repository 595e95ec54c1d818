import { deepEqual, equal, match, ok } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { addUser } from "../versions/test_fixtures.ts";
import { WorkspaceService } from "../workspaces/mod.ts";
import { countTemplates } from "./repo.ts";
import { TemplateService } from "./service.ts";
import { htmlTemplate, setup, sql } from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

forEachStore("create() stores DRAFT 1 with the index fields outside the hash", async (db) => {
  const { svc, ctx, workspaceId } = await setup(db);
  const t = await svc.create(ctx, sql("sales/orders", "SELECT 1", { description: "d" }));
  equal(t.id, "sales/orders");
  equal(t.type, "sql");
  equal(t.dialect, "POSTGRES");
  equal(t.version, 1);
  equal(t.status, "DRAFT");
  equal(t.current_version, null);
  equal(t.draft?.version, 1);
  equal(t.description, "d");
  match(t.body_hash, /^sha256:[0-9a-f]{64}$/);
  const renamed = await svc.update(ctx, t.body_hash, {
    ...sql("sales/orders"),
    display_name: "Other",
  });
  equal(renamed.body_hash, t.body_hash, "display_name is not hashed");
  equal((await svc.get(workspaceId, "sales/orders")).display_name, "Other");
  const gen = await svc.create(ctx, { display_name: "g", dialect: "SQLITE", body: "SELECT 2" });
  match(gen.id, /^test\/template-[0-9a-f]{12}$/);
  const html = await svc.create(ctx, htmlTemplate("mail/welcome", "<p>hi</p>", "W"));
  equal(html.type, "html");
  ok(!("dialect" in html));
  equal((await audits(db, "template.created")).length, 3);
});

forEachStore("create() refuses bad ids, dialects and duplicates with their codes", async (db) => {
  const { svc, ctx } = await setup(db);
  await refuses(svc.create(ctx, sql("flat")), "template.validation.id_invalid", 400, {
    reason: "folder_required",
  });
  for (
    const id of [
      "Sales/x",
      "a//b",
      "a/b/",
      `a/${"x".repeat(65)}`,
      Array(11).fill("s").join("/"),
      `${"a".repeat(64)}/${"b".repeat(64)}/${"c".repeat(64)}/dddddddd`,
    ]
  ) {
    await refuses(svc.create(ctx, sql(id)), "template.validation.id_invalid", 400, {
      reason: "grammar",
    });
  }
  await refuses(
    svc.create(ctx, { ...sql("a/b"), dialect: undefined }),
    "template.validation.dialect_invalid",
    400,
  );
  await refuses(
    svc.create(ctx, sql("a/b", "SELECT 1", { dialect: "ORACLE" })),
    "template.validation.dialect_invalid",
    400,
    { dialect: "ORACLE" },
  );
  await refuses(
    svc.create(ctx, { ...sql("a/b"), type: "html" }),
    "template.validation.dialect_invalid",
    400,
  );
  await svc.create(ctx, sql("a/b"));
  await refuses(svc.create(ctx, sql("a/b")), "template.validation.duplicate_name", 409, {
    name: "a/b",
  });
});

forEachStore(
  "update() keeps type and dialect, guards the hash, and answers identical content as RELEASED",
  async (db) => {
    const { svc, ctx, workspaceId } = await setup(db);
    const t = await svc.create(ctx, sql("r/one"));
    const other = await svc.create(ctx, sql("r/two"));
    await refuses(
      svc.update(ctx, undefined, sql("r/one")),
      "pipeline.execution.invalid_parameter_type",
      400,
      {
        reason: "precondition_missing",
      },
    );
    await refuses(
      svc.update(ctx, other.body_hash, sql("r/one")),
      "template.version.conflict",
      409,
      {
        current_hash: t.body_hash,
        author: ctx.actor.userId,
      },
    );
    await refuses(
      svc.update(ctx, t.body_hash, { ...sql("r/one"), dialect: "MYSQL" }),
      "template.validation.dialect_invalid",
      400,
      { dialect: "MYSQL", established_dialect: "POSTGRES", template_id: "r/one" },
    );
    await refuses(
      svc.update(ctx, t.body_hash, { ...sql("r/one"), type: "html" }),
      "template.validation.type_immutable",
      400,
      { established_type: "sql", type: "html" },
    );
    await refuses(svc.update(ctx, t.body_hash, sql("r/none")), "template.not_found", 404);
    const inherited = await svc.update(ctx, t.body_hash, {
      ...sql("r/one", "SELECT 2"),
      dialect: null,
    });
    equal(inherited.dialect, "POSTGRES");
    equal(inherited.version, 1);
    const released = await svc.release(ctx, "r/one", inherited.body_hash);
    equal(released.status, "RELEASED");
    equal(released.current_version, 1);
    const same = await svc.update(ctx, released.body_hash, {
      ...sql("r/one", "SELECT 2"),
      display_name: "Renamed",
    });
    equal(same.status, "RELEASED");
    equal(same.version, 1);
    equal(same.draft, null);
    equal(same.display_name, "Renamed");
    const next = await svc.update(ctx, released.body_hash, sql("r/one", "SELECT 3"));
    deepEqual([next.version, next.status, next.current_version], [2, "DRAFT", 1]);
    equal((await svc.get(workspaceId, "r/one")).version, 2);
    equal((await svc.getVersion(workspaceId, "r/one", 1)).body, "SELECT 2");
    await refuses(svc.getVersion(workspaceId, "r/one", 9), "template.not_found", 404);
  },
);

forEachStore(
  "imports pin existing versions of the same workspace, by alias, type and dialect",
  async (db) => {
    const { svc, ctx, other } = await setup(db);
    await svc.create(ctx, sql("lib/where"));
    await svc.create(ctx, sql("lib/my", "SELECT 1", { dialect: "MYSQL" }));
    await svc.create(ctx, htmlTemplate("lib/page", "<p/>", "p"));
    await svc.create(other, sql("lib/elsewhere"));
    const pin = (id: string, version = 1, alias = "w") => ({ id, version, alias });
    const cases: [ReturnType<typeof pin>[], string][] = [
      [[pin("lib/where", 2)], "no such template version in this workspace"],
      [[pin("lib/elsewhere")], "no such template version in this workspace"],
      [[pin("lib/where", 1, "Bad-Alias")], "the alias must match ^[a-z][a-z0-9_]{0,63}$"],
      [[pin("lib/where"), pin("lib/where", 1, "w")], "the alias 'w' repeats"],
      [[pin("lib/page")], "a sql template cannot import a html one"],
      [[pin("lib/my")], "the imported template is MYSQL, this one POSTGRES"],
      [[pin("q/user")], "a template cannot import itself"],
    ];
    for (const [imports, reason] of cases) {
      await refuses(
        svc.create(ctx, sql("q/user", "SELECT 1", { imports })),
        "template.validation.import_invalid",
        400,
        { reason },
      );
    }
    const user = await svc.create(
      ctx,
      sql("q/user", "{% render 'w' %}", { imports: [pin("lib/where")] }),
    );
    deepEqual(user.imports, [{ alias: "w", id: "lib/where", version: 1 }]);
    await refuses(
      svc.release(ctx, "q/user", user.body_hash),
      "template.release.import_not_released",
      409,
      {
        import_id: "lib/where",
        import_version: 1,
        import_status: "DRAFT",
      },
    );
    const where = await svc.get(ctx.workspaceId, "lib/where");
    await svc.release(ctx, "lib/where", where.body_hash);
    equal((await svc.release(ctx, "q/user", user.body_hash)).status, "RELEASED");
    equal((await audits(db, "template.version.released")).length, 2);
  },
);

forEachStore("render() resolves imports at their pinned versions and refuses html", async (db) => {
  const { svc, ctx, workspaceId } = await setup(db);
  await svc.create(ctx, sql("lib/filter", "region = :region"));
  await svc.create(
    ctx,
    sql("lib/where", "WHERE {% render 'f' %}", {
      imports: [{ id: "lib/filter", version: 1, alias: "f" }],
    }),
  );
  await svc.create(
    ctx,
    sql("q/orders", "SELECT * FROM orders {% if params.region %}{% render 'w' %}{% endif %}", {
      imports: [{ id: "lib/where", version: 1, alias: "w" }],
    }),
  );
  const out = await svc.render(workspaceId, { name: "q/orders", context: { region: "x' OR 1=1" } });
  equal(out.sql, "SELECT * FROM orders WHERE region = :region");
  deepEqual(out.placeholders, ["region"]);
  deepEqual(out.imports, [
    { alias: "w", id: "lib/where", version: 1 },
    { alias: "f", id: "lib/filter", version: 1 },
  ]);
  equal(
    (await svc.render(workspaceId, { name: "q/orders", version: 1 })).sql,
    "SELECT * FROM orders ",
  );
  await refuses(
    svc.render(workspaceId, { name: "q/orders", context: {}, version: 3 }),
    "template.not_found",
    404,
  );
  await svc.create(ctx, sql("q/leak", "SELECT {{ params.x }}"));
  await refuses(
    svc.render(workspaceId, { name: "q/leak", context: { x: 1 } }),
    "template.render.parameter_interpolation",
    400,
  );
  await svc.create(ctx, htmlTemplate("mail/w", "<p/>", "w"));
  await refuses(
    svc.render(workspaceId, { name: "mail/w" }),
    "template.render.type_unsupported",
    400,
    {
      type: "html",
    },
  );
});

forEachStore("another workspace's template is template.not_found everywhere", async (db) => {
  const { svc, ctx, other } = await setup(db);
  const t = await svc.create(ctx, sql("x/y"));
  const nf = "template.not_found";
  await refuses(svc.get(other.workspaceId, "x/y"), nf, 404);
  await refuses(svc.getVersion(other.workspaceId, "x/y", 1), nf, 404);
  await refuses(svc.update(other, t.body_hash, sql("x/y")), nf, 404);
  await refuses(svc.release(other, "x/y", t.body_hash), nf, 404);
  await refuses(svc.purgeDraft(other, "x/y", t.body_hash), nf, 404);
  await refuses(svc.discard(other, "x/y", 1), nf, 404);
  await refuses(svc.restore(other, "x/y", 1), nf, 404);
  await refuses(svc.switchCurrent(other, "x/y", 1), nf, 404);
  await refuses(svc.purgeVersion(other, "x/y", 1), nf, 404);
  await refuses(svc.deleteEntity(other, "x/y"), nf, 404);
  await refuses(svc.render(other.workspaceId, { name: "x/y" }), nf, 404);
  equal((await svc.list(other.workspaceId, {}, { offset: 0, limit: 50 })).total, 0);
  equal((await svc.folder(other.workspaceId, "x", {}, { offset: 0, limit: 50 })).total, 0);
  // The same name is free in the other workspace.
  equal((await svc.create(other, sql("x/y"))).version, 1);
});

forEachStore("workspace.in_use counts the workspace's templates", async (db) => {
  const { svc, ctx } = await setup(db);
  const workspaces = new WorkspaceService({
    db,
    allowlistDomains: [],
    contentCounters: { templates: countTemplates },
  });
  const root = await addUser(db, `root-${crypto.randomUUID().slice(0, 6)}@x.example`);
  root.isSuperAdmin = true;
  await workspaces.create(root, { name: "doomed" });
  const id = (await workspaces.get("doomed"))!.id;
  const t = await svc.create({ ...ctx, workspaceId: id }, sql("a/b"));
  await refuses(workspaces.remove(root, "doomed"), "workspace.in_use", 409, {
    counts: { templates: 1 },
  });
  await svc.deleteEntity({ ...ctx, workspaceId: id }, t.id);
  await workspaces.remove(root, "doomed");
});

forEachStore(
  "the hardened posture refuses template authoring but keeps reads and render",
  async (db) => {
    const { svc, ctx, workspaceId } = await setup(db);
    const t = await svc.create(ctx, sql("h/t", "SELECT :x"));
    const hardened = new TemplateService({ db, authoringEnabled: false });
    const off = "pipeline.authoring.disabled";
    await refuses(hardened.create(ctx, sql("h/u")), off, 403);
    await refuses(hardened.update(ctx, t.body_hash, sql("h/t", "SELECT 2")), off, 403);
    await refuses(hardened.release(ctx, "h/t", t.body_hash), off, 403);
    await refuses(
      hardened.importLibrary(ctx, { templates: [{ id: "l/x", dialect: "DUCKDB", body: "1" }] }),
      off,
      403,
    );
    equal((await hardened.get(workspaceId, "h/t")).version, 1);
    deepEqual((await hardened.render(workspaceId, { name: "h/t" })).placeholders, ["x"]);
  },
);

forEachStore("two saves racing on one If-Match: exactly one wins", async (db) => {
  const { svc, ctx, workspaceId } = await setup(db);
  const t = await svc.create(ctx, sql("race/t"));
  const results = await Promise.allSettled([
    svc.update(ctx, t.body_hash, sql("race/t", "SELECT 'a'")),
    svc.update(ctx, t.body_hash, sql("race/t", "SELECT 'b'")),
  ]);
  const won = results.filter((r) => r.status === "fulfilled");
  const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
  equal(won.length, 1);
  equal(lost.length, 1);
  equal(lost[0].reason.code, "template.version.conflict");
  const winner = (won[0] as PromiseFulfilledResult<{ body: string }>).value.body;
  equal((await svc.get(workspaceId, "race/t")).body, winner);
});
