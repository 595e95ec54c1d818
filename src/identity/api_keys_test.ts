/** Issuance by kind, expiry, listing and revocation (spec 1 §2.3, §4.2). */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { verifySecret } from "../lib/argon2.ts";
import { parseExpiry, parseIsoTimestamp, PRESENTED_KEY_PATTERN } from "./api_keys.ts";
import {
  AUTHOR,
  harness,
  seedUser,
  seedWorkspace,
  sessionIssuer,
  SUPER,
  VIEWER,
  WS_ADMIN,
} from "./api_keys_test_fixtures.ts";
import type { Principal } from "./types.ts";
import { audits, refuses } from "../../tests/support/refusals.ts";

const KEY_FORMAT = /^svck_[a-z2-7]{12}\.[a-z2-7]{48}$/;

forEachStore("issue: key format, default scope, Argon2id of the whole key, audited", async (db) => {
  const { svc, clock } = harness(db);
  const ws = await seedWorkspace(db, "acme");
  const uid = await seedUser(db, "a@example.com");
  const issued = await svc.issue(sessionIssuer(uid, ws), { name: "  ci  " }, AUTHOR);
  match(issued.key, KEY_FORMAT);
  match(issued.key, PRESENTED_KEY_PATTERN);
  equal(issued.key.length, 66);
  equal(issued.id, issued.key.slice(0, 17));
  deepEqual(
    { name: issued.name, kind: issued.kind, scopes: issued.scopes, bindings: issued.bindings },
    { name: "ci", kind: "user", scopes: ["read"], bindings: [] },
  );
  equal(issued.created_at, new Date(clock.t).toISOString());
  equal(issued.expires_at, null);

  const row = await db.first<{ id: string; key_hash: string; workspace_id: string }>(
    "SELECT id, key_hash, workspace_id FROM api_keys",
  );
  equal(row!.id, issued.id.slice(5));
  equal(String(row!.workspace_id), ws);
  match(row!.key_hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  ok(await verifySecret(issued.key, row!.key_hash));
  ok(!(await verifySecret(issued.key.split(".")[1], row!.key_hash)), "hash covers the whole key");

  const [created] = await audits(db, "auth.api_key.created");
  equal(created.user_id, uid);
  equal(created.workspace_id, ws);
  deepEqual(created.details, {
    key_id: issued.id,
    name: "ci",
    kind: "user",
    scopes: ["read"],
    bindings: 0,
    expires_at: null,
  });
  const text = JSON.stringify(await audits(db));
  ok(!text.includes(issued.key.split(".")[1]) && !text.includes(row!.key_hash));

  const other = await svc.issue(sessionIssuer(uid, ws), { name: "ci" }, AUTHOR);
  ok(other.id !== issued.id && other.key !== issued.key, "names are not unique, keys are");
  await svc.close();
});

forEachStore("issue: user kind rules and their codes", async (db) => {
  const { svc } = harness(db);
  const ws = await seedWorkspace(db, "acme");
  const uid = await seedUser(db, "a@example.com");
  const me = sessionIssuer(uid, ws);
  const bad = "pipeline.execution.invalid_parameter_type";
  for (const name of [undefined, "", "   ", 7, "x".repeat(201), "a\nb"]) {
    await refuses(() => svc.issue(me, { name }, AUTHOR), bad, { field: "name" });
  }
  await refuses(() => svc.issue(me, "nope", AUTHOR), bad, { field: "body" });
  equal((await svc.issue(me, { name: "x".repeat(200) }, AUTHOR)).name.length, 200);
  for (const kind of ["root", 3, "USER"]) {
    await refuses(() => svc.issue(me, { name: "k", kind }, AUTHOR), "endpoint.key_kind_refused", {
      reason: "unknown_kind",
      supported: ["user", "endpoint", "server"],
    });
  }
  await refuses(
    () => svc.issue(me, { name: "k", scopes: ["read", "admin"] }, SUPER),
    "auth.key_scope_unavailable",
  );
  for (const scopes of [["read", "write"], "read", [1], []]) {
    await refuses(() => svc.issue(me, { name: "k", scopes }, AUTHOR), bad, { field: "scopes" });
  }
  await refuses(() => svc.issue(me, { name: "k" }, VIEWER), "auth.role_required", {
    required: "author",
    held: ["view", "execute"],
  });
  await refuses(
    () => svc.issue(me, { name: "k", bindings: [{ path: "/sales" }] }, AUTHOR),
    "endpoint.key_kind_refused",
    { reason: "bindings_not_allowed" },
  );
  const authored = await svc.issue(
    me,
    { name: "k", scopes: ["execute", "author", "execute"] },
    AUTHOR,
  );
  deepEqual(authored.scopes, ["execute", "author"]);
  equal((await svc.issue(me, { name: "k", kind: "user", bindings: [] }, WS_ADMIN)).kind, "user");
  equal((await svc.issue(me, { name: "k", scopes: ["author"] }, SUPER)).scopes[0], "author");

  // A key-authenticated issuer: capped by its own scopes, pinned to its own workspace.
  const other = await seedWorkspace(db, "other");
  const viaKey: Principal & { activeWorkspaceId: string } = {
    ...me,
    authMethod: "API_KEY",
    keyId: "svck_aaaaaaaaaaaa",
    keyKind: "user",
    scopes: ["read", "execute"],
    pinnedWorkspaceId: other,
  };
  await refuses(
    () => svc.issue(viaKey, { name: "k", scopes: ["author"] }, AUTHOR),
    "auth.scope.insufficient",
    { required: ["author"] },
  );
  const fromKey = await svc.issue(viaKey, { name: "k", scopes: ["execute"] }, AUTHOR);
  const row = await db.first<{ workspace_id: string }>(
    "SELECT workspace_id FROM api_keys WHERE id = $1",
    [fromKey.id.slice(5)],
  );
  equal(String(row!.workspace_id), other);
  const fromKeyAudit = (await audits(db, "auth.api_key.created"))
    .find((r) => r.details.key_id === fromKey.id);
  equal(fromKeyAudit!.details.issuer_key_id, viaKey.keyId);
  await refuses(
    () =>
      svc.issue(
        { ...viaKey, keyKind: "endpoint", scopes: [] },
        { name: "k", kind: "endpoint" },
        AUTHOR,
      ),
    "endpoint.key_kind_refused",
    { reason: "issuer_kind" },
  );
  await svc.close();
});

forEachStore(
  "issue: endpoint kind takes bindings, refuses scopes, any principal mints",
  async (db) => {
    const { svc } = harness(db);
    const ws = await seedWorkspace(db, "acme");
    const me = sessionIssuer(await seedUser(db, "v@example.com"), ws);
    await refuses(
      () => svc.issue(me, { name: "e", kind: "endpoint", scopes: ["read"] }, AUTHOR),
      "endpoint.key_kind_refused",
      { reason: "scopes_not_allowed", kind: "endpoint" },
    );
    const malformed = [
      "/sales",
      [{}],
      [{ path: 5 }],
      [{ path: "sales" }],
      [{ path: "/Sales" }],
      [{ path: "/a b" }],
      [{ path: "/sales/" }],
      [{ path: "/a//b" }],
      [{ path: "/" + "a/".repeat(10) + "b" }],
      [{ path: "/" + "a".repeat(501) }],
      [{ path: "/sales", key_name: "x" }],
      Array.from({ length: 101 }, (_, i) => ({ path: `/p${i}` })),
    ];
    for (const bindings of malformed) {
      await refuses(
        () => svc.issue(me, { name: "e", kind: "endpoint", bindings }, VIEWER),
        "pipeline.execution.invalid_parameter_type",
        { field: "bindings" },
      );
    }
    const bindings = [
      { path: "/sales" },
      { path: "/api/x/sales/{region}/daily" },
      { path: "/" },
      { path: "/sales" },
    ];
    const key = await svc.issue(me, { name: "e", kind: "endpoint", bindings, scopes: [] }, VIEWER);
    deepEqual(key.scopes, []);
    deepEqual(key.bindings, bindings.slice(0, 3));
    deepEqual((await svc.issue(me, { name: "e", kind: "endpoint" }, VIEWER)).bindings, []);
    const listed = (await svc.listOwn(me.userId)).find((k) => k.id === key.id);
    deepEqual(listed!.bindings, bindings.slice(0, 3));
    await svc.close();
  },
);

forEachStore("issue: server kind is for a super admin session only", async (db) => {
  const { svc } = harness(db);
  const ws = await seedWorkspace(db, "acme");
  const admin = sessionIssuer(await seedUser(db, "root@example.com", { admin: true }), ws, true);
  for (const extra of [{ scopes: ["read"] }, { bindings: [{ path: "/x" }] }]) {
    await refuses(
      () => svc.issue(admin, { name: "s", kind: "server", ...extra }, SUPER),
      "endpoint.key_kind_refused",
    );
  }
  for (const cap of [AUTHOR, WS_ADMIN]) {
    await refuses(
      () => svc.issue(admin, { name: "s", kind: "server" }, cap),
      "auth.scope.insufficient",
      {
        required: "admin",
      },
    );
  }
  const viaKey = { ...admin, authMethod: "API_KEY" as const, keyKind: "user" as const, scopes: [] };
  await refuses(
    () => svc.issue(viaKey, { name: "s", kind: "server" }, SUPER),
    "auth.scope.insufficient",
  );
  const key = await svc.issue(admin, { name: "s", kind: "server", scopes: null }, SUPER);
  deepEqual([key.kind, key.scopes, key.bindings], ["server", [], []]);
  await svc.close();
});

forEachStore("issue: expiry presets and every expiry_invalid reason", async (db) => {
  const { svc, clock } = harness(db);
  const ws = await seedWorkspace(db, "acme");
  const me = sessionIssuer(await seedUser(db, "a@example.com"), ws);
  const issue = (extra: Record<string, unknown>) => svc.issue(me, { name: "k", ...extra }, AUTHOR);
  const cases: [Record<string, unknown>, string][] = [
    [{ expires_in: "2w" }, "unknown_preset"],
    [{ expires_in: 7 }, "unknown_preset"],
    [{ expires_at: "next tuesday" }, "unparseable"],
    [{ expires_in: "custom", expires_at: "2031-02-30T00:00:00Z" }, "unparseable"],
    [{ expires_at: 1900000000000 }, "unparseable"],
    [{ expires_at: "2029-12-31T23:59:59Z" }, "in_past"],
    [{ expires_at: new Date(clock.t).toISOString() }, "in_past"],
    [{ expires_in: "custom" }, "custom_without_date"],
  ];
  for (const [extra, reason] of cases) {
    await refuses(() => issue(extra), "auth.api_key.expiry_invalid", { reason });
  }
  await refuses(
    () => issue({ expires_in: "30d", expires_at: "2031-01-01T00:00:00Z" }),
    "pipeline.execution.invalid_parameter_type",
    { field: "expires_at" },
  );
  equal((await issue({ expires_in: "7d" })).expires_at, "2030-01-08T00:00:00.000Z");
  equal((await issue({ expires_in: "never" })).expires_at, null);
  equal(
    (await issue({ expires_in: "custom", expires_at: "2030-06-01T12:00:00+02:00" })).expires_at,
    "2030-06-01T10:00:00.000Z",
  );
  equal((await issue({ expires_at: "2030-02-01" })).expires_at, "2030-02-01T00:00:00.000Z");
  equal((await audits(db, "auth.api_key.created")).length, 4, "refusals write nothing");
  await svc.close();
});

Deno.test("parseExpiry presets from a fixed clock; parseIsoTimestamp checks the calendar", () => {
  const now = Date.parse("2030-01-31T08:00:00.000Z");
  equal(parseExpiry(undefined, undefined, now), null);
  equal(parseExpiry(null, null, now), null);
  equal(parseExpiry("30d", undefined, now), "2030-03-02T08:00:00.000Z");
  equal(parseExpiry("90d", undefined, now), "2030-05-01T08:00:00.000Z");
  equal(parseExpiry("1y", undefined, now), "2031-01-31T08:00:00.000Z");
  equal(parseIsoTimestamp("2032-02-29T00:00:00Z"), Date.parse("2032-02-29T00:00:00Z"));
  equal(parseIsoTimestamp("2031-02-29T00:00:00Z"), null);
  equal(parseIsoTimestamp("2031-01-01T24:00:00Z"), null);
  equal(parseIsoTimestamp("2031-01-01T10:00"), Date.parse("2031-01-01T10:00:00Z"));
  equal(
    parseIsoTimestamp("2031-01-01T10:00:00.123456-0130"),
    Date.parse("2031-01-01T11:30:00.123Z"),
  );
  equal(parseIsoTimestamp("2031-1-1"), null);
  equal(parseIsoTimestamp("20310101"), null);
});

forEachStore(
  "listOwn: own keys newest first, revoked included, never a secret or hash",
  async (db) => {
    const { svc, clock } = harness(db);
    const ws = await seedWorkspace(db, "acme");
    const uid = await seedUser(db, "a@example.com");
    const otherUid = await seedUser(db, "b@example.com");
    const me = sessionIssuer(uid, ws);
    const first = await svc.issue(me, { name: "first", scopes: ["execute"] }, AUTHOR);
    clock.t += 1000;
    const second = await svc.issue(me, { name: "second", expires_in: "30d" }, AUTHOR);
    await svc.issue(sessionIssuer(otherUid, ws), { name: "not mine" }, AUTHOR);
    await svc.validate(first.key, { ip: "203.0.113.9" });
    await svc.flush();
    await svc.revoke(me, second.id, () => Promise.resolve(false));

    const list = await svc.listOwn(uid);
    deepEqual(list.map((k) => k.id), [second.id, first.id]);
    deepEqual(Object.keys(list[0]).sort(), [
      "bindings",
      "created_at",
      "expires_at",
      "id",
      "is_revoked",
      "kind",
      "last_used_at",
      "last_used_ip",
      "name",
      "scopes",
      "workspace",
    ]);
    deepEqual([list[0].is_revoked, list[1].is_revoked], [true, false]);
    deepEqual(list[1].scopes, ["execute"]);
    equal(list[1].last_used_ip, "203.0.113.9");
    equal(list[1].last_used_at, new Date(clock.t).toISOString());
    equal(list[0].workspace, "acme");
    const hashes = await db.query<{ key_hash: string }>("SELECT key_hash FROM api_keys");
    const text = JSON.stringify(list);
    for (const secret of [first.key, second.key].map((k) => k.split(".")[1])) {
      ok(
        !text.includes(secret),
      );
    }
    for (const { key_hash } of hashes) ok(!text.includes(key_hash));
    ok(!text.includes("argon2"));
    await svc.close();
  },
);

forEachStore("revoke: owner or workspace admin; else 404; twice is one audit row", async (db) => {
  const { svc } = harness(db);
  const ws = await seedWorkspace(db, "acme");
  const owner = sessionIssuer(await seedUser(db, "o@example.com"), ws);
  const stranger = sessionIssuer(await seedUser(db, "s@example.com"), ws);
  const k1 = await svc.issue(owner, { name: "k1" }, AUTHOR);
  const k2 = await svc.issue(owner, { name: "k2" }, AUTHOR);
  const asked: string[] = [];
  const no = (id: string) => (asked.push(id), Promise.resolve(false));
  const yes = (id: string) => (asked.push(id), Promise.resolve(true));

  for (const id of ["svck_zzzzzzzzzzzz", "nonsense", k1.key, k1.id.toUpperCase(), ""]) {
    await refuses(() => svc.revoke(owner, id, yes), "auth.api_key.not_found");
  }
  await refuses(() => svc.revoke(stranger, k1.id, no), "auth.api_key.not_found", { key_id: k1.id });
  deepEqual(asked, [ws]);
  await svc.revoke(owner, k1.id, no);
  equal(asked.length, 1, "the owner needs no admin check");
  await svc.revoke(owner, k1.id, no);
  await svc.revoke(stranger, k2.id, yes);
  const revoked = (await audits(db, "auth.api_key.revoked"))
    .sort((a, b) => String(a.details.name).localeCompare(String(b.details.name)));
  deepEqual(revoked.map((r) => [r.details.key_id, r.details.via, r.user_id]), [
    [k1.id, "owner", owner.userId],
    [k2.id, "workspace_admin", stranger.userId],
  ]);
  equal(revoked[0].workspace_id, ws);
  const rows = await db.query<{ is_revoked: unknown; revoked_at: unknown }>(
    "SELECT is_revoked, revoked_at FROM api_keys",
  );
  ok(rows.every((r) => (r.is_revoked === true || r.is_revoked === 1) && r.revoked_at !== null));
  await refuses(() => svc.validate(k1.key), "auth.api_key.invalid");
  await svc.close();
});
