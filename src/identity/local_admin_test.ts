import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { queryAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { verifySecret } from "../lib/argon2.ts";
import type { Db } from "../store/mod.ts";
import { LocalUserAdmin } from "./local_admin.ts";
import { ensureSystemActor, SYSTEM_EMAIL } from "./system_actor.ts";
import type { Principal } from "./types.ts";
import { findUserByEmail, findUserById } from "./users_repo.ts";

const actor: Principal = {
  userId: crypto.randomUUID(),
  email: "root@example.com",
  displayName: "Root",
  provider: "local",
  isSuperAdmin: true,
  authMethod: "OIDC",
  amr: "pwd",
  mustChangePassword: false,
  scopes: [],
};
const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;

function admin(db: Db, calls: unknown[] = []) {
  return new LocalUserAdmin({
    db,
    onCreate: (_tx, user, request) => {
      calls.push({ user: user.email, request });
      return Promise.resolve(request.workspace ? [request.workspace] : []);
    },
  });
}

forEachStore(
  "create(): one-time password, forced change, audited, hooks run in the act",
  async (db) => {
    const calls: unknown[] = [];
    const created = await admin(db, calls).create(actor, {
      email: " New.Person@Example.com ",
      display_name: "New Person",
      workspace: "acme",
      admin: "on",
    });
    equal(created.user.email, "new.person@example.com");
    equal(created.user.must_change_password, true);
    equal(created.user.provider, "local");
    match(created.oneTimePassword, /^[A-Za-z0-9_-]{20}$/);
    ok(await verifySecret(created.oneTimePassword, created.user.password_hash!));
    deepEqual(calls, [{
      user: "new.person@example.com",
      request: { workspace: "acme", flags: { author: true, promoter: false, admin: true } },
    }]);
    const audit = (await queryAudit(db, { offset: 0, limit: 10 })).items;
    equal(audit[0].event, "auth.user.created");
    equal(audit[0].details.created_by, actor.userId);
    ok(!JSON.stringify(audit).includes(created.oneTimePassword));
  },
);

forEachStore(
  "create(): a taken email, the system actor's included, answers auth.user.email_taken",
  async (db) => {
    await ensureSystemActor(db);
    await rejects(admin(db).create(actor, { email: SYSTEM_EMAIL }), code("auth.user.email_taken"));
    await admin(db).create(actor, { email: "x@example.com" });
    await rejects(
      admin(db).create(actor, { email: "X@example.com" }),
      code("auth.user.email_taken"),
    );
  },
);

forEachStore("create(): bad input answers the field, nothing is written", async (db) => {
  for (
    const input of [{ email: 42 }, { email: "no-at-sign" }, { email: "a@b.c", admin: "maybe" }, {
      email: "a@b.c",
      display_name: 7,
    }]
  ) {
    await rejects(
      admin(db).create(actor, input),
      code("pipeline.execution.invalid_parameter_type"),
    );
  }
  equal((await db.query("SELECT id FROM users")).length, 0);
});

forEachStore("create(): a failing hook rolls the whole act back", async (db) => {
  const failing = new LocalUserAdmin({
    db,
    onCreate: () => Promise.reject(new AppError("workspace.not_found", { workspace: "nope" })),
  });
  await rejects(
    failing.create(actor, { email: "a@example.com", workspace: "nope" }),
    code("workspace.not_found"),
  );
  equal(await findUserByEmail(db, "a@example.com"), undefined);
  equal((await queryAudit(db, { offset: 0, limit: 10 })).total, 0);
});

forEachStore(
  "reset, disable-local, unlock: audited; the system actor is no such user",
  async (db) => {
    const a = admin(db);
    const { user } = await a.create(actor, { email: "u@example.com" });
    await db.execute(
      "UPDATE users SET must_change_password = $1, failed_login_count = 5, locked_until = $2",
      [false, new Date(Date.now() + 60_000).toISOString()],
    );
    const reset = await a.resetPassword(actor, user.id);
    equal(reset.user.must_change_password, true);
    equal(reset.user.locked_until, null);
    ok(await verifySecret(reset.oneTimePassword, reset.user.password_hash!));
    await db.execute("UPDATE users SET failed_login_count = 5, locked_until = $1", [
      new Date(Date.now() + 60_000).toISOString(),
    ]);
    const unlocked = await a.unlock(actor, user.id);
    deepEqual([unlocked.failed_login_count, unlocked.locked_until, unlocked.password_hash], [
      0,
      null,
      reset.user.password_hash,
    ]);
    equal((await a.disableLocal(actor, user.id)).password_hash, null);
    const system = await ensureSystemActor(db);
    await rejects(a.resetPassword(actor, system.id), code("auth.user.not_found"));
    await rejects(a.unlock(actor, "not-a-uuid"), code("auth.user.not_found"));
    const events = (await queryAudit(db, { offset: 0, limit: 10 })).items.map((i) => i.event)
      .sort();
    deepEqual(events, [
      "auth.password.disabled",
      "auth.password.reset",
      "auth.user.created",
      "auth.user.unlocked",
    ]);
  },
);

forEachStore("setTheme(): light, dark or system only", async (db) => {
  const { user } = await admin(db).create(actor, { email: "u@example.com" });
  equal(await admin(db).setTheme(user.id, "dark"), "dark");
  equal((await findUserById(db, user.id))?.theme, "dark");
  await rejects(
    admin(db).setTheme(user.id, "neon"),
    code("pipeline.execution.invalid_parameter_type"),
  );
});

forEachStore(
  "create(): an account for the bootstrap admin email is granted once, at creation, by bootstrap",
  async (db) => {
    const withBootstrap = new LocalUserAdmin({
      db,
      onCreate: () => Promise.resolve([]),
      bootstrapAdminEmail: "Boot@Example.com",
    });
    const boot = await withBootstrap.create(actor, { email: "boot@example.com" });
    equal(boot.user.is_admin, true);
    const other = await withBootstrap.create(actor, { email: "someone@example.com" });
    equal(other.user.is_admin, false);
    const grants =
      (await queryAudit(db, { event: "auth.user.admin_granted", offset: 0, limit: 10 }))
        .items;
    deepEqual(grants.map((g) => [g.provider, g.details.target_user_id]), [[
      "bootstrap",
      boot.user.id,
    ]]);
  },
);
