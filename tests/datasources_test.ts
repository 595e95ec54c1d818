/**
 * Datasources over HTTP (spec 3 §4.1, §7): the registry's routes, every refusal with its exact
 * code (never a 500), grants and visibility, the member-writes setting, the bootstrap file, and a
 * canary secret that must never appear in any response body or log line.
 */
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, startTestServer, type TestServer } from "./support/harness.ts";
import { forEachStoreKind, type StoreKind } from "./support/stores.ts";

const CANARY = "canary-7Hq!x-secret-3f9d";
const DATASOURCES = "/api/v1/datasources";

type Fixture = Awaited<ReturnType<typeof seedRoles>>;

async function withServer(
  store: StoreKind,
  fn: (s: TestServer, f: Fixture, bodies: string[]) => Promise<void>,
  env: Record<string, string> = {},
) {
  const s = await startTestServer({ store, env });
  const bodies: string[] = [];
  const fetch = s.fetch;
  s.fetch = async (path, init) => {
    const res = await fetch(path, init);
    const text = await res.clone().text();
    bodies.push(text);
    return res;
  };
  try {
    await fn(s, await seedRoles(s.runtime), bodies);
  } finally {
    await s.close();
  }
}

/** Registers `name` once per store, each with its own server (see `withServer`). */
function serverTest(
  name: string,
  fn: Parameters<typeof withServer>[1],
  env: Record<string, string> = {},
): void {
  forEachStoreKind(name, (store) => withServer(store, fn, env));
}

const pg = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  display_name: "Warehouse",
  dialect: "POSTGRES",
  jdbc_url: "jdbc:postgresql://127.0.0.1:5432/warehouse",
  credential: { kind: "password", username: "reader", secret: CANARY },
  ...extra,
});

serverTest(
  "a workspace admin registers, reads, lists, updates and deletes a datasource",
  async (s, f, bodies) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
    const made = await call(s, "POST", DATASOURCES, admin, {
      ...pg("warehouse"),
      introspection_include_schemas: ["Sales ", "sales", "HR"],
      properties: { hikari: { maximumPoolSize: 3 } },
    });
    equal(made.status, 201, JSON.stringify(made.body));
    const d = made.body.data;
    deepEqual(d.credential, { kind: "password", username: "reader" });
    deepEqual([d.password_set, d.username, d.workspace, d.global], [
      true,
      "reader",
      "acme",
      false,
    ]);
    deepEqual(d.introspection_include_schemas, ["sales", "hr"]);
    deepEqual(d.pool.maximumPoolSize, { value: 3, unit: "connections", source: "configured" });
    deepEqual([d.facts, d.definitions, d.last_test], [[], [], null]);

    await call(s, "POST", DATASOURCES, admin, {
      name: "files",
      dialect: "SQLITE",
      jdbc_url: "jdbc:sqlite:/tmp/none.db",
    });
    const one = await call(s, "GET", "/api/v1/datasources/warehouse", admin);
    deepEqual(one.body.data, d);
    const page = await call(s, "GET", "/api/v1/datasources?limit=1&offset=1", admin);
    deepEqual(page.body.data.pagination, { offset: 1, limit: 1, total: 2, has_more: false });
    equal(page.body.data.items[0].name, "warehouse");
    const lite = await call(s, "GET", "/api/v1/datasources?dialect=SQLITE", admin);
    deepEqual(lite.body.data.items.map((x: { name: string }) => x.name), ["files"]);
    const empty = await call(s, "GET", "/api/v1/datasources?dialect=", admin);
    equal(empty.body.data.pagination.total, 2);

    const put = await call(s, "PUT", "/api/v1/datasources/warehouse", admin, {
      ...pg("warehouse"),
      credential: { kind: "password", username: "reader" },
      readonly: true,
    });
    equal(put.status, 200);
    deepEqual([put.body.data.readonly, put.body.data.password_set], [true, true]);
    equal("introspection_include_schemas" in put.body.data, false);

    const viewer = await sessionHeaders(s.runtime, f.users.viewer, "acme");
    equal((await call(s, "GET", "/api/v1/datasources/warehouse", viewer)).status, 200);
    equal((await call(s, "DELETE", "/api/v1/datasources/warehouse", admin)).status, 204);
    equal((await call(s, "GET", "/api/v1/datasources/warehouse", admin)).status, 404);

    for (const text of [...bodies, ...s.logs]) ok(!text.includes(CANARY), text.slice(0, 200));
    ok(bodies.length >= 8 && s.logs.length > 0);
  },
);

serverTest(
  "bad input answers its exact code, never a 500",
  async (s, f, bodies) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
    await s.runtime.workspaces.create(f.users.super_admin.principal, { name: "other" });
    const cases: [string, unknown, number, string][] = [
      [
        "unknown dialect",
        pg("a", { dialect: "ORACLE" }),
        400,
        "pipeline.execution.invalid_parameter_type",
      ],
      [
        "pool out of range",
        pg("a", { properties: { hikari: { connectionTimeout: 100 } } }),
        400,
        "datasource.validation.properties_invalid",
      ],
      [
        "unknown namespace",
        pg("a", { properties: { pool: {} } }),
        400,
        "datasource.validation.properties_invalid",
      ],
      [
        "wildcard include schema",
        pg("a", { introspection_include_schemas: ["sales_%"] }),
        400,
        "datasource.validation.properties_invalid",
      ],
      [
        "both credential forms",
        pg("a", { username: "u", password: "p" }),
        400,
        "datasource.validation.properties_invalid",
      ],
      [
        "kind the dialect cannot use",
        pg("a", { credential: { kind: "service_account_json", secret: "{}" } }),
        400,
        "datasource.validation.properties_invalid",
      ],
      [
        "missing secret",
        pg("a", { credential: { kind: "password", username: "u" } }),
        400,
        "datasource.validation.password_missing",
      ],
      [
        "legacy pair without password",
        { ...pg("a"), credential: undefined, username: "u" },
        400,
        "datasource.validation.password_missing",
      ],
      ["global by a non-admin", pg("a", { global: true }), 403, "auth.role_required"],
      [
        "binding to a workspace out of reach",
        pg("a", { workspace: "other" }),
        400,
        "datasource.validation.workspace_forbidden",
      ],
      [
        "binding to an unknown workspace",
        pg("a", { workspace: "nowhere" }),
        400,
        "datasource.validation.workspace_forbidden",
      ],
      ["bad name", pg("Bad Name"), 400, "pipeline.execution.invalid_parameter_type"],
      [
        "credentials inside the URL",
        pg("a", { jdbc_url: `jdbc:postgresql://u:${CANARY}@db:5432/x` }),
        400,
        "datasource.validation.properties_invalid",
      ],
      [
        "a driver option injected through the URL",
        pg("a", { jdbc_url: "jdbc:postgresql://db:5432/x?socketFactory=org.evil.Factory" }),
        400,
        "datasource.validation.properties_invalid",
      ],
      ["not an object", [1, 2], 400, "pipeline.execution.invalid_parameter_type"],
    ];
    for (const [what, body, status, code] of cases) {
      const r = await call(s, "POST", DATASOURCES, admin, body);
      deepEqual([r.status, r.body.error?.code], [status, code], what);
    }
    const malformed = await s.fetch(DATASOURCES, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: '{"name": "a",',
    });
    deepEqual([malformed.status, (await malformed.json()).error.code], [
      400,
      "request.malformed_json",
    ]);
    equal((await call(s, "POST", DATASOURCES, admin, pg("dup"))).status, 201);
    const dup = await call(s, "POST", DATASOURCES, admin, pg("dup"));
    deepEqual([dup.status, dup.body.error.code], [409, "datasource.validation.duplicate_name"]);
    const kind = await call(s, "PUT", "/api/v1/datasources/dup", admin, {
      ...pg("dup"),
      credential: { kind: "none" },
    });
    equal(kind.status, 200);
    const back = await call(s, "PUT", "/api/v1/datasources/dup", admin, {
      ...pg("dup"),
      credential: { kind: "password", username: "u" },
    });
    deepEqual([back.status, back.body.error.code], [
      400,
      "datasource.validation.password_missing",
    ]);
    const rename = await call(s, "PUT", "/api/v1/datasources/dup", admin, pg("renamed"));
    deepEqual([rename.status, rename.body.error.details.field], [400, "name"]);
    const badList = await call(s, "GET", "/api/v1/datasources?dialect=ORACLE", admin);
    equal(badList.body.error.code, "pipeline.execution.invalid_parameter_type");
    ok(!s.logs.some((l) => l.includes('"level":"error"')), "no unexpected exception");
    for (const text of [...bodies, ...s.logs]) ok(!text.includes(CANARY), text.slice(0, 200));
  },
);

serverTest(
  "another workspace's datasource is 404 for sessions and keys alike",
  async (s, f) => {
    const su = f.users.super_admin.principal;
    await s.runtime.workspaces.create(su, { name: "other" });
    const root = await sessionHeaders(s.runtime, f.users.super_admin, "other");
    equal((await call(s, "POST", DATASOURCES, root, pg("theirs"))).status, 201);
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
    const key = {
      "SVC-API-Key": await userKey(s.runtime, f.users.ws_admin, f.workspace.id, ["author"]),
    };
    for (const h of [admin, key]) {
      for (const [m, body] of [["GET"], ["PUT", pg("theirs")], ["DELETE"]] as const) {
        const r = await call(s, m, "/api/v1/datasources/theirs", h, body);
        deepEqual([r.status, r.body.error.code], [404, "datasource.not_found"], `${m}`);
      }
      equal((await call(s, "GET", DATASOURCES, h)).body.data.pagination.total, 0);
    }
    const viaKey = await call(s, "POST", DATASOURCES, key, pg("k", { workspace: "other" }));
    equal(viaKey.body.error.code, "datasource.validation.workspace_forbidden");
    const mine = await call(s, "POST", DATASOURCES, key, pg("k"));
    deepEqual([mine.status, mine.body.data.workspace], [201, "acme"]);
  },
);

serverTest(
  "a named binding is judged in that workspace: its admin may, its viewer may not",
  async (s, f) => {
    const su = f.users.super_admin.principal;
    await s.runtime.workspaces.create(su, { name: "second" });
    await s.runtime.workspaces.addMember(su, "second", {
      email: f.users.viewer.email,
      admin: true,
    });
    await s.runtime.workspaces.addMember(su, "second", { email: f.users.ws_admin.email });
    s.runtime.directory.forgetWorkspaces();
    const viewerOfAcme = await sessionHeaders(s.runtime, f.users.viewer, "acme");
    const second = { workspace: "second" };
    const made = await call(s, "POST", DATASOURCES, viewerOfAcme, pg("x", second));
    deepEqual([made.status, made.body.data?.workspace], [201, "second"]);
    const adminOfAcme = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
    const refused = await call(s, "POST", DATASOURCES, adminOfAcme, pg("y", second));
    deepEqual([refused.status, refused.body.error.code], [403, "auth.role_required"]);
  },
);

serverTest(
  "member writes off: workspace admins get workspace_forbidden, super admins write",
  async (s, f) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
    const r = await call(s, "POST", DATASOURCES, admin, pg("a"));
    deepEqual([r.status, r.body.error.code], [400, "datasource.validation.workspace_forbidden"]);
    const root = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
    equal((await call(s, "POST", DATASOURCES, root, pg("a"))).status, 201);
  },
  { SERVICE_DATASOURCES_MEMBER_WRITES_ENABLED: "false" },
);

serverTest(
  "grants: a super admin without any workspace registers a global and grants it",
  async (s, f, bodies) => {
    const root = await sessionHeaders(s.runtime, f.users.super_admin);
    const made = await call(s, "POST", DATASOURCES, root, pg("shared", { global: true }));
    deepEqual([made.status, made.body.data.global, made.body.data.workspace], [201, true, null]);
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
    equal((await call(s, "GET", "/api/v1/datasources/shared", admin)).status, 404);

    const g = await call(s, "POST", "/api/v1/datasources/shared/grants/acme", root);
    equal(g.status, 200);
    deepEqual(Object.keys(g.body.data).sort(), [
      "already_granted",
      "datasource",
      "granted_at",
      "workspace",
    ]);
    equal(g.body.data.already_granted, false);
    const again = await call(s, "POST", "/api/v1/datasources/shared/grants/acme", root);
    deepEqual([again.body.data.already_granted, again.body.data.granted_at], [
      true,
      g.body.data.granted_at,
    ]);
    const seen = await call(s, "GET", DATASOURCES, admin);
    deepEqual(seen.body.data.items.map((x: { name: string }) => x.name), ["shared"]);
    equal(seen.body.data.pagination.total, 1);
    const put = await call(s, "PUT", "/api/v1/datasources/shared", admin, pg("shared"));
    deepEqual([put.status, put.body.error.code], [403, "auth.role_required"]);
    const del = await call(s, "DELETE", "/api/v1/datasources/shared", admin);
    deepEqual([del.status, del.body.error.code], [403, "auth.role_required"]);
    const asAdmin = await call(s, "POST", "/api/v1/datasources/shared/grants/acme", admin);
    deepEqual([asAdmin.status, asAdmin.body.error.code], [403, "auth.role_required"]);
    const unknownWs = await call(s, "POST", "/api/v1/datasources/shared/grants/nowhere", root);
    deepEqual([unknownWs.status, unknownWs.body.error.code], [404, "workspace.not_found"]);

    equal((await call(s, "DELETE", "/api/v1/datasources/shared/grants/acme", root)).status, 204);
    equal((await call(s, "GET", "/api/v1/datasources/shared", admin)).status, 404);
    const events = await s.runtime.db.query<{ event: string; details: string }>(
      "SELECT event, details FROM audit_log WHERE event LIKE 'datasource.%' ORDER BY timestamp, id",
    );
    deepEqual(events.map((e) => e.event), [
      "datasource.created",
      "datasource.granted",
      "datasource.granted",
      "datasource.revoked",
    ]);
    deepEqual(events.slice(1, 3).map((e) => JSON.parse(e.details).already_granted), [
      false,
      true,
    ]);
    for (const text of [...bodies, ...s.logs]) ok(!text.includes(CANARY));
  },
);

forEachStoreKind(
  "the bootstrap datasource file is imported at startup; a bad one refuses startup",
  async (store) => {
    const dir = await Deno.makeTempDir();
    try {
      const file = `${dir}/datasources.yaml`;
      await Deno.writeTextFile(
        file,
        `datasources:\n  - {name: boot, dialect: DUCKDB, jdbc_url: "jdbc:duckdb:"}\n`,
      );
      const env = {
        SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: "boss@example.com",
        SERVICE_AUTH_BOOTSTRAP_DATASOURCE_FILE: file,
      };
      await withServer(store, async (s, f) => {
        const root = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
        const r = await call(s, "GET", "/api/v1/datasources/boot", root);
        deepEqual([r.status, r.body.data.global, r.body.data.dialect], [200, true, "DUCKDB"]);
        const row = await s.runtime.db.first<{ created_by: string }>(
          "SELECT created_by FROM datasources WHERE name = 'boot'",
        );
        equal(String(row!.created_by), s.runtime.systemActor.id);
      }, env);
      await Deno.writeTextFile(file, `- {name: boot, dialect: NOPE, jdbc_url: x}\n`);
      await rejects(
        startTestServer({ store, env }),
        /entry 1 \(boot\): pipeline\.execution\.invalid_parameter_type/,
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

serverTest(
  "the OpenAPI document describes the datasource routes and their bodies",
  async (s) => {
    const doc = await (await s.fetch("/openapi.json")).json();
    const post = doc.paths[DATASOURCES].post;
    ok(post.requestBody.content["application/json"].schema.properties.credential);
    ok(doc.paths["/api/v1/datasources/{name}/grants/{workspace}"].post);
    ok(doc.paths["/api/v1/datasources/{name}"].get.responses["200"]);
  },
);

serverTest(
  "a ciphertext moved onto another row never opens: test reports it, introspection is 502",
  async (s, f, bodies) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
    for (const name of ["one", "two"]) {
      // Port 1 is never reached: decryption fails before any connect.
      equal(
        (await call(s, "POST", DATASOURCES, admin, {
          ...pg(name),
          jdbc_url: "jdbc:postgresql://127.0.0.1:1/x",
        })).status,
        201,
      );
    }
    await s.runtime.db.execute(
      `UPDATE datasources SET secret_ciphertext =
         (SELECT secret_ciphertext FROM datasources WHERE name = 'one') WHERE name = 'two'`,
    );
    const test = await call(s, "POST", "/api/v1/datasources/two/test", admin);
    deepEqual([test.status, test.body.data.connected, test.body.data.error_class], [
      200,
      false,
      "credential",
    ]);
    const r = await call(s, "GET", "/api/v1/datasources/two/schemas", admin);
    deepEqual([r.status, r.body.error.code], [502, "pipeline.execution.datasource_unreachable"]);
    const failed = await s.runtime.db.query<{ details: string }>(
      "SELECT details FROM audit_log WHERE event = 'datasource.credential_decrypt_failed'",
    );
    equal(failed.length, 2);
    equal(JSON.parse(failed[0].details).datasource, "two");
    for (const text of [...bodies, ...s.logs]) ok(!text.includes(CANARY));
  },
);

serverTest(
  "a workspace owning a bound datasource cannot be deleted: workspace.in_use counts it",
  async (s, f) => {
    const admin = await sessionHeaders(s.runtime, f.users.ws_admin, "acme");
    equal((await call(s, "POST", DATASOURCES, admin, pg("wh"))).status, 201);
    const refused = await call(s, "DELETE", "/api/v1/workspaces/acme", admin);
    deepEqual([refused.status, refused.body.error.code, refused.body.error.details.counts], [
      409,
      "workspace.in_use",
      { datasources: 1 },
    ]);
    equal((await call(s, "DELETE", "/api/v1/datasources/wh", admin)).status, 204);
    equal((await call(s, "DELETE", "/api/v1/workspaces/acme", admin)).status, 204);
  },
);
