import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { forEachStore } from "../../tests/support/stores.ts";
import { queryAudit } from "../audit/mod.ts";
import { AppError } from "../errors/mod.ts";
import { hashSecret, verifySecret } from "../lib/argon2.ts";
import { createLogger } from "../lib/log.ts";
import type { Db, SqlValue } from "../store/mod.ts";
import { insertUser } from "../store/row_fixtures.ts";
import { LocalAccounts } from "./local_accounts.ts";
import { findUserByEmail } from "./users_repo.ts";

const PASSWORD = "correct horse battery";

async function user(db: Db, email: string, over: Record<string, SqlValue> = {}) {
  return insertUser(db, email, {
    display_name: "U",
    password_hash: await hashSecret(PASSWORD),
    must_change_password: false,
    ...over,
  });
}

function accounts(db: Db, logs: string[] = [], counter = { calls: 0 }) {
  return new LocalAccounts({
    db,
    logger: createLogger("debug", (l) => logs.push(l)),
    maxFailures: 3,
    lockMinutes: 15,
    verify: (p, h) => {
      counter.calls++;
      return verifySecret(p, h);
    },
  });
}

const events = async (db: Db) =>
  (await queryAudit(db, { offset: 0, limit: 100 })).items.map((i) => i.event).reverse();

forEachStore(
  "login: success resets counters; unknown, OIDC-only and wrong password are one answer",
  async (db) => {
    await user(db, "a@example.com");
    await user(db, "oidc@example.com", { password_hash: null, provider: "corp" });
    const counter = { calls: 0 };
    const local = accounts(db, [], counter);
    for (
      const [email, password] of [
        ["nobody@example.com", PASSWORD],
        ["oidc@example.com", PASSWORD],
        ["a@example.com", "wrong"],
      ]
    ) {
      deepEqual(await local.login(email, password), { ok: false, reason: "credentials" });
    }
    equal(counter.calls, 3, "the no-row and OIDC-only paths pay one dummy verification each");
    const outcome = await local.login("  A@Example.com ", PASSWORD);
    ok(outcome.ok);
    equal(outcome.user.failed_login_count, 0);
    deepEqual(await events(db), [
      "auth.login.bad_credentials",
      "auth.login.bad_credentials",
      "auth.login.bad_credentials",
    ]);
  },
);

forEachStore(
  "login: bad input types are the same credentials answer, never a crash",
  async (db) => {
    const local = accounts(db);
    for (
      const [email, password] of [[null, null], [42, "x"], ["x".repeat(300) + "@e.com", "p"], [[
        "a",
      ], {}]]
    ) {
      deepEqual(await local.login(email, password), { ok: false, reason: "credentials" });
    }
  },
);

forEachStore(
  "lockout: engages at the limit, refuses even the right password, no hashing while locked",
  async (db) => {
    await user(db, "a@example.com");
    const counter = { calls: 0 };
    const local = accounts(db, [], counter);
    for (let i = 0; i < 2; i++) {
      deepEqual(await local.login("a@example.com", "wrong"), { ok: false, reason: "credentials" });
    }
    deepEqual(await local.login("a@example.com", "wrong"), { ok: false, reason: "locked" });
    const locked = await findUserByEmail(db, "a@example.com");
    equal(locked?.failed_login_count, 3);
    ok(locked?.locked_until);
    const before = counter.calls;
    deepEqual(await local.login("a@example.com", PASSWORD), { ok: false, reason: "locked" });
    equal(counter.calls, before, "no Argon2 verification while locked");
    equal(
      (await findUserByEmail(db, "a@example.com"))?.failed_login_count,
      3,
      "the count does not move while locked",
    );
    ok((await events(db)).includes("auth.login.locked"));
  },
);

forEachStore("lockout: an expired lock starts a fresh budget", async (db) => {
  await user(db, "a@example.com");
  await db.execute("UPDATE users SET failed_login_count = 3, locked_until = $1", [
    new Date(Date.now() - 1000).toISOString(),
  ]);
  const local = accounts(db);
  deepEqual(await local.login("a@example.com", "wrong"), { ok: false, reason: "credentials" });
  equal((await findUserByEmail(db, "a@example.com"))?.failed_login_count, 1);
  ok((await local.login("a@example.com", PASSWORD)).ok);
});

forEachStore("an inactive account with the right password sees the inactive answer", async (db) => {
  await user(db, "a@example.com", { is_active: false });
  deepEqual(await accounts(db).login("a@example.com", PASSWORD), { ok: false, reason: "inactive" });
  ok((await events(db)).includes("auth.login.user_inactive"));
});

forEachStore(
  "changePassword: verifies current, enforces 12–128, clears the forced flag, audits",
  async (db) => {
    const id = await user(db, "a@example.com", { must_change_password: true });
    const local = accounts(db);
    await rejects(
      local.changePassword(id, "wrong", "a brand new password"),
      (e) => e instanceof AppError && e.code === "auth.login.bad_credentials",
    );
    await rejects(
      local.changePassword(id, PASSWORD, "short"),
      (e) => e instanceof AppError && e.code === "auth.password.policy" && e.details.min === 12,
    );
    await rejects(
      local.changePassword(id, PASSWORD, "x".repeat(129)),
      (e) => e instanceof AppError && e.code === "auth.password.policy",
    );
    deepEqual(await local.changePassword(id, PASSWORD, "a brand new password"), { forced: true });
    const after = await findUserByEmail(db, "a@example.com");
    equal(after?.must_change_password, false);
    ok((await local.login("a@example.com", "a brand new password")).ok);
    deepEqual(
      (await events(db)).filter((e) => e.startsWith("auth.password")),
      ["auth.password.change_failed", "auth.password.changed"],
    );
  },
);

forEachStore("changePassword while locked: no hashing, audited change_locked", async (db) => {
  const id = await user(db, "a@example.com");
  await db.execute("UPDATE users SET locked_until = $1", [
    new Date(Date.now() + 600_000).toISOString(),
  ]);
  await rejects(
    accounts(db).changePassword(id, PASSWORD, "a brand new password"),
    (e) => e instanceof AppError && e.code === "auth.login.locked",
  );
  ok((await events(db)).includes("auth.password.change_locked"));
});

forEachStore(
  "seedBootstrap: create-if-absent admin with a forced change, once; warnings on restart",
  async (db) => {
    const logs: string[] = [];
    const local = accounts(db, logs);
    equal(
      await local.seedBootstrap("Boss@Example.com", { password: "one-time-secret-123" }),
      "created",
    );
    equal(await local.seedBootstrap("boss@example.com", { password: "other" }), "exists");
    const boss = await findUserByEmail(db, "boss@example.com");
    equal(boss?.is_admin, true);
    equal(boss?.must_change_password, true);
    deepEqual((await events(db)).filter((e) => e !== "auth.login.bad_credentials").sort(), [
      "auth.password.seeded",
      "auth.user.admin_granted",
    ]);
    ok(logs.some((l) => l.includes("auth.local.one_time_credential_pending")));
    equal(await local.seedBootstrap("someone-else@example.com", { password: "x" }), "exists");
    ok(logs.some((l) => l.includes("auth.local.bootstrap_mismatch")));
    ok(!logs.join("\n").includes("one-time-secret-123"), "the plaintext seed is never logged");
    ok((await local.login("boss@example.com", "one-time-secret-123")).ok);
  },
);
