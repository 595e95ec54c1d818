import { deepEqual, equal, ok } from "node:assert/strict";
import { forEachStore, storeTestWith } from "../../tests/support/stores.ts";
import { CANARY, datasourceFixture, pgBody } from "./test_fixtures.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

/** Each test starts from the datasource fixture on a fresh store. */
const datasourceTest = storeTestWith(datasourceFixture);

datasourceTest(
  "create() binds to the judged workspace and serves §2.1 without the secret",
  async (f, db) => {
    const acme = await f.ctx("acme", f.admin);
    const view = await f.ds.create(f.admin, acme, {
      ...pgBody("warehouse"),
      introspection_include_schemas: [" Sales", "sales", ""],
      properties: { hikari: { maximumPoolSize: 4 }, jdbc: { sslmode: "disable" } },
    });
    deepEqual(Object.keys(view).sort(), [
      "created_at",
      "credential",
      "definitions",
      "dialect",
      "display_name",
      "facts",
      "global",
      "introspection_include_schemas",
      "jdbc_url",
      "last_test",
      "name",
      "password_set",
      "pool",
      "properties",
      "readonly",
      "updated_at",
      "username",
      "workspace",
    ]);
    deepEqual(view.credential, { kind: "password", username: "reader" });
    equal(view.password_set, true);
    equal(view.username, "reader");
    equal(view.workspace, "acme");
    equal(view.global, false);
    equal(view.readonly, false);
    equal(view.display_name, "warehouse");
    equal(view.last_test, null);
    deepEqual(view.introspection_include_schemas, ["sales"]);
    deepEqual(view.pool.maximumPoolSize, { value: 4, unit: "connections", source: "configured" });
    deepEqual([view.facts, view.definitions], [[], []]);
    ok(!JSON.stringify(view).includes(CANARY));

    const row = await db.first<{ secret_ciphertext: string; created_by: string }>(
      "SELECT secret_ciphertext, created_by FROM datasources WHERE name = 'warehouse'",
    );
    ok(row!.secret_ciphertext.startsWith("v1.") && !row!.secret_ciphertext.includes(CANARY));
    equal(String(row!.created_by), f.admin.userId);
    const [created] = await audits(db, "datasource.created");
    equal(created.details.datasource, "warehouse");
    ok(!JSON.stringify(created).includes(CANARY));

    const bare = await f.ds.create(f.admin, acme, {
      name: "files",
      dialect: "SQLITE",
      jdbc_url: "jdbc:sqlite:/tmp/x.db",
    });
    deepEqual([bare.credential, bare.password_set, bare.username], [{ kind: "none" }, false, null]);
    equal("introspection_include_schemas" in bare, false);
  },
);

datasourceTest("names are unique across workspaces and global datasources", async (f) => {
  await f.ds.create(f.admin, await f.ctx("acme", f.admin), pgBody("shared"));
  await refuses(
    f.ds.create(f.otherAdmin, await f.ctx("other", f.otherAdmin), pgBody("shared")),
    "datasource.validation.duplicate_name",
    409,
    { name: "shared" },
  );
  await refuses(
    f.ds.create(f.root, null, pgBody("shared", { global: true })),
    "datasource.validation.duplicate_name",
    409,
  );
});

datasourceTest(
  "create() write rules: credentials, kinds, bindings, global, member writes",
  async (f, db) => {
    const acme = await f.ctx("acme", f.admin);
    await refuses(
      f.ds.create(f.admin, acme, pgBody("a", { credential: { kind: "password", username: "u" } })),
      "datasource.validation.password_missing",
      400,
      { kind: "password" },
    );
    await refuses(
      f.ds.create(f.admin, acme, { ...pgBody("a"), credential: undefined }),
      "datasource.validation.password_missing",
      400,
    );
    await refuses(
      f.ds.create(f.admin, acme, pgBody("a", { credential: { kind: "private_key", secret: "k" } })),
      "datasource.validation.properties_invalid",
      400,
      { accepted: ["password", "token", "none"] },
    );
    await refuses(
      f.ds.create(f.admin, acme, pgBody("a", { credential: { kind: "none", secret: "k" } })),
      "datasource.validation.properties_invalid",
      400,
    );
    await refuses(
      f.ds.create(f.admin, acme, pgBody("a", { properties: { hikari: { maximumPoolSize: 0 } } })),
      "datasource.validation.properties_invalid",
      400,
      { field: "properties.hikari.maximumPoolSize" },
    );
    for (
      const jdbc_url of [
        "jdbc:mysql://db/x",
        "postgresql://db/x",
        "jdbc:postgresql://db/x?socketFactory=org.evil.Factory",
        "jdbc:postgresql://db/x?sslmode=require&sslfactory=x",
      ]
    ) {
      await refuses(
        f.ds.create(f.admin, acme, pgBody("a", { jdbc_url })),
        "datasource.validation.properties_invalid",
        400,
      );
    }
    await refuses(
      f.ds.create(f.admin, acme, pgBody("a", { workspace: "other" })),
      "datasource.validation.workspace_forbidden",
      400,
    );
    await refuses(
      f.ds.create(f.admin, acme, pgBody("a", { global: true })),
      "auth.role_required",
      403,
    );
    await refuses(
      f.ds.create(f.author, await f.ctx("acme", f.author), pgBody("a")),
      "auth.role_required",
      403,
    );
    await refuses(
      f.ds.create(f.root, null, pgBody("a", { global: true, workspace: "acme" })),
      "datasource.validation.workspace_forbidden",
      400,
    );
    equal((await db.query("SELECT 1 FROM datasources")).length, 0);
  },
);

forEachStore(
  "member writes disabled: workspace admins are refused, super admins are not",
  async (db) => {
    const f = await datasourceFixture(db, { memberWritesEnabled: false });
    await refuses(
      f.ds.create(f.admin, await f.ctx("acme", f.admin), pgBody("a")),
      "datasource.validation.workspace_forbidden",
      400,
    );
    const made = await f.ds.create(f.root, await f.ctx("acme", f.root), pgBody("a"));
    equal(made.workspace, "acme");
    await refuses(
      f.ds.update(f.admin, await f.ctx("acme", f.admin), "a", pgBody("a")),
      "datasource.validation.workspace_forbidden",
      400,
    );
    await refuses(
      f.ds.remove(f.admin, await f.ctx("acme", f.admin), "a"),
      "datasource.validation.workspace_forbidden",
      400,
    );
  },
);

datasourceTest(
  "another workspace's datasource is not found; list totals count what is visible",
  async (f) => {
    const acme = await f.ctx("acme", f.admin);
    const other = await f.ctx("other", f.otherAdmin);
    await f.ds.create(f.admin, acme, pgBody("a1"));
    await f.ds.create(f.admin, acme, { name: "a2", dialect: "DUCKDB", jdbc_url: "jdbc:duckdb:" });
    await f.ds.create(f.otherAdmin, other, pgBody("o1"));
    await refuses(f.ds.get(f.admin, acme, "o1"), "datasource.not_found", 404, { datasource: "o1" });
    await refuses(f.ds.update(f.admin, acme, "o1", pgBody("o1")), "datasource.not_found", 404);
    await refuses(f.ds.remove(f.admin, acme, "o1"), "datasource.not_found", 404);
    const page = await f.ds.list(f.admin, acme, { offset: 0, limit: 1 });
    deepEqual([page.total, page.items.map((d) => d.name)], [2, ["a1"]]);
    const duck = await f.ds.list(f.admin, acme, { offset: 0, limit: 10, dialect: "DUCKDB" });
    deepEqual([duck.total, duck.items.map((d) => d.name)], [1, ["a2"]]);
    await refuses(
      f.ds.list(f.admin, acme, { offset: 0, limit: 10, dialect: "ORACLE" }),
      "pipeline.execution.invalid_parameter_type",
      400,
    );
    equal((await f.ds.list(f.otherAdmin, other, { offset: 0, limit: 10 })).total, 1);
  },
);

datasourceTest(
  "update(): secret kept when omitted, cleared by none, required on a kind change",
  async (f, db) => {
    const acme = await f.ctx("acme", f.admin);
    const made = await f.ds.create(f.admin, acme, {
      ...pgBody("wh", { introspection_include_schemas: ["sales"], readonly: true }),
    });
    const kept = await f.ds.update(f.admin, acme, "wh", {
      ...pgBody("wh"),
      display_name: "Warehouse",
      credential: { kind: "password" },
    });
    deepEqual([kept.password_set, kept.username, kept.readonly], [true, "reader", true]);
    equal(kept.display_name, "Warehouse");
    equal("introspection_include_schemas" in kept, false, "replaced wholesale: empty when absent");
    ok(kept.updated_at >= made.updated_at);
    const rec = await f.ds.record(f.admin, acme, "wh");
    equal((await f.ds.openCredential(f.admin, rec, "test")).secret, CANARY);

    const legacyKeep = await f.ds.update(f.admin, acme, "wh", {
      ...pgBody("wh"),
      credential: undefined,
      username: "writer",
    });
    equal(legacyKeep.username, "writer");
    equal(
      (await f.ds.openCredential(f.admin, await f.ds.record(f.admin, acme, "wh"), "test")).secret,
      CANARY,
    );

    await refuses(
      f.ds.update(f.admin, acme, "wh", pgBody("wh", { name: "renamed" })),
      "pipeline.execution.invalid_parameter_type",
      400,
      { field: "name" },
    );
    const none = await f.ds.update(
      f.admin,
      acme,
      "wh",
      pgBody("wh", { credential: { kind: "none" } }),
    );
    deepEqual([none.credential, none.password_set, none.username], [{ kind: "none" }, false, null]);
    const row = await db.first<{ secret_ciphertext: unknown }>(
      "SELECT secret_ciphertext FROM datasources WHERE name = 'wh'",
    );
    equal(row!.secret_ciphertext, null);
    await refuses(
      f.ds.update(f.admin, acme, "wh", pgBody("wh", { credential: { kind: "password" } })),
      "datasource.validation.password_missing",
      400,
    );
    await refuses(
      f.ds.update(f.admin, acme, "wh", pgBody("wh", { workspace: "other" })),
      "datasource.validation.workspace_forbidden",
      400,
    );
    await refuses(
      f.ds.update(f.admin, acme, "wh", pgBody("wh", { global: true })),
      "auth.role_required",
      403,
    );
    equal((await audits(db, "datasource.updated")).length, 3);
  },
);

datasourceTest("recordTest() stores last_test without touching updated_at", async (f) => {
  const acme = await f.ctx("acme", f.admin);
  const made = await f.ds.create(f.admin, acme, pgBody("wh"));
  const rec = await f.ds.record(f.admin, acme, "wh");
  await f.ds.recordTest(rec, { tested_at: "2030-01-01T00:00:00.000Z", ok: false, message: "nope" });
  const after = await f.ds.get(f.admin, acme, "wh");
  deepEqual(after.last_test, { tested_at: "2030-01-01T00:00:00.000Z", ok: false, message: "nope" });
  equal(after.updated_at, made.updated_at);
});

datasourceTest("openCredential() audits each decryption, never the secret", async (f, db) => {
  const acme = await f.ctx("acme", f.admin);
  await f.ds.create(f.admin, acme, pgBody("wh"));
  const rec = await f.ds.record(f.admin, acme, "wh");
  const cred = await f.ds.openCredential(f.admin, rec, "introspect");
  deepEqual(cred, { kind: "password", username: "reader", secret: CANARY });
  await f.ds.openCredential(f.admin, rec, "test");
  const rows = await audits(db, "datasource.credential_decrypted");
  equal(rows.length, 2);
  deepEqual(rows[0].details, {
    datasource: "wh",
    purpose: "introspect",
    credential_kind: "password",
    key_version: 1,
  });
  equal(rows[0].user_id, f.admin.userId);
  ok(!JSON.stringify(rows).includes(CANARY));
  ok(!f.logs.join("\n").includes(CANARY));
});

forEachStore(
  "delete(): refused while referenced (a finder passed in), then gone and name free",
  async (db) => {
    let referenced = true;
    const f = await datasourceFixture(db, {
      referenceFinders: [(_tx, name) =>
        Promise.resolve(
          referenced && name === "wh"
            ? [{ pipeline: "daily", node_id: "load", pipeline_version: 2, version_status: "DRAFT" }]
            : [],
        )],
    });
    const acme = await f.ctx("acme", f.admin);
    await f.ds.create(f.admin, acme, pgBody("wh"));
    await refuses(f.ds.remove(f.admin, acme, "wh"), "datasource.in_use", 409, {
      datasource_name: "wh",
      referencing_pipelines: ["daily"],
      references: [
        { pipeline: "daily", node_id: "load", pipeline_version: 2, version_status: "DRAFT" },
      ],
    });
    referenced = false;
    const changes: string[] = [];
    f.ds.onChange((name, change) => changes.push(`${name}:${change}`));
    await f.ds.remove(f.admin, acme, "wh");
    deepEqual(changes, ["wh:deleted"]);
    await refuses(f.ds.get(f.admin, acme, "wh"), "datasource.not_found", 404);
    equal((await audits(db, "datasource.deleted")).length, 1);
    await f.ds.create(f.admin, acme, pgBody("wh"));
  },
);
