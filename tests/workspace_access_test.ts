/**
 * Workspace resolution (spec 1 §5.7) and key confinement (§5.6) over HTTP: the SVC-Workspace
 * header, pinned keys, deactivated workspaces, issuers who lost their role, zero memberships,
 * the 404-never-403 rule, key kinds off their surface, the promotion gate, malformed keys.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { createUser, sessionHeaders, userKey } from "./support/access_fixtures.ts";
import { call } from "./support/harness.ts";
import { forEachServer } from "./support/servers.ts";

forEachServer(
  "SVC-Workspace: unknown, non-member and deactivated are one 404; a member's is remembered",
  async (s, f) => {
    const su = f.users.super_admin.principal;
    await s.runtime.workspaces.create(su, { name: "other" });
    await s.runtime.workspaces.create(su, { name: "sleepy" });
    await s.runtime.workspaces.addMember(su, "sleepy", { email: f.users.viewer.email });
    await s.runtime.workspaces.deactivate(su, "sleepy");
    const viewer = await sessionHeaders(s.runtime, f.users.viewer);
    for (const name of ["nope", "other", "sleepy", "../acme", "x".repeat(500)]) {
      const r = await call(s, "GET", "/api/v1/auth/me", { ...viewer, "SVC-Workspace": name });
      equal(r.status, 404, name);
      equal(r.body.error.code, "workspace.not_found", name);
    }
    const ok1 = await call(s, "GET", "/api/v1/auth/me", { ...viewer, "SVC-Workspace": "acme" });
    equal(ok1.body.data.workspace, "acme");
    const row = await s.runtime.db.first<{ last_workspace_id: string }>(
      "SELECT last_workspace_id FROM users WHERE id = $1",
      [f.users.viewer.id],
    );
    equal(String(row?.last_workspace_id), f.workspace.id);
  },
);

forEachServer(
  "a session falls back from a stale claim to the first live membership",
  async (s, f) => {
    const headers = await sessionHeaders(s.runtime, f.users.author, "gone-workspace");
    const r = await call(s, "GET", "/api/v1/auth/me", headers);
    equal(r.body.data.workspace, "acme");
  },
);

forEachServer(
  "keys: the workspace header is refused 400 and audited",
  async (s, f) => {
    const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["read"]);
    const r = await call(s, "GET", "/api/v1/auth/me", {
      "SVC-API-Key": key,
      "SVC-Workspace": "acme",
    });
    equal(r.status, 400);
    equal(r.body.error.code, "workspace.header_forbidden");
    ok(
      await s.runtime.db.first(
        "SELECT 1 AS x FROM audit_log WHERE event = 'auth.workspace.header_rejected'",
      ),
    );
  },
);

forEachServer(
  "keys: a deactivated pinned workspace answers auth.key_workspace_inactive until reactivated",
  async (s, f) => {
    const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["read"]);
    await s.runtime.workspaces.deactivate(f.users.super_admin.principal, "acme");
    s.runtime.directory.forgetWorkspaces();
    const r = await call(s, "GET", "/api/v1/auth/me", { "SVC-API-Key": key });
    equal(r.status, 404);
    equal(r.body.error.code, "auth.key_workspace_inactive");
    await s.runtime.workspaces.reactivate(f.users.super_admin.principal, "acme");
    s.runtime.directory.forgetWorkspaces();
    equal((await call(s, "GET", "/api/v1/auth/me", { "SVC-API-Key": key })).status, 200);
  },
);

forEachServer(
  "keys: an issuer who lost the capability makes the key answer auth.key_issuer_role_lost",
  async (s, f) => {
    const key = await userKey(s.runtime, f.users.ws_admin, f.workspace.id, ["author"]);
    const rename = () =>
      call(s, "PUT", "/api/v1/workspaces/acme", { "SVC-API-Key": key }, {
        display_name: "Renamed",
      });
    equal((await rename()).status, 200);
    const admin = await sessionHeaders(s.runtime, f.users.super_admin);
    equal(
      (await call(s, "PUT", `/api/v1/workspaces/acme/members/${f.users.author.id}`, admin, {
        author: true,
        admin: true,
      })).status,
      200,
    );
    equal(
      (await call(s, "PUT", `/api/v1/workspaces/acme/members/${f.users.ws_admin.id}`, admin, {}))
        .status,
      200,
    );
    const lost = await rename();
    equal(lost.status, 403);
    equal(lost.body.error.code, "auth.key_issuer_role_lost");
  },
);

forEachServer(
  "zero memberships: workspace operations answer workspace.membership_required, own ones work",
  async (s) => {
    const loner = await createUser(s.runtime, "loner@example.com");
    const headers = await sessionHeaders(s.runtime, loner);
    const audit = await call(s, "GET", "/api/v1/audit", headers);
    equal(audit.status, 403);
    equal(audit.body.error.code, "workspace.membership_required");
    const me = await call(s, "GET", "/api/v1/auth/me", headers);
    equal(me.status, 200);
    equal(me.body.data.workspace, null);
  },
);

forEachServer(
  "another workspace's members are not-found, never forbidden",
  async (s, f) => {
    await s.runtime.workspaces.create(f.users.super_admin.principal, { name: "other" });
    const r = await call(
      s,
      "GET",
      "/api/v1/workspaces/other/members",
      await sessionHeaders(s.runtime, f.users.ws_admin),
    );
    equal(r.status, 404);
    equal(r.body.error.code, "workspace.not_found");
  },
);

forEachServer(
  "key kinds: a server key as SVC-API-Key and an endpoint key off its surface are refused",
  async (s, f) => {
    const server = await s.runtime.keys.issue(
      { ...f.users.super_admin.principal, activeWorkspaceId: f.workspace.id },
      { name: "promotion", kind: "server" },
      { flags: null as never, isSuperAdmin: true },
    );
    const r = await call(s, "GET", "/api/v1/auth/me", { "SVC-API-Key": server.key });
    equal(r.status, 403);
    deepEqual([r.body.error.code, r.body.error.details.reason], [
      "endpoint.key_kind_refused",
      "server_key_off_surface",
    ]);
    const endpoint = await s.runtime.keys.issue(
      { ...f.users.author.principal, activeWorkspaceId: f.workspace.id },
      { name: "endpoint", kind: "endpoint" },
      { flags: { author: true, promoter: false, admin: false }, isSuperAdmin: false },
    );
    const e = await call(s, "GET", "/api/v1/workspaces", { "SVC-API-Key": endpoint.key });
    equal(e.status, 403);
    equal(e.body.error.code, "endpoint.key_kind_refused");

    const gate = await call(s, "POST", "/api/v1/promotion/push", {});
    deepEqual([gate.status, gate.body.error.code], [401, "auth.promotion.key_invalid"]);
    const user = await userKey(s.runtime, f.users.author, f.workspace.id, ["author"]);
    equal(
      (await call(s, "POST", "/api/v1/promotion/push", { "SVC-Promotion-Key": user })).status,
      401,
    );
    const through = await call(s, "POST", "/api/v1/promotion/push", {
      "SVC-Promotion-Key": server.key,
    });
    // Past the gate, the receiver judges the (empty) body.
    deepEqual([through.status, through.body.error.code], [
      400,
      "pipeline.execution.invalid_parameter_type",
    ]);
  },
);

forEachServer(
  "malformed keys answer auth.api_key.invalid; a failing key never falls back to the cookie",
  async (s, f) => {
    const good = await userKey(s.runtime, f.users.author, f.workspace.id, ["read"]);
    const cookie = await sessionHeaders(s.runtime, f.users.author);
    for (
      const bad of [
        "",
        "svck_",
        "sk_live_abc",
        good.slice(0, -1),
        good.replace("svck_", "SVCK_"),
        `${good}.x`,
        "svck_" + "a".repeat(300),
        good.toUpperCase(),
      ]
    ) {
      const r = await call(s, "GET", "/api/v1/auth/me", { ...cookie, "SVC-API-Key": bad });
      equal(r.status, 401, bad);
      equal(r.body.error.code, "auth.api_key.invalid", bad);
    }
  },
);

forEachServer(
  "workspace names breaking the grammar answer workspace.validation.name_invalid",
  async (s, f) => {
    const headers = await sessionHeaders(s.runtime, f.users.super_admin);
    for (const name of ["UPPER", "with space", "", "x".repeat(64), "ünï", 42, null]) {
      const r = await call(s, "POST", "/api/v1/workspaces", headers, { name });
      equal(r.status, 400, String(name));
      equal(r.body.error.code, "workspace.validation.name_invalid", String(name));
    }
    const dup = await call(s, "POST", "/api/v1/workspaces", headers, { name: "acme" });
    deepEqual([dup.status, dup.body.error.code], [409, "workspace.validation.duplicate_name"]);
  },
);

forEachServer(
  "user administration: deactivation takes effect at once locally, for sessions and keys",
  async (s, f) => {
    const admin = await sessionHeaders(s.runtime, f.users.super_admin);
    const author = await sessionHeaders(s.runtime, f.users.author);
    const key = await userKey(s.runtime, f.users.author, f.workspace.id, ["read"]);
    equal((await call(s, "GET", "/api/v1/auth/me", author)).status, 200);
    equal((await call(s, "GET", "/api/v1/auth/me", { "SVC-API-Key": key })).status, 200);
    const off = await call(
      s,
      "POST",
      `/api/v1/auth/users/${f.users.author.id}/deactivate`,
      admin,
    );
    equal(off.body.data.is_active, false);
    equal((await call(s, "GET", "/api/v1/auth/me", author)).status, 401);
    equal(
      (await call(s, "GET", "/api/v1/auth/me", { "SVC-API-Key": key })).body.error.code,
      "auth.api_key.invalid",
    );
    equal(
      (await call(s, "POST", `/api/v1/auth/users/${f.users.author.id}/activate`, admin)).body.data
        .is_active,
      true,
    );
    equal((await call(s, "GET", "/api/v1/auth/me", author)).status, 200);
    const events = await s.runtime.db.query<{ event: string }>(
      "SELECT event FROM audit_log WHERE event LIKE 'auth.user.%'",
    );
    deepEqual(events.map((e) => e.event).sort(), [
      "auth.user.activated",
      "auth.user.deactivated",
    ]);
    const grant = await call(
      s,
      "POST",
      `/api/v1/auth/users/${f.users.viewer.id}/grant-admin`,
      admin,
    );
    equal(grant.body.data.is_admin, true);
  },
);
