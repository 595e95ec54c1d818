/**
 * The bootstrap admin with OIDC (spec 1 §5.3): the placeholder a bootstrap datasource file makes
 * at startup is completed by the first real login, which grants nothing more; a revoke is never
 * undone by a later login or restart; the file's entries are kept for the datasource import.
 */
import { deepEqual, equal } from "node:assert/strict";
import { ensureBootstrapPlaceholder } from "../src/identity/bootstrap_admin.ts";
import { sessionHeaders } from "./support/access_fixtures.ts";
import { CookieClient } from "./support/cookie_client.ts";
import { call } from "./support/harness.ts";
import { me, withOidc } from "./support/oidc_harness.ts";

Deno.test("startup placeholder, then login: one grant, the row completed, a revoke sticks", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/datasources.yaml`;
    await Deno.writeTextFile(
      file,
      '- name: warehouse\n  dialect: DUCKDB\n  jdbc_url: "jdbc:duckdb:"\n',
    );
    await withOidc(async (t) => {
      deepEqual(t.s.runtime.bootstrapDatasources, [
        { name: "warehouse", dialect: "DUCKDB", jdbc_url: "jdbc:duckdb:" },
      ]);
      const imported = await t.s.runtime.db.first<{ name: string }>(
        "SELECT name FROM datasources WHERE name = 'warehouse'",
      );
      deepEqual(imported, { name: "warehouse" });
      const row = async () =>
        await t.s.runtime.db.first<Record<string, unknown>>(
          "SELECT * FROM users WHERE email = 'root@corp.example'",
        );
      deepEqual([(await row())?.provider, (await row())?.display_name], ["bootstrap", "root"]);

      t.account({ sub: "r-1", email: "root@corp.example", name: "Rita Root" });
      const b = new CookieClient();
      deepEqual(await t.signIn(b, "r-1"), { status: 302, location: "/" });
      const done = await row();
      deepEqual(
        [done?.provider, done?.provider_subject, done?.display_name, Boolean(done?.is_admin)],
        ["corp", "r-1", "Rita Root", true],
      );
      // The demo is the only active workspace: a super admin lands there, joining nothing.
      const landed = (await me(t.s, b)).data.workspace;
      equal(landed?.name ?? landed, "demo");
      equal((await t.audit("workspace.member_added")).length, 0);
      equal((await t.audit("auth.user.admin_granted")).length, 1);
      equal(t.notices.length, 1, "completing the placeholder is the first social login");

      // Revoke through the API; neither a restart's placeholder step nor a login grants again.
      const id = String(done?.id);
      const headers = await sessionHeaders(t.s.runtime, {
        id,
        email: "root@corp.example",
        password: "",
        principal: {
          userId: id,
          email: "root@corp.example",
          displayName: "Rita Root",
          provider: "corp",
          isSuperAdmin: true,
          authMethod: "OIDC",
          amr: "oidc",
          mustChangePassword: false,
          scopes: [],
        },
      });
      const revoked = await call(t.s, "POST", `/api/v1/auth/users/${id}/revoke-admin`, headers);
      equal(revoked.body.data.is_admin, false);
      equal(await ensureBootstrapPlaceholder(t.s.runtime.db, "root@corp.example"), false);
      deepEqual(await t.signIn(new CookieClient(), "r-1"), { status: 302, location: "/" });
      equal(Boolean((await row())?.is_admin), false);
      equal((await t.audit("auth.user.admin_granted")).length, 1);
      equal(t.notices.length, 1);
    }, {
      env: {
        SERVICE_AUTH_BOOTSTRAP_ADMIN_EMAIL: "Root@Corp.example",
        SERVICE_AUTH_BOOTSTRAP_DATASOURCE_FILE: file,
      },
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
