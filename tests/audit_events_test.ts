/**
 * Every audit event of spec 1 §6 that the access core can raise is written, with the record shape
 * of §6, and `GET /api/v1/audit` shows a workspace admin their workspace and a super admin all.
 * (`auth.api_key.used` is sampled 1 in 100; its own test injects the sampler.)
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { createUser, seedRoles, sessionHeaders, TEST_PASSWORD } from "./support/access_fixtures.ts";
import { call, type Json, withTestServer } from "./support/harness.ts";
import { forEachStoreKind } from "./support/stores.ts";

forEachStoreKind(
  "every access-core audit event is written with the §6 record shape",
  async (store) => {
    await withTestServer({
      store,
      env: {
        SERVICE_AUTH_LOCAL_ENABLED: "true",
        SERVICE_AUTH_LOCAL_LOCKOUT_MAX_FAILURES: "2",
        SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: "boss@example.com",
        SERVICE_AUTH_LOCAL_BOOTSTRAP_PASSWORD: "one time seed password",
      },
    }, async (s) => {
      const f = await seedRoles(s.runtime);
      const admin = await sessionHeaders(s.runtime, f.users.super_admin);
      const wsAdmin = await sessionHeaders(s.runtime, f.users.ws_admin);
      const csrf = { cookie: "svc_csrf=tok", "SVC-CSRF-Token": "tok" };
      const form = (fields: Record<string, string>) =>
        new URLSearchParams({ ...fields, _csrf: "tok" }).toString();

      // sign-in: success, bad credentials, lockout, inactive, logout
      equal(
        (await call(
          s,
          "POST",
          "/login",
          csrf,
          form({ email: f.users.author.email, password: TEST_PASSWORD }),
        )).status,
        302,
      );
      const victim = await createUser(s.runtime, "victim@example.com");
      for (let i = 0; i < 2; i++) {
        await call(s, "POST", "/login", csrf, form({ email: victim.email, password: "nope" }));
      }
      const sleepy = await createUser(s.runtime, "sleepy@example.com");
      await call(s, "POST", `/api/v1/auth/users/${sleepy.id}/deactivate`, admin);
      await call(s, "POST", "/login", csrf, form({ email: sleepy.email, password: TEST_PASSWORD }));
      await call(s, "POST", "/logout", await sessionHeaders(s.runtime, f.users.viewer));

      // passwords: change failed, changed, change locked
      const changer = await createUser(s.runtime, "changer@example.com");
      const changerSession = await sessionHeaders(s.runtime, changer);
      await call(s, "POST", "/partials/account/password", changerSession, {
        current_password: "wrong",
        new_password: "a new password!",
      });
      await call(s, "POST", "/partials/account/password", changerSession, {
        current_password: TEST_PASSWORD,
        new_password: "a new password!",
      });
      await call(s, "POST", "/partials/account/password", await sessionHeaders(s.runtime, victim), {
        current_password: TEST_PASSWORD,
        new_password: "x".repeat(20),
      });

      // user administration
      await call(s, "POST", `/api/v1/auth/users/${sleepy.id}/activate`, admin);
      await call(s, "POST", `/api/v1/auth/users/${f.users.viewer.id}/grant-admin`, admin);
      await call(s, "POST", `/api/v1/auth/users/${f.users.viewer.id}/revoke-admin`, admin);

      // keys: created, rejected, revoked; scope denied; header rejected
      const created = await call(s, "POST", "/api/v1/auth/api-keys", wsAdmin, {
        name: "k",
        scopes: ["read"],
      });
      equal(created.status, 201);
      await call(s, "GET", "/api/v1/auth/me", {
        "SVC-API-Key": "svck_aaaaaaaaaaaa." + "a".repeat(48),
      });
      await call(s, "PUT", "/api/v1/workspaces/acme", { "SVC-API-Key": created.body.data.key }, {
        display_name: "x",
      });
      await call(s, "GET", "/api/v1/auth/me", {
        "SVC-API-Key": created.body.data.key,
        "SVC-Workspace": "acme",
      });
      await call(s, "DELETE", `/api/v1/auth/api-keys/${created.body.data.id}`, wsAdmin);

      // workspaces and members
      await call(s, "POST", "/api/v1/workspaces/acme/members", wsAdmin, {
        email: "newbie@acme.example",
      });
      await call(s, "DELETE", "/api/v1/workspaces/acme/invitations/newbie@acme.example", wsAdmin);
      await call(s, "PUT", `/api/v1/workspaces/acme/members/${f.users.viewer.id}`, wsAdmin, {
        author: true,
      });
      await call(s, "DELETE", `/api/v1/workspaces/acme/members/${f.users.viewer.id}`, wsAdmin);
      await call(s, "POST", "/api/v1/workspaces/acme/deactivate", admin);
      await call(s, "POST", "/api/v1/workspaces/acme/reactivate", admin);

      const all = await call(s, "GET", "/api/v1/audit?limit=200", admin);
      equal(all.status, 200);
      const events = new Set<string>(all.body.data.items.map((i: Json) => i.event));
      const expected = [
        "auth.login.success",
        "auth.login.bad_credentials",
        "auth.login.locked",
        "auth.login.user_inactive",
        "auth.logout",
        "auth.password.seeded",
        "auth.password.changed",
        "auth.password.change_failed",
        "auth.password.change_locked",
        "auth.user.deactivated",
        "auth.user.activated",
        "auth.user.admin_granted",
        "auth.user.admin_revoked",
        "auth.api_key.created",
        "auth.api_key.rejected",
        "auth.api_key.revoked",
        "auth.scope.denied",
        "auth.super_admin_acting",
        "auth.workspace.created",
        "auth.workspace.header_rejected",
        "workspace.member_added",
        "workspace.member_invited",
        "workspace.invitation_revoked",
        "workspace.member_flags_changed",
        "workspace.member_removed",
        "workspace.deactivated",
        "workspace.reactivated",
      ];
      deepEqual(expected.filter((e) => !events.has(e)), [], "events never written");

      const shape = all.body.data.items.find((i: Json) => i.event === "auth.login.success");
      deepEqual(Object.keys(shape).sort(), [
        "details",
        "event",
        "id",
        "provider",
        "source_ip",
        "timestamp",
        "user_agent",
        "user_id",
        "workspace_id",
      ]);
      equal(shape.source_ip, "127.0.0.1");
      equal(shape.details.provider, "local");
      const serialized = JSON.stringify(all.body);
      ok(
        !serialized.includes(TEST_PASSWORD) && !serialized.includes("one time seed password"),
        "no credential in the audit",
      );
      ok(!serialized.includes(created.body.data.key.split(".")[1]), "no key secret in the audit");

      const scoped = await call(
        s,
        "GET",
        "/api/v1/audit?limit=200&event=workspace.member_invited",
        wsAdmin,
      );
      equal(scoped.status, 200);
      ok(scoped.body.data.items.length >= 1);
      ok(
        scoped.body.data.items.every((i: Json) =>
          i.workspace_id === f.workspace.id && i.event === "workspace.member_invited"
        ),
      );
      // issue 23 item 5: `actor` (a user id) narrows the trail to that person's acts.
      const byAdmin = await call(
        s,
        "GET",
        `/api/v1/audit?limit=200&actor=${f.users.ws_admin.id}`,
        wsAdmin,
      );
      equal(byAdmin.status, 200);
      ok(byAdmin.body.data.items.length >= 1);
      ok(byAdmin.body.data.items.every((i: Json) => i.user_id === f.users.ws_admin.id));
      const theirs = await call(s, "GET", "/api/v1/audit?limit=200", wsAdmin);
      ok(theirs.body.data.items.some((i: Json) => i.user_id !== f.users.ws_admin.id));
      const bad = await call(s, "GET", "/api/v1/audit?from=yesterday", wsAdmin);
      deepEqual([bad.status, bad.body.error.code, bad.body.error.details.field], [
        400,
        "pipeline.execution.invalid_parameter_type",
        "from",
      ]);
    });
  },
);
