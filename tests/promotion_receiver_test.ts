/**
 * The promotion receiver over HTTP on both stores (spec 3 §4.4, §5): the server-key gate's one
 * identical 401 for every failure kind, the legacy configured value, the inventory, and the push —
 * closure order, exact versions and hashes, the system actor's stamps, the no-op re-push, and the
 * all-or-nothing refusals (wrong hash, missing datasource, missing template, a local draft).
 */
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { seedRoles, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call, type Json, startTestServer, type TestServer } from "./support/harness.ts";
import { sqliteFile, sqliteSource } from "./support/pipeline_client.ts";
import {
  FIXED_CORRELATION,
  ordersPipeline,
  pipelineEntry,
  pushBody,
  templateEntry,
} from "./support/promotion_fixtures.ts";
import { forEachStoreKind, type StoreKind } from "./support/stores.ts";

const PUSH = "/api/v1/promotion/push";
const INV = "/api/v1/promotion/inventory?workspace=acme";

async function raw(s: TestServer, method: string, path: string, headers: Record<string, string>) {
  const res = await s.fetch(path, {
    method,
    headers: {
      "SVC-Correlation-Id": FIXED_CORRELATION,
      "content-type": "application/json",
      ...headers,
    },
    body: method === "POST" ? JSON.stringify(pushBody("acme", [], [])) : undefined,
  });
  return { status: res.status, text: await res.text() };
}

async function receiver(kind: StoreKind, env: Record<string, string> = {}) {
  const s = await startTestServer({
    store: kind,
    env: {
      SERVICE_DEPLOYMENT_AUTHORING_ENABLED: "false",
      SERVICE_DEPLOYMENT_NAME: "production",
      ...env,
    },
  });
  const f = await seedRoles(s.runtime);
  const admin = await sessionHeaders(s.runtime, f.users.super_admin, "acme");
  const minted = await call(s, "POST", "/api/v1/auth/api-keys", admin, {
    name: "promotion",
    kind: "server",
  });
  equal(minted.status, 201, JSON.stringify(minted.body));
  const file = await sqliteFile();
  const ds = await call(s, "POST", "/api/v1/datasources", admin, sqliteSource("wh", file));
  equal(ds.status, 201, JSON.stringify(ds.body));
  return { s, f, admin, key: String(minted.body.data.key), keyId: String(minted.body.data.id) };
}

async function audits(s: TestServer, event: string): Promise<Json[]> {
  const rows = await s.runtime.db.query<{ details: string }>(
    "SELECT details FROM audit_log WHERE event = $1 ORDER BY timestamp",
    [event],
  );
  return rows.map((r) => typeof r.details === "string" ? JSON.parse(r.details) : r.details);
}

forEachStoreKind(
  "promotion gate: every failure kind answers the byte-identical 401",
  async (kind) => {
    const { s, f, admin, key, keyId } = await receiver(kind);
    try {
      const rt = s.runtime;
      // Every kind of failure, each presented on both receiver routes.
      const userKeyText = await userKey(rt, f.users.author, f.workspace.id, ["author"]);
      const revoked = await call(s, "POST", "/api/v1/auth/api-keys", admin, {
        name: "old",
        kind: "server",
      });
      equal(
        (await call(s, "DELETE", `/api/v1/auth/api-keys/${revoked.body.data.id}`, admin)).status,
        204,
      );
      const expiring = await call(s, "POST", "/api/v1/auth/api-keys", admin, {
        name: "exp",
        kind: "server",
      });
      await rt.db.execute("UPDATE api_keys SET expires_at = $2 WHERE id = $1", [
        String(expiring.body.data.id).slice(5),
        "2020-01-01T00:00:00.000Z",
      ]);
      rt.keys.invalidate(String(expiring.body.data.id));
      // A second super admin mints a key, then is deactivated.
      const minter = f.users.super_admin.principal;
      const second = await s.runtime.db.first<{ id: string }>(
        "SELECT id FROM users WHERE email = $1",
        [f.users.ws_admin.email],
      );
      await rt.users.setAdmin(minter, second!.id, true);
      const wsAdmin = await sessionHeaders(rt, f.users.ws_admin, "acme");
      const byDeactivated = await call(s, "POST", "/api/v1/auth/api-keys", wsAdmin, {
        name: "theirs",
        kind: "server",
      });
      equal(byDeactivated.status, 201, JSON.stringify(byDeactivated.body));
      // It worked before the deactivation.
      equal(
        (await raw(s, "GET", INV, { "SVC-Promotion-Key": byDeactivated.body.data.key })).status,
        200,
      );
      await rt.users.setActive(minter, second!.id, false);

      const failures: Record<string, Record<string, string>> = {
        missing: {},
        malformed: { "SVC-Promotion-Key": "not a key" },
        unknown: { "SVC-Promotion-Key": `svck_${"a".repeat(12)}.${"b".repeat(48)}` },
        revoked: { "SVC-Promotion-Key": String(revoked.body.data.key) },
        expired: { "SVC-Promotion-Key": String(expiring.body.data.key) },
        wrong_kind: { "SVC-Promotion-Key": userKeyText },
        owner_deactivated: { "SVC-Promotion-Key": String(byDeactivated.body.data.key) },
        api_key_header: { "SVC-API-Key": key },
      };
      const bodies = new Set<string>();
      for (const [why, headers] of Object.entries(failures)) {
        for (const [method, path] of [["GET", INV], ["POST", PUSH]]) {
          const r = await raw(s, method, path, headers);
          equal(r.status, 401, `${why} ${method}: ${r.text}`);
          bodies.add(r.text);
        }
      }
      equal(bodies.size, 1, [...bodies].join("\n"));
      const body = JSON.parse([...bodies][0]);
      deepEqual([body.error.code, body.error.details], ["auth.promotion.key_invalid", {}]);
      // The reasons are in the audit, never in the answer; the key never is.
      const reasons = new Set((await audits(s, "auth.promotion.rejected")).map((d) => d.reason));
      for (const r of ["missing", "malformed", "unknown", "expired", "wrong_kind"]) {
        ok(
          reasons.has(r),
          r,
        );
      }
      const log = JSON.stringify(await audits(s, "auth.promotion.rejected"));
      ok(!log.includes(String(revoked.body.data.key)) && !log.includes(userKeyText));

      // The live key opens the gate and stamps last_used_at.
      equal((await raw(s, "GET", INV, { "SVC-Promotion-Key": key })).status, 200);
      await rt.keys.flush();
      const used = await rt.db.first<{ last_used_at: unknown }>(
        "SELECT last_used_at FROM api_keys WHERE id = $1",
        [keyId.slice(5)],
      );
      notEqual(used?.last_used_at ?? null, null);
      // Revoking every server key closes the receiver: nothing configured fails closed.
      for (const id of [keyId]) await call(s, "DELETE", `/api/v1/auth/api-keys/${id}`, admin);
      const closed = await raw(s, "GET", INV, { "SVC-Promotion-Key": key });
      deepEqual([closed.status, closed.text], [401, [...bodies][0]]);
      const none = await raw(s, "GET", INV, {});
      deepEqual([none.status, none.text], [401, [...bodies][0]]);
    } finally {
      await s.close();
    }
  },
);

forEachStoreKind("promotion gate: the legacy configured value opens the receiver", async (kind) => {
  const legacy = "a-pre-shared-promotion-value-of-some-length";
  const { s } = await receiver(kind, { SERVICE_DEPLOYMENT_PROMOTION_SERVER_KEY: legacy });
  try {
    equal((await raw(s, "GET", INV, { "SVC-Promotion-Key": legacy })).status, 200);
    equal((await raw(s, "GET", INV, { "SVC-Promotion-Key": legacy + "x" })).status, 401);
    ok(s.logs.some((l) => l.includes("server-key is deprecated")));
  } finally {
    await s.close();
  }
});

forEachStoreKind(
  "promotion push: closure order, exact versions, no-op re-push, audit",
  async (kind) => {
    const { s, key } = await receiver(kind);
    try {
      const h = { "SVC-Promotion-Key": key };
      const base = templateEntry("lib/base", 2, "SELECT 1 AS one");
      const orders = templateEntry(
        "lib/orders",
        4,
        "SELECT * FROM orders WHERE id = :customer_id",
        [
          { id: "lib/base", version: 2, alias: "base" },
        ],
      );
      const childId = crypto.randomUUID();
      const child = pipelineEntry(childId, 3, ordersPipeline("shop/child", 4));
      const parent = pipelineEntry(crypto.randomUUID(), 7, {
        name: "shop/parent",
        nodes: [{ id: "c", type: "PIPELINE", pipeline: { id: childId, version: 3 } }],
      });
      // Sent out of order on purpose: the receiver applies the closure order itself.
      const body = pushBody("acme", [orders, base], [parent, child]);
      const r = await call(s, "POST", PUSH, h, body);
      equal(r.status, 200, JSON.stringify(r.body));
      deepEqual(r.body.data, {
        workspace: "acme",
        source_env: "development",
        templates: 2,
        pipelines: 2,
        endpoints: 0,
        applied: { templates: 2, pipelines: 2, endpoints: 0 },
      });
      const inv = await call(s, "GET", INV, h);
      equal(inv.status, 200);
      deepEqual(
        inv.body.data.pipelines.map((p: Json) => [p.name, p.current_version, p.body_hash]),
        [["shop/child", 3, child.body_hash], ["shop/parent", 7, parent.body_hash]],
      );
      deepEqual(
        inv.body.data.templates.map((p: Json) => [p.name, p.current_version]),
        [["lib/base", 2], ["lib/orders", 4]],
      );
      deepEqual(inv.body.data.datasources, ["wh"]);
      deepEqual([inv.body.data.deployment, inv.body.data.authoring_enabled], ["production", false]);
      // Stamped by the system actor.
      const system = await s.runtime.db.first<{ id: string }>(
        "SELECT id FROM users WHERE provider = 'system'",
      );
      const stamps = await s.runtime.db.query<{ created_by: string; released_by: string }>(
        "SELECT created_by, released_by FROM pipeline_versions",
      );
      ok(stamps.every((x) => x.created_by === system!.id && x.released_by === system!.id));

      // The identical re-push changes nothing.
      const before = await s.runtime.db.query("SELECT * FROM pipeline_versions ORDER BY version");
      const again = await call(s, "POST", PUSH, h, body);
      equal(again.status, 200);
      deepEqual(again.body.data.applied, { templates: 0, pipelines: 0, endpoints: 0 });
      deepEqual(
        await s.runtime.db.query("SELECT * FROM pipeline_versions ORDER BY version"),
        before,
      );

      const accepted = await audits(s, "auth.promotion.accepted");
      equal(accepted.length, 2);
      equal(accepted[0].source_env, "development");
      ok(/^sha256:[0-9a-f]{16}$/.test(accepted[0].key_fingerprint));
      ok(!JSON.stringify(accepted).includes(key));
      // Inventory of an unknown workspace is the plain not-found.
      const unknown = await call(s, "GET", "/api/v1/promotion/inventory?workspace=nope", h);
      deepEqual([unknown.status, unknown.body.error.code], [404, "workspace.not_found"]);
    } finally {
      await s.close();
    }
  },
);

forEachStoreKind("promotion push: any refused entry leaves nothing applied", async (kind) => {
  const { s, key } = await receiver(kind);
  try {
    const h = { "SVC-Promotion-Key": key };
    const good = templateEntry("lib/orders", 1, "SELECT * FROM orders");
    const snapshot = async () => ({
      t: await s.runtime.db.query("SELECT name FROM templates"),
      p: await s.runtime.db.query("SELECT name FROM pipelines"),
    });
    const empty = await snapshot();
    const wrongHash = { ...pipelineEntry(crypto.randomUUID(), 1, ordersPipeline("shop/a", 1)) };
    wrongHash.body_hash = `sha256:${"0".repeat(64)}`;
    const cases: [string, Json, number, string][] = [
      ["hash", pushBody("acme", [good], [wrongHash]), 400, "pipeline.import.hash_mismatch"],
      [
        "datasource",
        pushBody("acme", [good], [
          pipelineEntry(crypto.randomUUID(), 1, {
            ...ordersPipeline("shop/b", 1),
            nodes: [{ id: "x", type: "DQL", source: "nowhere", sql: "SELECT 1" }],
          }),
        ]),
        400,
        "pipeline.import.missing_datasource",
      ],
      [
        "template",
        pushBody("acme", [good], [
          pipelineEntry(crypto.randomUUID(), 1, ordersPipeline("shop/c", 9)),
        ]),
        400,
        "pipeline.import.missing_template",
      ],
      [
        "endpoint key",
        pushBody("acme", [good], [
          pipelineEntry(crypto.randomUUID(), 1, ordersPipeline("shop/d", 1)),
        ], {
          endpoints: [{
            path_pattern: "/shop/d/{customer_id}",
            pipeline_name: "shop/d",
            timeout_seconds: 30,
            enabled: true,
            description: null,
            bindings: [{ path: "/shop", key_name: "nobody-has-this" }],
          }],
        }),
        409,
        "endpoint.promotion.key_missing",
      ],
      ["workspace", pushBody("nope", [good], []), 404, "workspace.not_found"],
      ["shape", { workspace: "acme" }, 400, "pipeline.execution.invalid_parameter_type"],
    ];
    for (const [why, body, status, code] of cases) {
      const r = await call(s, "POST", PUSH, h, body);
      deepEqual(
        [r.status, r.body.error?.code],
        [status, code],
        `${why}: ${JSON.stringify(r.body)}`,
      );
      deepEqual(await snapshot(), empty, why);
    }
    const rejected = await audits(s, "auth.promotion.rejected");
    deepEqual(rejected.map((d) => d.reason), cases.map((c) => c[3]));
  } finally {
    await s.close();
  }
});

forEachStoreKind(
  "promotion push: a local draft is never overwritten (409 version_conflict)",
  async (kind) => {
    // Authoring on, so a local draft can exist where a push arrives.
    const { s, key, admin } = await receiver(kind, {
      SERVICE_DEPLOYMENT_AUTHORING_ENABLED: "true",
    });
    try {
      const made = await call(s, "POST", "/api/v1/pipelines", admin, {
        name: "shop/local",
        nodes: [{ id: "a", type: "DQL", source: "tempdb", sql: "SELECT 1 AS x" }],
      });
      equal(made.status, 201, JSON.stringify(made.body));
      const pushed = pipelineEntry(crypto.randomUUID(), 1, {
        name: "shop/local",
        nodes: [{ id: "a", type: "DQL", source: "tempdb", sql: "SELECT 2 AS x" }],
      });
      const r = await call(
        s,
        "POST",
        PUSH,
        { "SVC-Promotion-Key": key },
        pushBody("acme", [], [pushed]),
      );
      deepEqual([r.status, r.body.error.code, r.body.error.details.status], [
        409,
        "pipeline.import.version_conflict",
        "DRAFT",
      ]);
      const draft = await call(s, "GET", `/api/v1/pipelines/${made.body.data.id}`, admin);
      equal(draft.body.data.body_hash, made.body.data.body_hash);
    } finally {
      await s.close();
    }
  },
);
